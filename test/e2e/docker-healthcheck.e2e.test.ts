/**
 * The image's health check, as Docker runs it: the Dockerfile's HEALTHCHECK command, taken from
 * the Dockerfile, run by a shell in the application's directory with the container's environment
 * (the image sets PORT=3000; `docker run -e FPA_PORT=8080` adds FPA_PORT), against the real
 * server started with that environment. FPA_PORT wins over PORT in the settings, so the server
 * listens there; the check once probed PORT alone and called that server unhealthy for ever.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Subprocess } from 'bun';
import { ROOT, serverEnv } from '../support/crash-server';
import { freePort, tempDir } from '../support/harness';

const work = tempDir('fpa-healthcheck-');
const servers: Subprocess[] = [];

afterAll(async () => {
  for (const server of servers) {
    server.kill('SIGTERM');
    await server.exited;
  }
  work.cleanup();
});

/** The command of the Dockerfile's HEALTHCHECK (its continuation lines joined), as the image's shell runs it. */
function healthCommand(): string {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const line = /^HEALTHCHECK\b.*?\bCMD\s+(.+)$/m.exec(dockerfile);
  if (!line) throw new Error('the Dockerfile has no HEALTHCHECK … CMD line');
  return line[1]!.trim();
}

/** The server as the image starts it (`bun src/server.ts`), with the container's environment; resolves once it answers /readyz. */
async function startServer(dir: string, env: Record<string, string>, port: number): Promise<void> {
  const server = Bun.spawn([process.execPath, 'src/server.ts'], { cwd: ROOT, env: { ...serverEnv(dir), ...env }, stdout: 'ignore', stderr: 'ignore' });
  servers.push(server);
  for (let i = 0; i < 200; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await Bun.sleep(100);
  }
  throw new Error(`the server did not answer /readyz on port ${port}`);
}

/** The health command run as Docker runs it: `/bin/sh -c` in the image's working directory, the container's environment, its `bun` on the PATH. */
async function check(env: Record<string, string>): Promise<number> {
  const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  const run = Bun.spawn(['sh', '-c', healthCommand()], { cwd: ROOT, env: { ...env, PATH }, stdout: 'ignore', stderr: 'ignore' });
  return run.exited;
}

describe('the Dockerfile HEALTHCHECK', () => {
  test('healthy with the image’s PORT alone (the ordinary run)', async () => {
    const port = freePort();
    const dir = join(work.dir, 'port');
    const env = { PORT: String(port) };
    await startServer(dir, env, port);
    expect(await check({ ...serverEnv(dir), ...env })).toBe(0);
  }, 60_000);

  test('healthy with FPA_PORT, which the server listens on whatever PORT says; unhealthy where nothing answers', async () => {
    const port = freePort();
    const imagePort = freePort();
    const dir = join(work.dir, 'fpa-port');
    // The image's ENV PORT, and `docker run -e FPA_PORT=…`: the server listens on FPA_PORT.
    const env = { PORT: String(imagePort), FPA_PORT: String(port) };
    await startServer(dir, env, port);
    expect(
      await fetch(`http://127.0.0.1:${imagePort}/readyz`).then(
        () => 'answered',
        () => 'nothing there',
      ),
    ).toBe('nothing there');
    expect(await check({ ...serverEnv(dir), ...env })).toBe(0);
    // And the check is a real probe: a port nobody listens on is unhealthy.
    expect(await check({ ...serverEnv(dir), PORT: String(imagePort), FPA_PORT: String(freePort()) })).toBe(1);
  }, 60_000);
});
