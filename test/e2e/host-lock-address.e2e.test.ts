/**
 * An instance embedded in a host's app says where it is served, as the standalone server does:
 * once the host's server listens, the lock file of the database names the API's address, the
 * operator scripts (child processes) hand their work to it over HTTP instead of waiting 30 s
 * for an address that never comes, and a second instance's DatabaseLockedError names it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../src/app/create';
import { DatabaseLockedError, readLock } from '../../src/platform/db/lock';
import { silentLogger } from '../../src/platform/log';
import { runBun, serverEnv } from '../support/crash-server';
import { tempDir, testSettings } from '../support/harness';

const tmp = tempDir('fpa-host-lock-');
const lockFile = join(tmp.dir, 'fpa.db.lock');
let fpa: FingerprintAttendance;
let app: Elysia;
let port: number;

beforeAll(async () => {
  // The settings the scripts' environment gives (serverEnv): none of theirs is then said not to apply.
  fpa = await createFingerprintAttendance({
    settings: testSettings(tmp.dir, { HOST: '127.0.0.1', LOG_LEVEL: 'warn' }),
    env: {},
    logger: silentLogger,
    startJobs: false,
  });
  app = new Elysia().get('/', () => 'host').use(fpa.plugin);
  app.listen({ port: 0, hostname: '127.0.0.1' });
  port = app.server!.port!;
});
afterAll(async () => {
  await app.stop(true);
  await fpa.close();
  tmp.cleanup();
});

describe('an instance in a host’s app', () => {
  test('the lock file names the API where the host listens, once it listens', () => {
    const held = readLock(lockFile);
    expect(held?.pid).toBe(process.pid);
    expect(held?.apiUrl).toBe(`http://127.0.0.1:${port}/api/fingerprint/v1/`);
    expect(held?.consoleBase).toBe(`http://127.0.0.1:${port}`);
    expect(Object.keys(held?.settings ?? {}).length).toBeGreaterThan(0);
  });

  test('a script hands its work to the host’s server and succeeds at once', async () => {
    const started = performance.now();
    const run = await runBun(['src/cli.ts', 'check-devices'], serverEnv(tmp.dir), 25_000);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 30_000);

  test('a second instance on the same file is refused, naming the address the first serves', async () => {
    const second = createFingerprintAttendance({ settings: testSettings(tmp.dir), env: {}, logger: silentLogger, startJobs: false });
    const error = await second.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DatabaseLockedError);
    expect((error as DatabaseLockedError).message).toContain(`serving http://127.0.0.1:${port}/api/fingerprint/v1/`);
    expect((error as DatabaseLockedError).holder?.apiUrl).toBe(`http://127.0.0.1:${port}/api/fingerprint/v1/`);
  });

  test('a host serving it another way says where with servedAt', () => {
    fpa.servedAt({ hostname: '0.0.0.0', port: 4321 });
    expect(readLock(lockFile)?.apiUrl).toBe('http://127.0.0.1:4321/api/fingerprint/v1/');
    fpa.servedAt({ hostname: '127.0.0.1', port });
  });
});
