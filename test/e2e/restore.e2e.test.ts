/**
 * The README's rollback through real processes and files (README "Upgrade", "Backups"): a server
 * on `data/fpa.db`, punches from a terminal, a backup of `data/` taken while it is stopped, more
 * punches and commands a poller sees, then `npm run fpa:restore -- <backup>` with the server
 * stopped. After it the next punch, event and command numbers and device PINs follow the highest
 * ever handed out (never those a poller or a terminal already saw), and the replaced database is
 * kept beside.
 * A copy put back by hand instead (no counters carried) makes the feeds refuse a cursor from the
 * lost future with 409 `cursor_ahead` rather than answer it silently.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { ChildServer, runBun, serverEnv } from '../support/crash-server';
import { ApiClient, adminToken, startTestServer, tempDir } from '../support/harness';
import { openSocket } from '../support/sockets';

const API = '/api/fingerprint/v1';
const DAY = 86_400_000;
const SN = 'RESTORE01';
const work = tempDir('fpa-restore-');
const data = join(work.dir, 'data');
const backup = join(work.dir, 'data.bak');
const env = serverEnv(work.dir, { FPA_DATABASE_URL: `file:${join(data, 'fpa.db')}`, FPA_ADMS_AUTO_APPROVE: 'true' });
const server = new ChildServer(work.dir, env);
let admin: ApiClient;
let terminal: SimulatedTerminal;
let minute = 0;

/** `count` punches of PIN 7, each a minute after the last, uploaded by the terminal. */
async function punch(count: number): Promise<void> {
  const records = Array.from({ length: count }, () => ({ pin: '7', at: new Date(Date.UTC(2026, 2, 2, 8, minute++)) }));
  expect((await terminal.punch(records)).status).toBe(200);
}

async function latest(after: number) {
  return admin.get<{ results: { sequence: number }[]; last_sequence: number }>(`/punches/latest/?after=${after}&limit=1000`);
}

async function eventHead(): Promise<number> {
  let after = 0;
  for (;;) {
    const page = await admin.get<{ results: unknown[]; last_sequence: number }>(`/events/?after=${after}&limit=1000`);
    if (page.body.results.length === 0) return page.body.last_sequence;
    after = page.body.last_sequence;
  }
}

/** A new person's device PIN (handed out by the service, held by terminals). */
async function newPin(id: string): Promise<number> {
  expect((await admin.post('/employees/', { id, name: id })).status).toBe(201);
  const enrollee = await admin.post<{ device_pin: string }>('/enrollees/', { employee: id });
  expect(enrollee.status).toBe(201);
  return Number(enrollee.body.device_pin);
}

async function queueCommand(): Promise<number> {
  const queued = await admin.post<{ id: number }>(`/devices/${SN}/commands/`, { kind: 'info' });
  expect(queued.status).toBe(201);
  return queued.body.id;
}

const restore = (...args: string[]) => runBun(['src/cli.ts', 'restore', ...args], env, 60_000);

beforeAll(async () => {
  await server.start();
  admin = new ApiClient(`${server.url}${API}`, { authorization: `Bearer ${await adminToken()}` });
  terminal = new SimulatedTerminal({ url: server.url, sn: SN });
  await terminal.handshake();
}, 60_000);

afterAll(async () => {
  await server.stop();
  work.cleanup();
});

describe('npm run fpa:restore after the README backup', () => {
  let seen = 0;
  let eventsSeen = 0;
  let commandSeen = 0;
  let pinSeen = 0;

  test('punches and commands after the backup are seen by a poller', async () => {
    await punch(3);
    await queueCommand();
    await newPin('E-BEFORE');
    expect(await server.stop()).toBe(0);
    // README "Upgrade" step 1: the server stopped, `cp -a data data.bak-…`.
    cpSync(data, backup, { recursive: true, preserveTimestamps: true });
    await server.start();
    await punch(4);
    commandSeen = await queueCommand();
    pinSeen = await newPin('E-AFTER');
    const polled = await latest(0);
    expect(polled.body.results.map((p) => p.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    seen = polled.body.last_sequence;
    eventsSeen = await eventHead();
    expect(eventsSeen).toBeGreaterThan(seen);
  }, 60_000);

  test('refused while the server holds the database', async () => {
    const run = await restore(backup);
    expect(run.code).toBe(1);
    expect(run.err).toContain('in use by another Fingerprint Attendance process');
    expect(run.err).toContain('Stop the server before restoring');
  }, 30_000);

  test('with the server stopped it restores the backup, keeps the replaced database, and numbers go on after the highest', async () => {
    expect(await server.stop()).toBe(0);
    const run = await restore(backup);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(run.out).toContain(`fpa_punches ${seen}`);
    const kept = readdirSync(data).filter((name) => name.startsWith('fpa.db.replaced-'));
    expect(kept).toHaveLength(1);
    // It says when the replaced database goes (it was once kept for ever): RESTORE_KEEP_REPLACED after the restore.
    const stamp = /replaced-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})Z$/.exec(kept[0]!)!;
    const until = new Date(Date.parse(`${stamp[1]}T${stamp[2]}:${stamp[3]}:${stamp[4]}Z`) + 7 * DAY).toISOString().replace('.000Z', 'Z');
    expect(run.out).toEndWith(
      `; the replaced database is kept as ${join(data, kept[0]!)} until ${until} (RESTORE_KEEP_REPLACED 7d): the server deletes it at its first start or retention purge after that, for the deletions and consent withdrawals after the restore never reach it`,
    );
    expect(statSync(join(data, kept[0]!)).mode & 0o777).toBe(0o600);
    // The replaced database is whole: every punch it had.
    const old = new Database(join(data, kept[0]!));
    expect(old.query('select count(*) from fpa_punches').values()).toEqual([[7]]);
    old.close();
    expect(existsSync(join(data, 'fpa.db-wal')) && statSync(join(data, 'fpa.db-wal')).size > 0).toBe(false);

    await server.start();
    // The backup's punches only; a poller at its last sequence waits, not refused.
    expect((await latest(0)).body.results.map((p) => p.sequence)).toEqual([1, 2, 3]);
    expect((await latest(seen)).body).toEqual({ results: [], last_sequence: seen });
    await punch(2);
    const fresh = await latest(seen);
    expect(fresh.body.results.map((p) => p.sequence)).toEqual([seen + 1, seen + 2]);
    const events = await admin.get<{ results: { sequence: number }[] }>(`/events/?after=${eventsSeen}&limit=1000`);
    expect(events.body.results.length).toBeGreaterThan(0);
    expect(await queueCommand()).toBeGreaterThan(commandSeen);
    // E-AFTER is not in the backup, but terminals may hold its PIN: a new person never gets it.
    expect(await newPin('E-AFTER')).toBeGreaterThan(pinSeen);
  }, 90_000);

  test('the replaced database is kept through the starts of the next days, and deleted by the server once RESTORE_KEEP_REPLACED (7d) has passed', async () => {
    // The server started above, just after the restore, kept it.
    const kept = () => readdirSync(data).filter((name) => name.startsWith('fpa.db.replaced-'));
    expect(kept()).toHaveLength(1);
    expect(await server.stop()).toBe(0);
    const sixDaysOn = await startTestServer({}, { dir: data, clock: { now: () => Date.now() + 6 * DAY } });
    await sixDaysOn.close();
    expect(kept()).toHaveLength(1);
    // Deletions and withdrawals after the restore never reach it: a week after the restore, the start deletes it.
    const weekOn = await startTestServer({}, { dir: data, clock: { now: () => Date.now() + 7 * DAY + 60_000 } });
    await weekOn.close();
    expect(kept()).toEqual([]);
    await server.start();
  }, 60_000);
});

// A restore killed before it put the backup in place left `fpa.db.restoring`: everyone as of the
// backup, templates sealed, beyond every deletion and withdrawal since; only another restore
// removed it.
describe('a restore that did not finish', () => {
  test('its staged copy is deleted at the next start', async () => {
    expect(await server.stop()).toBe(0);
    const staged = join(data, 'fpa.db.restoring');
    copyFileSync(join(data, 'fpa.db'), staged);
    writeFileSync(`${staged}-journal`, '');
    const restarted = await startTestServer({}, { dir: data });
    await restarted.close();
    expect(readdirSync(data).filter((name) => name.startsWith('fpa.db.restoring'))).toEqual([]);
    await server.start();
  }, 60_000);
});

describe('what fpa:restore refuses', () => {
  test('a path that is not a backup, in words, and nothing changes', async () => {
    await server.stop();
    const before = readdirSync(data).sort();
    const dir = join(work.dir, 'refusals');
    mkdirSync(join(dir, 'empty'), { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'not a database\n');
    const foreign = new Database(join(dir, 'other.db'));
    foreign.run('create table t (id integer primary key autoincrement)');
    foreign.close();
    const cases: Array<[string[], string]> = [
      [[], 'give one backup'],
      [[join(dir, 'missing')], 'does not exist'],
      [[join(dir, 'empty')], 'has no fpa.db'],
      [[dir], 'SQLite files there: other.db'],
      [[join(dir, 'notes.txt')], 'is not a SQLite database'],
      [[join(dir, 'other.db')], 'is not a Fingerprint Attendance database'],
      [[join(data, 'fpa.db')], 'is the database itself'],
    ];
    for (const [args, message] of cases) {
      const run = await restore(...args);
      expect({ args, code: run.code > 0, err: run.err.includes(message) ? message : run.err }).toEqual({ args, code: true, err: message });
    }
    expect(readdirSync(data).sort()).toEqual(before);
    rmSync(dir, { recursive: true });
    await server.start();
  }, 60_000);
});

describe('a copy put back by hand (no counters carried forward)', () => {
  test('a poll beyond the head is refused with the head, on punches and events; the stream closes with 4409', async () => {
    const before = await latest(0);
    const head = before.body.last_sequence;
    await punch(1);
    await server.stop();
    // Disk lost: the README copy of data/ is put back as it is.
    for (const name of readdirSync(data)) rmSync(join(data, name));
    for (const name of readdirSync(backup)) copyFileSync(join(backup, name), join(data, name));
    await server.start();
    const refused = await admin.get(`/punches/latest/?after=${head + 1}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('cursor_ahead');
    expect(refused.body.error.details).toEqual({ after: head + 1, last_sequence: 3 });
    const events = await admin.get(`/events/?after=999999`);
    expect(events.status).toBe(409);
    expect(events.body.error.code).toBe('cursor_ahead');
    const socket = await openSocket(`${server.url.replace('http', 'ws')}${API}/punches/stream/?after=${head + 1}`, {
      authorization: `Bearer ${await adminToken()}`,
    });
    for (let i = 0; i < 100 && !socket.closed(); i++) await Bun.sleep(20);
    const closed = socket.closed();
    expect(closed).toEqual({ code: 4409, reason: 'cursor_ahead last_sequence=3' });
  }, 60_000);
});
