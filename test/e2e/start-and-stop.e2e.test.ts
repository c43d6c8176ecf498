/**
 * Starting and stopping the standalone server as an operator does, with real processes: `npm
 * start` stopped by a signal to the npm process (what a service manager or a shell's `kill`
 * sends), which must reach the server and free the port and the database for the next start.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readLock } from '../../src/platform/db/lock';
import { ChildServer, ROOT, serverEnv } from '../support/crash-server';
import { freePort, tempDir } from '../support/harness';

const work = tempDir('fpa-start-stop-');
const leftovers: number[] = [];

afterAll(() => {
  // A failed test may leave a server behind: stop the ones it started, by their pid.
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  work.cleanup();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await Bun.sleep(100);
  }
  return condition();
}

describe('npm start and a signal to the npm process', () => {
  test('SIGTERM to `npm start` stops the server gracefully: the lock is released and the next start is not refused', async () => {
    const port = freePort();
    const env = { ...serverEnv(work.dir), PORT: String(port), npm_config_update_notifier: 'false' };
    const npm = Bun.spawn(['npm', 'start'], { cwd: ROOT, env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    const lockFile = join(work.dir, 'fpa.db.lock');
    const healthy = await until(
      () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ),
      60_000,
    );
    expect(healthy).toBe(true);
    const server = readLock(lockFile)!.pid;
    leftovers.push(server);

    npm.kill('SIGTERM');
    await npm.exited;
    // The server itself got the signal and shut down: not left running with parent 1.
    expect(await until(() => !alive(server), 15_000)).toBe(true);
    expect(existsSync(lockFile)).toBe(false);
    expect(await new Response(npm.stdout).text()).toContain('received SIGTERM, shutting down');

    const next = new ChildServer(work.dir, serverEnv(work.dir), port);
    await next.start();
    expect(await next.stop()).toBe(0);
  }, 120_000);
});
