/**
 * Starting and stopping the standalone server as an operator does, with real processes: `npm
 * start` stopped by a signal to the npm process (what a service manager or a shell's `kill`
 * sends), which must reach the server and free the port and the database for the next start;
 * the settings a start must refuse rather than serve with (a terminal allow-list with a typo); and
 * a database that cannot be opened, said in words (which database, why) by the server and scripts;
 * and a database a newer release migrated, which this one must not serve.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { migrateDatabase, migrationsUnknownHere, openDatabase } from '../../src/platform/db/client';
import { readLock } from '../../src/platform/db/lock';
import { runCli } from '../support/cli';
import { ChildServer, ROOT, runBun, serverEnv } from '../support/crash-server';
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

describe('a typo in ADMS_ALLOWED_IPS', () => {
  test('the server refuses to start naming the entry (fpa.E022), and fpa:check reports it with exit 1', async () => {
    const dir = join(work.dir, 'allowed-ips');
    const start = await runBun(['src/server.ts'], serverEnv(dir, { PORT: String(freePort()), FPA_ADMS_ALLOWED_IPS: '127.0.0.l' }));
    expect(start.code).toBe(1);
    expect(start.err).toContain('fpa: refusing to start, the configuration has errors');
    expect(start.err).toContain('fpa.E022 [error] ADMS_ALLOWED_IPS entry "127.0.0.l"');
    expect(start.out).not.toContain('listening');
    for (const [list, entry] of [
      ['999.1.1.1', '999.1.1.1'],
      ['127.0.0.1,10.0.0.300', '10.0.0.300'],
    ]) {
      const check = await runCli(['check'], join(dir, 'fpa.db'), { FPA_ADMS_ALLOWED_IPS: list! });
      expect({ code: check.code, named: check.out.includes(`fpa.E022 [error] ADMS_ALLOWED_IPS entry "${entry}"`) }).toEqual({ code: 1, named: true });
    }
  }, 60_000);
});

describe('a database that cannot be opened', () => {
  test('an unreachable libSQL server: the start names the database (its token hidden) and the refused connection', async () => {
    const url = `libsql://127.0.0.1:${freePort()}?authToken=not-for-the-log`;
    const start = await runBun(
      ['src/server.ts'],
      serverEnv(work.dir, { PORT: String(freePort()), FPA_DATABASE_URL: url, FPA_DATABASE_AUTH_TOKEN: 'nor-this' }),
    );
    expect(start.code).toBe(1);
    expect(start.err).toContain(`fpa: failed to start: cannot open the database ${url.replace('not-for-the-log', '***')}: connection refused`);
    for (const hidden of ['not-for-the-log', 'nor-this', 'Failed query', 'CREATE TABLE']) expect(start.err).not.toContain(hidden);
  }, 60_000);

  test('a data directory where a file is: the start says so, not a raw mkdir or driver error', async () => {
    const file = join(work.dir, 'not-a-directory');
    writeFileSync(file, '');
    const start = await runBun(['src/server.ts'], serverEnv(work.dir, { PORT: String(freePort()), FPA_DATABASE_URL: `file:${join(file, 'fpa.db')}` }));
    expect(start.code).toBe(1);
    expect(start.err).toContain(`fpa: failed to start: cannot open the database file:${join(file, 'fpa.db')}: ${file} is a file, not a directory`);
  }, 60_000);

  test('job scripts on a data directory that does not exist say which and why, exit 1', async () => {
    const missing = join(work.dir, 'missing', 'fpa.db');
    for (const args of [['check-devices'], ['create-user', '--username', 'ada', '--role', 'owner']]) {
      const run = await runCli(args, missing);
      expect({ code: run.code, err: run.err }).toEqual({
        code: 1,
        err: expect.stringContaining(`cannot open the database file:${missing}: the directory ${dirname(missing)} does not exist`),
      });
      expect(run.err).not.toContain('ConnectionFailed');
    }
  }, 60_000);

  test.skipIf(process.getuid?.() === 0)(
    'a data directory this user cannot write: the start says so',
    async () => {
      const locked = join(work.dir, 'locked');
      mkdirSync(locked, { mode: 0o500 });
      const start = await runBun(['src/server.ts'], serverEnv(work.dir, { PORT: String(freePort()), FPA_DATABASE_URL: `file:${join(locked, 'fpa.db')}` }));
      expect(start.code).toBe(1);
      expect(start.err).toContain(`the directory ${locked} is not writable by this user`);
    },
    60_000,
  );
});

describe('a database migrated by a newer release', () => {
  test('start, fpa:migrate and fpa:check refuse it, saying to start that release or restore the backup', async () => {
    const dir = join(work.dir, 'newer');
    const file = join(dir, 'fpa.db');
    const db = await openDatabase({ url: `file:${file}` });
    await migrateDatabase(db);
    // What the next release's migration leaves behind: a row this release has no file for.
    const later = Date.UTC(2031, 0, 15);
    await db.client.execute({ sql: 'INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)', args: ['f'.repeat(64), later] });
    // A migration of this release whose file was edited since (another hash, the same time) is not a newer one.
    await db.client.execute("UPDATE __drizzle_migrations SET hash = 'edited' WHERE id = (SELECT min(id) FROM __drizzle_migrations)");
    expect(await migrationsUnknownHere(db)).toEqual([{ hash: 'f'.repeat(64), createdAt: later }]);
    await db.close();

    const said =
      'this database was migrated by a newer release (1 migration this release does not have, the newest made 2031-01-15): start that release, or restore the backup taken before upgrading';
    const start = await runBun(['src/server.ts'], serverEnv(dir, { PORT: String(freePort()) }));
    expect({ code: start.code, err: start.err }).toEqual({ code: 1, err: `fpa: refusing to start: ${said}` });
    const migrate = await runCli(['migrate'], file);
    expect({ code: migrate.code, err: migrate.err }).toEqual({ code: 1, err: `fpa:migrate failed: ${said}` });
    const check = await runCli(['check'], file);
    expect(check.code).toBe(1);
    expect(check.out).toContain(`fpa.E023 [error] T${said.slice(1)}.`);
  }, 60_000);
});
