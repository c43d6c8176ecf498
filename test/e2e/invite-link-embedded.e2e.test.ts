/**
 * An instance embedded in a host that serves it with Bun.serve({ fetch: app.fetch }) (README
 * "Embedding": such a host calls fpa.servedAt): its invite and reset links name where the host
 * serves it, the address servedAt gave (as the lock file's consoleBase does), not the settings'
 * HOST and PORT (Elysia has no server to tell the routes there).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../src/app/create';
import { readLock } from '../../src/platform/db/lock';
import { silentLogger } from '../../src/platform/log';
import { adminToken, tempDir, testSettings } from '../support/harness';

const tmp = tempDir('fpa-host-invite-');
let fpa: FingerprintAttendance;
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  fpa = await createFingerprintAttendance({
    settings: testSettings(tmp.dir, { HOST: '127.0.0.1', LOG_LEVEL: 'warn' }),
    env: {},
    logger: silentLogger,
    startJobs: false,
  });
  const app = new Elysia().get('/', () => 'host').use(fpa.plugin);
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.fetch });
  fpa.servedAt({ hostname: '127.0.0.1', port: server.port! });
});
afterAll(async () => {
  server.stop(true);
  await fpa.close();
  tmp.cleanup();
});

test('the invite and reset links name where the host serves the console', async () => {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/fingerprint/v1/users/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await adminToken()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Hal Host', username: 'hal', role: 'viewer' }),
  });
  const body = (await res.json()) as { id?: string; invite_url?: string };
  expect(res.status).toBe(201);
  expect(body.invite_url).toStartWith(`http://127.0.0.1:${server.port}/console/`);
  expect(readLock(join(tmp.dir, 'fpa.db.lock'))?.consoleBase).toBe(`http://127.0.0.1:${server.port}`);
  const reset = await fetch(`http://127.0.0.1:${server.port}/api/fingerprint/v1/users/${body.id}/reset/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await adminToken()}` },
  });
  expect(reset.status).toBe(200);
  expect(((await reset.json()) as { invite_url: string }).invite_url).toStartWith(`http://127.0.0.1:${server.port}/console/`);
});
