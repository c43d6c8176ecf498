/**
 * `npm run fpa:backup -- <directory>` while the server runs and a terminal pushes (README
 * "Backups and restores"): the copy is one committed state (its punches a gapless prefix of what
 * was acknowledged), 0600, and `fpa:restore` takes it once the server is stopped. It refuses to
 * overwrite a backup or to write into a file, and says which database is not there and why,
 * leaving nothing behind.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { ChildServer, runBun, serverEnv } from '../support/crash-server';
import { ApiClient, adminToken, tempDir } from '../support/harness';

const SN = 'BACKUP01';
const work = tempDir('fpa-online-backup-');
const data = join(work.dir, 'data');
const env = serverEnv(work.dir, { FPA_DATABASE_URL: `file:${join(data, 'fpa.db')}`, FPA_ADMS_AUTO_APPROVE: 'true' });
const server = new ChildServer(work.dir, env);
let admin: ApiClient;
let terminal: SimulatedTerminal;
let minute = 0;

const backup = (...args: string[]) => runBun(['src/cli.ts', 'backup', ...args], env, 60_000);
const restore = (...args: string[]) => runBun(['src/cli.ts', 'restore', ...args], env, 60_000);

async function punch(count: number): Promise<void> {
  const records = Array.from({ length: count }, () => ({ pin: '7', at: new Date(Date.UTC(2026, 2, 2, 8, minute++)) }));
  expect((await terminal.punch(records)).status).toBe(200);
}

beforeAll(async () => {
  await server.start();
  admin = new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${await adminToken()}` });
  terminal = new SimulatedTerminal({ url: server.url, sn: SN });
  await terminal.handshake();
  await punch(20);
}, 60_000);

afterAll(async () => {
  await server.stop();
  work.cleanup();
});

describe('fpa:backup while the server runs', () => {
  const target = join(work.dir, 'data.bak-live');

  test('a consistent copy taken while a terminal pushes, 0600, checked', async () => {
    let pushing = true;
    const pushes = (async () => {
      while (pushing) await punch(5);
    })();
    const run = await backup(target);
    pushing = false;
    await pushes;
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(run.out).toContain(`copied to ${join(target, 'fpa.db')}`);
    expect(run.out).toContain('keep the .env');
    expect(readdirSync(target)).toEqual(['fpa.db']);
    expect(statSync(join(target, 'fpa.db')).mode & 0o777).toBe(0o600);
    const copy = new Database(join(target, 'fpa.db'), { readonly: true });
    const sequences = copy
      .query('select sequence from fpa_punches order by sequence')
      .values()
      .map(([s]) => Number(s));
    copy.close();
    // One committed state: the punches acknowledged up to some moment, none missing between.
    expect(sequences.length).toBeGreaterThanOrEqual(20);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
  }, 90_000);

  test('it never overwrites a backup, nor writes into a file', async () => {
    const again = await backup(target);
    expect({ code: again.code, says: again.err.includes('exists already') }).toEqual({ code: 1, says: true });
    const file = join(work.dir, 'a-file');
    writeFileSync(file, 'x');
    const intoFile = await backup(file);
    expect({ code: intoFile.code, says: intoFile.err.includes('is a file') }).toEqual({ code: 1, says: true });
    expect((await backup()).code).toBe(2);
  }, 60_000);

  test('a database that is not there is said in words (which, and why), and nothing is left behind', async () => {
    const at = (url: string) => ({ ...env, FPA_DATABASE_URL: `file:${url}` });
    const nowhere = join(work.dir, 'no-data', 'fpa.db');
    const emptyDir = join(work.dir, 'empty-data');
    mkdirSync(emptyDir);
    const cases: [string, string][] = [
      // A checkout with no data/: it was `fpa:backup failed: ConnectionFailed("Unable to open connection to local database …: 14")`, and a 0-byte .partial.
      [nowhere, `the directory ${dirname(nowhere)} does not exist (is FPA_DATABASE_URL right, and is this the directory the server runs in?)`],
      // Its directory there, the file not: SQLite would have made an empty database, and backed that up.
      [
        join(emptyDir, 'fpa.db'),
        `there is no database file ${join(emptyDir, 'fpa.db')} (is FPA_DATABASE_URL right, and is this the directory the server runs in? The server makes it at its first start)`,
      ],
    ];
    for (const [file, why] of cases) {
      const into = join(work.dir, 'x', 'backup-x');
      const run = await runBun(['src/cli.ts', 'backup', into], at(file), 60_000);
      expect({ code: run.code, err: run.err }).toEqual({ code: 1, err: `fpa:backup: cannot open the database file:${file}: ${why}` });
      expect(existsSync(join(work.dir, 'x'))).toBe(false);
      expect(existsSync(file)).toBe(false);
    }
    // A file that is not a database: the copy fails, and its .partial goes with it.
    writeFileSync(join(emptyDir, 'fpa.db'), 'not a database');
    const into = join(work.dir, 'y');
    const broken = await runBun(['src/cli.ts', 'backup', into], at(join(emptyDir, 'fpa.db')), 60_000);
    expect(broken.code).toBe(1);
    expect(readdirSync(into)).toEqual([]);
  }, 60_000);

  test('fpa:restore takes it once the server is stopped', async () => {
    const inBackup = (() => {
      const copy = new Database(join(target, 'fpa.db'), { readonly: true });
      const [[count]] = copy.query('select count(*) from fpa_punches').values() as [[number]];
      copy.close();
      return Number(count);
    })();
    expect(await server.stop()).toBe(0);
    const run = await restore(target);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    await server.start();
    // Every page (the copy holds however many the terminal pushed while it was taken: past 1,000
    // on a busy machine, one page's most).
    const restored: unknown[] = [];
    for (let after = 0; ; ) {
      const page = await admin.get<{ results: unknown[]; last_sequence: number }>(`/punches/latest/?after=${after}&limit=1000`);
      if (page.body.results.length === 0) break;
      restored.push(...page.body.results);
      after = page.body.last_sequence;
    }
    expect(restored).toHaveLength(inBackup);
    expect(existsSync(join(data, 'fpa.db'))).toBe(true);
  }, 90_000);
});
