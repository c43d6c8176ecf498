/**
 * The single-writer guard of a local `file:` database (docs/design.md): a second server on the same
 * file refuses to start; operator scripts run while the server is busy hand their work to it;
 * and a write that fails — a failing statement, or the database locked by someone else past the
 * busy timeout — is never answered `OK`: the terminal keeps the lines, and its resend after the
 * failure is stored exactly once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Client, createClient } from '@libsql/client';
import { readLock } from '../../src/platform/db/lock';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { ChildServer, runBun, serverEnv } from '../support/crash-server';
import { ApiClient, adminToken, startTestServer, type TestServer, tempDir } from '../support/harness';

const API = '/api/fingerprint/v1';

/** A raw connection to the same file, as another process would hold it (busy timeout in ms). */
function rawClient(file: string, busyTimeoutMs = 5000): Client {
  return createClient({ url: `file:${file}`, concurrency: 1, intMode: 'number', timeout: busyTimeoutMs });
}

async function storedLines(db: Client, serial: string): Promise<string[]> {
  const rs = await db.execute({ sql: 'SELECT device_pin, local_time FROM fpa_punches WHERE device_serial = ? ORDER BY sequence', args: [serial] });
  return rs.rows.map((r) => `${String(r.device_pin)} ${String(r.local_time)}`);
}

describe('a second server and the operator scripts (child processes)', () => {
  const work = tempDir('fpa-writer-');
  const env = serverEnv(work.dir);
  const dbFile = join(work.dir, 'fpa.db');
  let server: ChildServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = new ChildServer(work.dir, env);
    await server.start();
    admin = new ApiClient(`${server.url}${API}`, { authorization: `Bearer ${await adminToken()}` });
  });
  afterAll(async () => {
    await server.kill();
    work.cleanup();
  });

  test('a second server on the same database file refuses to start and leaves the first alone', async () => {
    const before = readLock(`${dbFile}.lock`);
    expect(before?.pid).toBe(server.pid!);
    const second = await runBun(['src/server.ts'], { ...env, PORT: String(server.port + 1) });
    expect(second.code).not.toBe(0);
    expect(second.err).toContain(`fpa: refusing to start: the database is in use by another Fingerprint Attendance process (pid ${server.pid}`);
    expect(second.err).toContain('a local file: database has exactly one writer');
    expect(second.out).not.toContain('listening');
    // The lock still names the first server, with the same token, and it still serves.
    expect(readLock(`${dbFile}.lock`)).toEqual(before);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 30_000);

  test('scripts run while terminals push hand their work to the server and succeed', async () => {
    const terminals = ['BUSY01', 'BUSY02'].map((sn) => new SimulatedTerminal({ url: server.url, sn }));
    for (const t of terminals) {
      await t.handshake();
      await t.postOptions();
      expect((await admin.post(`/devices/${t.sn}/approve/`)).status).toBe(200);
    }
    let pushing = true;
    let sent = 0;
    const answers: string[] = [];
    const pushes = terminals.map(async (t, i) => {
      for (let n = 0; pushing || n < 5; n++) {
        const at = new Date(Date.UTC(2026, 0, 5, 8 + i, 0, 0) + n * 60_000);
        const res = await t.punch([{ pin: String(100 + (n % 3)), at }]);
        answers.push(res.body);
        sent++;
      }
    });
    const [devices, absences] = await Promise.all([
      runBun(['src/cli.ts', 'check-devices'], env),
      runBun(['src/cli.ts', 'generate-absences', '--date', '2026-01-05'], env),
    ]);
    const answeredDuringScripts = answers.length;
    pushing = false;
    await Promise.all(pushes);

    expect(devices.err).toBe('');
    expect(devices.code).toBe(0);
    expect(devices.out).toStartWith('check-devices succeeded');
    expect(devices.out).toEndWith('(run by the running server)');
    expect(absences.err).toBe('');
    expect(absences.code).toBe(0);
    expect(absences.out).toStartWith('generate-absences succeeded: from=2026-01-05 to=2026-01-05');
    expect(absences.out).toEndWith('(run by the running server)');
    // Ingestion went on meanwhile: every upload was answered OK:1 and stored.
    expect(answeredDuringScripts).toBeGreaterThan(10);
    expect(answers.every((a) => a === 'OK:1')).toBe(true);
    expect(terminals.every((t) => t.pendingPunches === 0)).toBe(true);
    const latest = await admin.get(`/punches/latest/?after=0&limit=1000`);
    expect(latest.body.results.length).toBe(sent);
    // The server ran both jobs itself.
    const jobs = await admin.get('/jobs/');
    for (const name of ['check-devices', 'generate-absences']) {
      expect(jobs.body.results.find((j: { name: string }) => j.name === name)).toMatchObject({ last_status: 'succeeded' });
    }
  }, 60_000);

  test('after a kill -9 the stale lock is taken over: a job lease of the dead server is freed, a script runs on the file itself, then a server starts', async () => {
    const victim = server.pid!;
    await server.kill();
    expect(readLock(`${dbFile}.lock`)?.pid).toBe(victim);
    // Killed mid-run: the job's lease still names the dead server for minutes (as a kill leaves it).
    const raw = rawClient(dbFile);
    await raw.execute({
      sql: `insert into fpa_job_leases (name, holder, lease_until, last_started_at) values ('check-devices', ?, ?, ?)
        on conflict (name) do update set holder = excluded.holder, lease_until = excluded.lease_until`,
      args: [`${victim}-dead`, Date.now() + 5 * 60_000, Date.now()],
    });
    raw.close();
    const run = await runBun(['src/cli.ts', 'check-devices'], env);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toStartWith('check-devices succeeded');
    expect(run.out).not.toContain('(run by the running server)');
    // The script took the lock over and released it when done.
    expect(readLock(`${dbFile}.lock`)).toBeNull();
    await server.start();
    expect(readLock(`${dbFile}.lock`)?.pid).toBe(server.pid!);
    expect((await admin.get('/devices/BUSY01/')).body).toMatchObject({ serial_number: 'BUSY01', status: 'approved' });
    const jobs = (await admin.get('/jobs/')).body.results as { name: string; running: boolean; last_status: string | null }[];
    expect(jobs.find((j) => j.name === 'check-devices')).toMatchObject({ running: false, last_status: 'succeeded' });
  }, 30_000);
});

describe('a write that fails is never answered OK (in-process server)', () => {
  const SN = 'FAILW01';
  let server: TestServer;
  let raw: Client;
  let terminal: SimulatedTerminal;
  const emitted: string[] = [];
  let dbFile: string;

  beforeAll(async () => {
    server = await startTestServer({ WEBHOOK_WORKER: false, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true });
    dbFile = server.fpa.db.filePath!;
    raw = rawClient(dbFile);
    server.fpa.events.on('punch_received', (e) => void emitted.push(`${e.punch.device_pin} ${e.punch.local_time}`));
    expect((await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/hook' })).status).toBe(201);
    terminal = new SimulatedTerminal({ url: server.url, sn: SN });
    await terminal.handshake();
    await terminal.postOptions();
    expect((await server.admin.post(`/devices/${SN}/approve/`)).status).toBe(200);
    expect((await terminal.punch([{ pin: '1', localTime: '2026-01-05 08:00:00' }])).body).toBe('OK:1');
  });
  afterAll(async () => {
    raw.close();
    await server.close();
  });

  test('a statement that fails rolls back the whole batch and answers 5xx; the resend is stored once', async () => {
    await raw.execute(
      "CREATE TRIGGER test_refuse_pin_666 BEFORE INSERT ON fpa_punches WHEN NEW.device_pin = '666' BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
    );
    emitted.length = 0;
    try {
      const res = await terminal.punch([
        { pin: '2', localTime: '2026-01-05 08:01:00' },
        { pin: '666', localTime: '2026-01-05 08:02:00' },
      ]);
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(res.body).not.toStartWith('OK');
      expect(terminal.pendingPunches).toBe(2);
      // Nothing of the batch was kept: not the good line, no event (webhooks follow the events).
      expect(await storedLines(raw, SN)).toEqual(['1 2026-01-05 08:00:00']);
      const events = await raw.execute("SELECT count(*) AS n FROM fpa_events WHERE type = 'punch_received'");
      expect(Number(events.rows[0]!.n)).toBe(1);
      expect(emitted).toEqual([]);
    } finally {
      await raw.execute('DROP TRIGGER IF EXISTS test_refuse_pin_666');
    }
    const again = await terminal.flushPunches();
    expect(again.body).toBe('OK:2');
    // A resend of the same lines (its OK lost) is acknowledged and changes nothing.
    expect((await terminal.sendAttlog('2\t2026-01-05 08:01:00\t0\t1\t0\t0\t0\n666\t2026-01-05 08:02:00\t0\t1\t0\t0\t0\n')).body).toBe('OK:2');
    expect(await storedLines(raw, SN)).toEqual(['1 2026-01-05 08:00:00', '2 2026-01-05 08:01:00', '666 2026-01-05 08:02:00']);
    const events = await raw.execute("SELECT count(*) AS n FROM fpa_events WHERE type = 'punch_received'");
    expect(Number(events.rows[0]!.n)).toBe(3);
    expect(emitted).toEqual(['2 2026-01-05 08:01:00', '666 2026-01-05 08:02:00']);
  }, 30_000);

  test('a database locked by another connection past the busy timeout answers 5xx; after release the resend is stored once', async () => {
    // Another connection takes the write lock (BEGIN IMMEDIATE) and keeps it longer than the
    // server's 5 s busy timeout.
    const holder = await raw.transaction('write');
    let res: { status: number; body: string };
    try {
      res = await terminal.punch([{ pin: '3', localTime: '2026-01-05 08:03:00' }]);
    } finally {
      await holder.rollback();
    }
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(res.body).not.toStartWith('OK');
    expect(terminal.pendingPunches).toBe(1);

    // The very next write succeeds: the SQLITE_BUSY did not leave a half-failed statement on a
    // pooled connection to break the next COMMIT (libsql-client-ts#352).
    const again = await terminal.punch([{ pin: '4', localTime: '2026-01-05 08:04:00' }]);
    expect(again.body).toBe('OK:2');
    expect(terminal.pendingPunches).toBe(0);
    // Committed for real: a fresh connection (another process's view) sees the rows on disk…
    const fresh = rawClient(dbFile, 50);
    try {
      expect((await storedLines(fresh, SN)).slice(-2)).toEqual(['3 2026-01-05 08:03:00', '4 2026-01-05 08:04:00']);
      // …and the server's connection holds no abandoned transaction: the write lock is free.
      const probe = await fresh.transaction('write');
      await probe.rollback();
    } finally {
      fresh.close();
    }
    // The writer keeps working after the failure.
    expect((await terminal.punch([{ pin: '5', localTime: '2026-01-05 08:05:00' }])).body).toBe('OK:1');
    expect((await storedLines(raw, SN)).length).toBe(6);
    const polled = await server.admin.get('/punches/latest/?after=0&limit=100');
    expect(polled.body.results.map((p: { device_pin: string }) => p.device_pin)).toEqual(['1', '2', '666', '3', '4', '5']);
  }, 30_000);
});
