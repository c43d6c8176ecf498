import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { createFingerprintAttendance } from '../../src/app/create';
import { ConfigurationError } from '../../src/platform/config/check';
import { openDatabase } from '../../src/platform/db/client';
import { DatabaseLockedError, lockPathFor, readLock } from '../../src/platform/db/lock';
import { silentLogger } from '../../src/platform/log';
import { adminToken, startTestServer, tempDir, testSettings } from '../support/harness';

const dirs: { cleanup(): void }[] = [];
afterAll(() => {
  for (const d of dirs) d.cleanup();
});
function dir() {
  const d = tempDir();
  dirs.push(d);
  return d.dir;
}

describe('migrations', () => {
  test('journal timestamps only increase (drizzle skips older ones: drizzle-orm#5316)', () => {
    const journal = JSON.parse(readFileSync(new URL('../../migrations/meta/_journal.json', import.meta.url), 'utf8')) as {
      entries: { idx: number; when: number; tag: string }[];
    };
    expect(journal.entries.length).toBeGreaterThan(0);
    for (let i = 1; i < journal.entries.length; i++) {
      expect(journal.entries[i]!.when).toBeGreaterThan(journal.entries[i - 1]!.when);
      expect(journal.entries[i]!.idx).toBe(journal.entries[i - 1]!.idx + 1);
    }
  });

  test('start-up migrates a new database and a restart finds it current', async () => {
    const d = dir();
    const first = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false });
    await first.close();
    const again = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false });
    const tables = await again.db.client.execute("select count(*) as n from sqlite_master where type = 'table' and name like 'fpa_%'");
    expect(Number(tables.rows[0]!.n)).toBeGreaterThan(15);
    // Written by hand where drizzle has no word for it (migration 0010): the days are stored by
    // person, so that the retention purge, person by person, empties each page once.
    const days = await again.db.client.execute("select sql from sqlite_master where type = 'table' and name = 'fpa_attendance_days'");
    expect(String(days.rows[0]!.sql)).toMatch(/\) WITHOUT ROWID$/);
    await again.close();
  });
});

describe("the writer's connection", () => {
  test("reads never run with the writer's large page cache, whatever connection they get", async () => {
    const db = await openDatabase({ url: `file:${join(dir(), 'cache.db')}`, backgroundCheckpoint: false });
    try {
      const cacheSize = async (run: (sql: string) => Promise<{ rows: ArrayLike<Record<string, unknown>> }>) =>
        Number((await run('PRAGMA cache_size')).rows[0]!.cache_size);
      const defaultSize = await cacheSize((sql) => db.client.execute(sql));
      const inWrite = await db.write((w) => cacheSize((sql) => w.execute(sql)));
      expect(inWrite).toBe(-32_768);
      // Reads one after another (the pool lends its last connection again) and side by side.
      expect(await cacheSize((sql) => db.client.execute(sql))).toBe(defaultSize);
      const sideBySide = await Promise.all(Array.from({ length: 4 }, () => cacheSize((sql) => db.client.execute(sql))));
      expect(sideBySide).toEqual([defaultSize, defaultSize, defaultSize, defaultSize]);
      expect(defaultSize).not.toBe(-32_768);
      // What a write stored is read at once on the other connections.
      await db.write((w) => w.execute('create table t (x integer)').then(() => w.execute('insert into t values (7)')));
      expect(Number((await db.client.execute('select x from t')).rows[0]!.x)).toBe(7);
    } finally {
      await db.close();
    }
  });
});

describe('the single-writer rule of a file: database', () => {
  test('a second instance on the same file refuses to start with a clear message', async () => {
    const d = dir();
    const first = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false });
    const error = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseLockedError);
    expect((error as Error).message).toContain('exactly one writer');
    // Who holds it (its pid) but never its operator token: a host logging the error (Bun prints
    // an uncaught one with its properties) would ship the token of the running server.
    expect((error as DatabaseLockedError).holder?.pid).toBe(process.pid);
    const token = first.lock!.info.token;
    for (const shown of [Bun.inspect(error), JSON.stringify(error), String(error), (error as Error).stack ?? '']) expect(shown).not.toContain(token);
    await first.close();
    // Released on close: a new instance may start.
    const third = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false });
    await third.close();
  });

  test('a lock left by a dead process is taken over', async () => {
    const d = dir();
    const file = join(d, 'fpa.db');
    writeFileSync(lockPathFor(file), JSON.stringify({ pid: 2 ** 22 + 12345, apiUrl: '', token: 'stale', startedAt: '' }));
    const fpa = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false });
    expect(readLock(lockPathFor(file))?.pid).toBe(process.pid);
    await fpa.close();
  });

  test('a lock naming a live process that does not hold the database (a reused pid, PID 1 in a container) is taken over', async () => {
    const d = dir();
    const file = join(d, 'fpa.db');
    // The process id is alive (it is this very process), but no process holds the OS lock.
    writeFileSync(lockPathFor(file), JSON.stringify({ pid: process.pid, apiUrl: 'http://127.0.0.1:1/', token: 'old', startedAt: '' }));
    const fpa = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false });
    expect(readLock(lockPathFor(file))?.token).not.toBe('old');
    await fpa.close();
  });

  test('the lock file names the running server and is readable by the owner only', async () => {
    const server = await startTestServer();
    try {
      const path = lockPathFor(join(server.dir, 'fpa.db'));
      const info = readLock(path)!;
      expect(info.apiUrl).toBe(`${server.url}/api/fingerprint/v1/`);
      const { statSync } = await import('node:fs');
      expect(statSync(path).mode & 0o077).toBe(0);
      // The operator token runs jobs, and nothing else.
      const run = await fetch(`${info.apiUrl}jobs/check-devices/run/`, { method: 'POST', headers: { 'x-fpa-operator-token': info.token } });
      expect(run.status).toBe(200);
      const devices = await fetch(`${info.apiUrl}devices/`, { headers: { 'x-fpa-operator-token': info.token } });
      expect(devices.status).toBe(401);
      // Listing the jobs is for administrators, as the OpenAPI document says.
      const jobs = await fetch(`${info.apiUrl}jobs/`, { headers: { 'x-fpa-operator-token': info.token } });
      expect(jobs.status).toBe(401);
      await Promise.all([devices.text(), jobs.text()]);
      const wrong = await fetch(`${info.apiUrl}jobs/check-devices/run/`, { method: 'POST', headers: { 'x-fpa-operator-token': 'guess' } });
      expect(wrong.status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe('configuration at start-up', () => {
  test('start refuses on errors and reports them all', async () => {
    const d = dir();
    const error = await createFingerprintAttendance({
      settings: { ...testSettings(d), TEMPLATE_ENCRYPTION_KEYS: [], ADMS_URL_PREFIX: 'x' },
      env: {},
      logger: silentLogger,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).issues.map((i) => i.code)).toEqual(expect.arrayContaining(['fpa.E001', 'fpa.E003']));
  });

  test('the employee model is recorded at the first migration; a later change is fpa.E010', async () => {
    const d = dir();
    const first = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false });
    await first.close();
    const hostDirectory = { model: 'hr.Person', find: async () => null };
    const error = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, employees: hostDirectory }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).issues.map((i) => i.code)).toContain('fpa.E010');
  });
});

describe('embedding in a host Elysia app', () => {
  test('the plugin works beside the host routes and leaves the host behaviour unchanged', async () => {
    const d = dir();
    const fpa = await createFingerprintAttendance({ settings: testSettings(d), env: {}, logger: silentLogger, startJobs: false });
    const host = new Elysia()
      .onError(({ code }) => (code === 'NOT_FOUND' ? new Response('host 404', { status: 404 }) : undefined))
      .get('/host/hello', () => 'hello from the host')
      .post('/host/echo', ({ body }) => body)
      .use(fpa.plugin)
      .listen({ port: 0, hostname: '127.0.0.1' });
    const base = `http://127.0.0.1:${host.server!.port}`;
    try {
      expect(await (await fetch(`${base}/host/hello`)).text()).toBe('hello from the host');
      const echo = await fetch(`${base}/host/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect(await echo.json()).toEqual({ a: 1 });
      // The host's own 404 handling is untouched by the plugin.
      const missing = await fetch(`${base}/host/nothing`);
      expect(missing.status).toBe(404);
      expect(await missing.text()).toBe('host 404');
      const token = await adminToken();
      const created = await fetch(`${base}/api/fingerprint/v1/employees/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'E-9', name: 'Host User' }),
      });
      expect(created.status).toBe(201);
      // The plugin's error body applies to its own routes only.
      const anonymous = await fetch(`${base}/api/fingerprint/v1/employees/`);
      expect(anonymous.status).toBe(401);
      expect((await anonymous.json()).error.code).toBe('unauthorized');
      // The in-process API and events work beside HTTP.
      const seen: string[] = [];
      fpa.events.on('enrollee_created', (e) => void seen.push(e.enrollee.employee));
      const enrollee = await fpa.service.createEnrollee('E-9', { by: 'host' });
      expect(enrollee.devicePin).toMatch(/^\d{1,9}$/);
      expect(seen).toEqual(['E-9']);
    } finally {
      host.stop();
      await fpa.close();
    }
  });

  test('a host may authorize administrators itself', async () => {
    const d = dir();
    const fpa = await createFingerprintAttendance({
      settings: { ...testSettings(d), ADMIN_JWT_SECRET: '' },
      env: {},
      logger: silentLogger,
      startJobs: false,
      authorizeAdmin: (request) => (request.headers.get('x-host-user') === 'root' ? { by: 'root' } : null),
    });
    const app = new Elysia().use(fpa.plugin);
    try {
      const ok = await app.handle(new Request('http://localhost/api/fingerprint/v1/devices/', { headers: { 'x-host-user': 'root' } }));
      expect(ok.status).toBe(200);
      const no = await app.handle(new Request('http://localhost/api/fingerprint/v1/devices/'));
      expect(no.status).toBe(401);
    } finally {
      await fpa.close();
    }
  });
});
