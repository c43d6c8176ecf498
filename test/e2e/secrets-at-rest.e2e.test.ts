/**
 * Secrets at rest (issue 23), through the real server on a real libSQL file:
 * - the directory the service creates is 0700; the database, its -wal and -shm and the lock
 *   files are 0600, including after writes (SQLite's -wal/-shm follow the database's mode);
 *   an earlier release's 0644 files in its own 0755 directory are tightened, a shared
 *   directory is left as it is and reported;
 * - webhook signing secrets are never in the database's bytes (file and WAL) in clear, and
 *   deliveries still verify with standardwebhooks; a clear secret of an earlier release is
 *   sealed at start-up (and its bytes gone from the file and the WAL), and `rotate-keys`
 *   re-seals secrets under a new first key;
 * - the one-server lock follows the file: a second server reaching the database through a
 *   symlink, a symlinked directory or a path with `..` refuses with the same error.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { Webhook } from 'standardwebhooks';
import { createFingerprintAttendance } from '../../src/app/create';
import { generateWebhookSecret } from '../../src/modules/webhooks/signing';
import { generateEncryptionKey, TemplateKeyRing } from '../../src/platform/crypto/template-cipher';
import { DatabaseLockedError } from '../../src/platform/db/lock';
import type { Logger } from '../../src/platform/log';
import { ChildServer, runBun, serverEnv } from '../support/crash-server';
import { startTestServer, TEST_KEY, type TestServer, tempDir, testSettings } from '../support/harness';
import { approvedDevice, postAttlog, punchLines } from '../support/punch-feed';
import { receiver, waitFor } from '../support/webhook-receiver';

const HOOKS = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_TIMEOUT: 2_000 };
const mode = (path: string) => statSync(path).mode & 0o777;
const DATA_FILES = ['fpa.db', 'fpa.db-wal', 'fpa.db-shm', 'fpa.db.lock', 'fpa.db.writer'];

/** A logger keeping its warnings (the harness's is silent). */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const none = () => undefined;
  return { warnings, debug: none, info: none, error: none, warn: (message) => warnings.push(message) };
}

/** The database's bytes as they are on disk: the file and its WAL. */
function bytesAtRest(dir: string): string {
  const parts = ['fpa.db', 'fpa.db-wal'].map((name) => join(dir, name)).filter((path) => existsSync(path));
  return parts.map((path) => readFileSync(path).toString('latin1')).join('\n');
}

/** Every form of a `whsec_` secret that would give it away: the text and its key in base64. */
function expectNowhere(dir: string, secret: string): void {
  const bytes = bytesAtRest(dir);
  const key = secret.slice('whsec_'.length);
  expect(bytes.includes(secret)).toBe(false);
  expect(bytes.includes(key)).toBe(false);
  expect(bytes.includes(Buffer.from(key, 'base64').toString('latin1'))).toBe(false);
}

describe('data files at rest', () => {
  const tmp = tempDir('fpa-modes-');
  afterAll(() => tmp.cleanup());

  test('the directory the service creates is 0700; the database, -wal, -shm and lock files 0600 after writes', async () => {
    const dir = join(tmp.dir, 'fresh', 'data');
    const server = await startTestServer(HOOKS, { dir });
    try {
      // Writes of every kind: a terminal's punches, an endpoint, a webhook test send.
      const device = await approvedDevice(server, 'MODE0001');
      expect((await postAttlog(server, device.serialNumber, punchLines('1', 20))).text).toBe('OK:20');
      expect((await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/none' })).status).toBe(201);
      for (const name of DATA_FILES) {
        expect(existsSync(join(dir, name))).toBe(true);
        expect({ name, mode: mode(join(dir, name)) }).toEqual({ name, mode: 0o600 });
      }
      expect(mode(dir)).toBe(0o700);
      expect(mode(join(tmp.dir, 'fresh'))).toBe(0o700);
    } finally {
      await server.close();
    }
  });

  test('an earlier release’s files (0644 in its own 0755 directory) are tightened on start', async () => {
    const dir = join(tmp.dir, 'earlier');
    const first = await startTestServer({}, { dir });
    await first.close();
    for (const name of ['fpa.db', 'fpa.db.writer']) chmodSync(join(dir, name), 0o644);
    chmodSync(dir, 0o755);
    const logger = recordingLogger();
    const again = await startTestServer(HOOKS, { dir, logger });
    try {
      expect((await again.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/none' })).status).toBe(201);
      for (const name of DATA_FILES) expect({ name, mode: mode(join(dir, name)) }).toEqual({ name, mode: 0o600 });
      expect(mode(dir)).toBe(0o700);
      expect(logger.warnings.filter((w) => w.includes('holding the database'))).toEqual([]);
    } finally {
      await again.close();
    }
  });

  test('a directory shared with other files is left as it is and reported; the files are 0600 all the same', async () => {
    const dir = join(tmp.dir, 'shared');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'notes.txt'), 'not ours');
    const logger = recordingLogger();
    const server = await startTestServer({}, { dir, logger });
    try {
      expect(mode(dir)).toBe(0o755);
      expect(logger.warnings.filter((w) => w.includes('holding the database'))).toEqual([
        expect.stringContaining(`the directory ${dir} holding the database is open to group or others (mode 0755)`),
      ]);
      for (const name of DATA_FILES) expect({ name, mode: mode(join(dir, name)) }).toEqual({ name, mode: 0o600 });
    } finally {
      await server.close();
    }
  });
});

describe('webhook signing secrets at rest', () => {
  const tmp = tempDir('fpa-hook-secrets-');
  const rx = receiver();
  let server: TestServer | null = null;
  let endpointId = '';
  let secret = '';
  let pin = 100;

  const start = async (keys: string[] = [TEST_KEY]) => {
    server = await startTestServer({ ...HOOKS, TEMPLATE_ENCRYPTION_KEYS: keys }, { dir: tmp.dir });
    return server;
  };
  const stop = async () => {
    await server?.close();
    server = null;
  };
  const stored = async (s: TestServer) => {
    const rs = await s.fpa.db.client.execute({ sql: 'select secret from fpa_webhook_endpoints where id = ?', args: [endpointId] });
    return String(rs.rows[0]!.secret);
  };
  /** A punch delivered by the worker and a test send, both verified with `secret`. */
  async function expectSignedWith(s: TestServer, expected: string): Promise<void> {
    const before = rx.calls.length;
    expect((await postAttlog(s, 'HOOKSEC1', punchLines(String(pin++), 1))).text).toBe('OK:1');
    await waitFor(() => rx.calls.length > before, 'a delivery');
    const sent = await s.admin.post(`/webhooks/${endpointId}/test/`);
    expect(sent.body).toMatchObject({ status_code: 200, error: null });
    const calls = rx.calls.slice(before);
    expect(calls.map((c) => (JSON.parse(c.body) as { type: string }).type).sort()).toEqual(['punch_received', 'webhook_test']);
    for (const call of calls) new Webhook(expected).verify(call.body, call.headers);
  }

  beforeAll(async () => {
    const s = await start();
    await approvedDevice(s, 'HOOKSEC1');
    const created = await s.admin.post('/webhooks/', { url: rx.url });
    expect(created.status).toBe(201);
    endpointId = created.body.id;
    secret = created.body.secret;
  });
  afterAll(async () => {
    await stop();
    rx.stop();
    tmp.cleanup();
  });

  test('a new endpoint’s secret is stored sealed, never in clear in the file or the WAL; deliveries verify', async () => {
    const s = server!;
    expect(secret).toMatch(/^whsec_/);
    expect(await stored(s)).toMatch(/^sealed1:[A-Za-z0-9_-]+$/);
    await expectSignedWith(s, secret);
    expectNowhere(tmp.dir, secret);
    // The sealed value is bound to its endpoint: copied to another, it does not open there.
    const other = (await s.admin.post('/webhooks/', { url: `${rx.url}/other` })).body as { id: string };
    await s.fpa.db.client.execute({ sql: 'update fpa_webhook_endpoints set secret = ? where id = ?', args: [await stored(s), other.id] });
    const refused = await s.admin.post(`/webhooks/${other.id}/test/`);
    expect(refused.body).toMatchObject({ status_code: null, error: expect.stringContaining('cannot be decrypted') });
    expect((await s.admin.delete(`/webhooks/${other.id}/`)).status).toBe(204);
  });

  test('a clear secret of an earlier release is sealed at start-up, its bytes gone from file and WAL; deliveries verify', async () => {
    await stop();
    // What an earlier release wrote: the secret in clear.
    const clear = generateWebhookSecret();
    const raw = createClient({ url: `file:${join(tmp.dir, 'fpa.db')}` });
    await raw.execute({ sql: 'update fpa_webhook_endpoints set secret = ? where id = ?', args: [clear, endpointId] });
    raw.close();
    // The check can fail: the clear secret is on disk before the upgrade.
    expect(bytesAtRest(tmp.dir).includes(clear)).toBe(true);

    const s = await start();
    expect(await stored(s)).toMatch(/^sealed1:/);
    expectNowhere(tmp.dir, clear);
    await expectSignedWith(s, clear);
    const audit = await s.fpa.db.client.execute("select count(*) as n from fpa_audit_log where details like '%whsec_%'");
    expect(Number(audit.rows[0]!.n)).toBe(0);
    secret = clear;
    // Idempotent: the next start finds nothing to seal and changes nothing.
    const sealed = await stored(s);
    await stop();
    expect(await stored(await start())).toBe(sealed);
  });

  test('rotate-keys re-seals every secret under the new first key; the old key can then go', async () => {
    await stop();
    const newKey = generateEncryptionKey();
    const s = await start([newKey, TEST_KEY]);
    const ring = await TemplateKeyRing.fromKeys([newKey]);
    const before = await stored(s);
    const run = await s.fpa.jobs.run('rotate-keys');
    expect(run.status).toBe('succeeded');
    expect(run.result.webhook_secrets).toBe(1);
    const after = await stored(s);
    expect(after).not.toBe(before);
    expect(ring.keyIdOf(new Uint8Array(Buffer.from(after.slice('sealed1:'.length), 'base64url')))).toBe(ring.primaryKeyId);
    expect((await s.fpa.jobs.run('rotate-keys')).result.webhook_secrets).toBe(0);
    await stop();
    // Only the new key now: the secret still opens and signs.
    const only = await start([newKey]);
    await expectSignedWith(only, secret);
    expectNowhere(tmp.dir, secret);
  });
});

describe('the one-server lock follows the file, not its path', () => {
  const tmp = tempDir('fpa-lock-path-');
  const real = join(tmp.dir, 'real');
  let first: TestServer;

  beforeAll(async () => {
    first = await startTestServer({}, { dir: real });
    symlinkSync(real, join(tmp.dir, 'linked-dir'));
    mkdirSync(join(tmp.dir, 'elsewhere'));
    symlinkSync(join(real, 'fpa.db'), join(tmp.dir, 'elsewhere', 'fpa.db'));
  });
  afterAll(async () => {
    await first.close();
    tmp.cleanup();
  });

  const paths = () => [
    join(tmp.dir, 'linked-dir', 'fpa.db'),
    join(tmp.dir, 'elsewhere', 'fpa.db'),
    `${real}/../linked-dir/../real/fpa.db`,
    `${tmp.dir}/linked-dir/../real/fpa.db`,
  ];

  test('a second instance through a symlink (file or directory) or `..` refuses: the database is in use', async () => {
    for (const path of paths()) {
      const second = createFingerprintAttendance({ settings: { ...testSettings(tmp.dir), DATABASE_URL: `file:${path}` }, env: {}, startJobs: false });
      await expect(second).rejects.toBeInstanceOf(DatabaseLockedError);
    }
    // The first one still serves, its lock untouched.
    expect((await first.admin.get('/devices/')).status).toBe(200);
    expect(first.fpa.db.filePath).toBe(join(real, 'fpa.db'));
  });

  test('a second server process started through a symlink refuses with the same clear error', async () => {
    const work = tempDir('fpa-lock-child-');
    const child = new ChildServer(work.dir, serverEnv(work.dir));
    try {
      await child.start();
      const link = join(tmp.dir, 'child-link');
      symlinkSync(work.dir, link);
      const env = serverEnv(link, { PORT: String(child.port + 1) });
      const second = await runBun(['src/server.ts'], env);
      expect(second.code).not.toBe(0);
      expect(second.err).toContain(`fpa: refusing to start: the database is in use by another Fingerprint Attendance process (pid ${child.pid}`);
      expect(second.out).not.toContain('listening');
      expect((await fetch(`${child.url}/healthz`)).status).toBe(200);
    } finally {
      await child.kill();
      work.cleanup();
    }
  }, 30_000);
});
