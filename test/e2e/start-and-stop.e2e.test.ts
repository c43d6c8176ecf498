/**
 * Starting and stopping the standalone server as an operator does, with real processes: `npm
 * start` stopped by a signal to the npm process (what a service manager or a shell's `kill`
 * sends), which must reach the server and free the port and the database for the next start;
 * the settings a start must refuse rather than serve with (a terminal allow-list with a typo); and
 * a database that cannot be opened, said in words (which database, why) by the server and scripts;
 * a database a newer release migrated, which this one must not serve; and a key ring that opens
 * none of the data at rest (a release cloned anew beside a copied data/, a wrong key).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateEncryptionKey, parseEncryptionKey } from '../../src/platform/crypto/template-cipher';
import { migrateDatabase, migrationsUnknownHere, openDatabase } from '../../src/platform/db/client';
import { liveLockHolder, readLock } from '../../src/platform/db/lock';
import { newEnrollee, templateBytes } from '../support/agents';
import { runCli } from '../support/cli';
import { ChildServer, ROOT, runBun, serverEnv } from '../support/crash-server';
import { freePort, startTestServer, TEST_KEY, tempDir } from '../support/harness';

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
    // fpa:check runs the same checks: the database the start refuses is an error there too.
    const check = await runBun(['src/cli.ts', 'check'], serverEnv(work.dir, { FPA_DATABASE_URL: url, FPA_DATABASE_AUTH_TOKEN: 'nor-this' }));
    expect({
      code: check.code,
      said: check.out.includes(`fpa.E031 [error] Cannot open the database ${url.replace('not-for-the-log', '***')}: connection refused`),
    }).toEqual({
      code: 1,
      said: true,
    });
    for (const hidden of ['not-for-the-log', 'nor-this']) expect(check.out).not.toContain(hidden);
  }, 60_000);

  test('a file that is not a database (README.md copied to fpa.db): the start refuses it, and so does fpa:check (fpa.E031, exit 1)', async () => {
    const dir = join(work.dir, 'not-a-database');
    mkdirSync(dir);
    const file = join(dir, 'fpa.db');
    // The ordinary flow first: a database the service made checks clean.
    const made = join(work.dir, 'a-database', 'fpa.db');
    expect((await runCli(['migrate'], made)).code).toBe(0);
    const clean = await runCli(['check'], made);
    expect({ code: clean.code, out: clean.out }).toEqual({ code: 0, out: 'configuration check: no problems found\nfpa:check: 0 error(s), 0 warning(s)' });
    copyFileSync(join(ROOT, 'README.md'), file);
    const start = await runBun(['src/server.ts'], serverEnv(dir, { PORT: String(freePort()) }));
    expect({ code: start.code, err: start.err }).toEqual({
      code: 1,
      err: `fpa: failed to start: cannot open the database file:${file}: file is not a database`,
    });
    // It once answered "no problems found", exit 0, for the file the start refuses.
    const check = await runCli(['check'], file);
    expect({ code: check.code, out: check.out.split('\n').filter((line) => !line.startsWith('    hint:')) }).toEqual({
      code: 1,
      out: [`fpa.E031 [error] Cannot open the database file:${file}: file is not a database.`, 'fpa:check: 1 error(s), 0 warning(s)'],
    });
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

describe('the start banner', () => {
  /** The banner's console lines of the server's latest start. */
  async function consoleLines(server: ChildServer): Promise<string[]> {
    expect(await until(() => server.log.split('Console:').length > server.starts, 15_000)).toBe(true);
    const last = server.log.slice(server.log.lastIndexOf('  Console:'));
    return last.slice(0, last.indexOf('  Terminals:')).trimEnd().split('\n');
  }

  test('with no account yet it says how to create the owner (the console link as the other way); with one, to sign in with it', async () => {
    const dir = join(work.dir, 'banner');
    mkdirSync(dir);
    const server = new ChildServer(dir, serverEnv(dir));
    await server.start();
    leftovers.push(server.pid!);
    const url = `http://127.0.0.1:${server.port}/console/`;
    expect(await consoleLines(server)).toEqual([
      `  Console:   ${url}`,
      '             No account yet: create yours, the owner, with  npm run fpa:create-user -- --username <you> --role owner',
      '             (it prints a link to choose your password), or sign in once with a link from  npm run fpa:console-link',
    ]);
    // The owner made as the banner says (a running server makes the invite).
    const made = await runCli(['create-user', '--username', 'ada', '--role', 'owner'], join(dir, 'fpa.db'));
    expect(made.code).toBe(0);
    expect(await server.stop()).toBe(0);
    await server.start();
    leftovers.push(server.pid!);
    // It said "sign in with a link from: npm run fpa:console-link" whatever the accounts.
    expect(await consoleLines(server)).toEqual([`  Console:   ${url}  (sign in with your account; operators: a one-time link from npm run fpa:console-link)`]);
    expect(await server.stop()).toBe(0);
  }, 90_000);
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

describe('a key ring that opens none of the data at rest', () => {
  /** An installation's data/: a template, a webhook signing secret and the proofs' signing key, sealed under TEST_KEY. */
  const old = join(work.dir, 'old-installation');
  const release = join(work.dir, 'new-clone');
  const copied = join(release, 'data', 'fpa.db');

  beforeAll(async () => {
    const server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true }, { dir: old });
    const person = await newEnrollee(server);
    await server.fpa.service.storeTemplate(person.id, 1, templateBytes(7), { algorithmVersion: '10', by: 'test' });
    expect((await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/hook' })).status).toBe(201);
    expect((await fetch(`${server.url}/.well-known/fpa-proof-key.json`)).status).toBe(200);
    await server.close();
    // A release cloned into a new directory (what it needs to run, linked), its data/ copied in, not its .env.
    mkdirSync(join(release, 'data'), { recursive: true });
    for (const name of ['package.json', 'src', 'migrations', 'node_modules']) symlinkSync(join(ROOT, name), join(release, name));
    for (const name of readdirSync(old).filter((n) => /^fpa\.db(-wal)?$/.test(n))) copyFileSync(join(old, name), join(release, 'data', name));
  }, 60_000);

  test('npm start there: fpa:init --if-missing writes no new key beside sealed data, says what to bring, and nothing starts', async () => {
    const port = freePort();
    const npm = Bun.spawn(['npm', 'start'], {
      cwd: release,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? work.dir, PORT: String(port), npm_config_update_notifier: 'false' },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    // Had a server started after all (with a new key), it is stopped, so its output ends.
    const timer = setTimeout(async () => {
      const holder = await liveLockHolder(copied);
      if (holder) process.kill(holder.pid, 'SIGKILL');
      npm.kill('SIGKILL');
    }, 30_000);
    const [err, code] = await Promise.all([new Response(npm.stderr).text(), npm.exited]);
    clearTimeout(timer);
    expect(code).not.toBe(0);
    const id = parseEncryptionKey(TEST_KEY).id;
    expect(err).toContain(
      `fpa:init: the database file:./data/fpa.db already holds data sealed under a template key (template, webhook signing secret, deletion proof signing key; key id ${id}), and there is no .env: a new key would open none of it, so none was written.`,
    );
    expect(err).toContain('Bring the .env (or FPA_TEMPLATE_ENCRYPTION_KEYS) this database was used with');
    expect(existsSync(join(release, '.env'))).toBe(false);
    expect(
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => 'served',
        () => 'nothing listens',
      ),
    ).toBe('nothing listens');
  }, 90_000);

  test('a valid key that is not the database’s: start refuses with fpa.E024, fpa:check too; with the right key, or a ring holding it, both pass', async () => {
    const wrong = generateEncryptionKey();
    const start = await runBun(['src/server.ts'], serverEnv(dirname(copied), { PORT: String(freePort()), FPA_TEMPLATE_ENCRYPTION_KEYS: wrong }));
    expect(start.code).toBe(1);
    expect(start.err).toContain(
      `fpa.E024 [error] TEMPLATE_ENCRYPTION_KEYS (key id ${parseEncryptionKey(wrong).id}) opens none of the 3 sealed values sampled from the database (template, webhook signing secret, deletion proof signing key), sealed under key id ${parseEncryptionKey(TEST_KEY).id}`,
    );
    expect(start.out).not.toContain('listening');
    const check = await runCli(['check'], copied, { FPA_TEMPLATE_ENCRYPTION_KEYS: wrong });
    expect({ code: check.code, e024: check.out.includes('fpa.E024 [error]') }).toEqual({ code: 1, e024: true });
    // Nothing was sealed under the wrong key meanwhile: the right key alone still opens everything.
    for (const keys of [TEST_KEY, `${wrong},${TEST_KEY}`]) {
      const ok = await runCli(['check'], copied, { FPA_TEMPLATE_ENCRYPTION_KEYS: keys });
      expect({ keys, code: ok.code, e024: ok.out.includes('fpa.E024') }).toEqual({ keys, code: 0, e024: false });
    }
    const right = new ChildServer(dirname(copied), serverEnv(dirname(copied)));
    await right.start();
    expect(await right.stop()).toBe(0);
  }, 120_000);
});
