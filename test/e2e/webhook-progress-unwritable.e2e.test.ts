/**
 * A webhook run whose progress cannot be written (a chaos engineer's find): with the disk full,
 * or a write lock held by another process past the busy timeout, a write of a run's progress
 * that nobody awaited rejected unheard, and Bun ended the whole server on it (terminals then got
 * connection refused). Now the run ends as a stale one does, says so, and what it sent since its
 * last write is sent again once the database takes writes: every punch is delivered, the server
 * stays up.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedDevice, postAttlog, punchLines } from '../support/punch-feed';
import { receiver, waitFor } from '../support/webhook-receiver';

let server: TestServer;

/** Holds the database's write lock from another process for `ms`; resolves once it is released. */
async function holdWriteLock(path: string, ms: number): Promise<void> {
  const script = `const { Database } = require('bun:sqlite'); const db = new Database(${JSON.stringify(path)}); db.exec('BEGIN IMMEDIATE'); console.log('held'); await Bun.sleep(${ms}); db.exec('COMMIT'); db.close();`;
  const child = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'inherit' });
  const reader = child.stdout.getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toContain('held');
  expect(await child.exited).toBe(0);
}
// Slow answers: deliveries are still in flight, and the run still writing its progress, while the lock is held.
const hook = receiver(async () => {
  await Bun.sleep(20);
  return new Response('ok');
});

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_CONCURRENCY: 1 });
});
afterAll(async () => {
  await server.close();
  hook.stop();
});

test('a foreign write lock past the busy timeout while deliveries run: the server stays up and every punch is delivered', async () => {
  expect((await server.admin.post('/webhooks/', { url: hook.url, events: ['punch_received'] })).status).toBe(201);
  const device = await approvedDevice(server, 'WHLOCK01');
  expect((await postAttlog(server, device.serialNumber, punchLines('7', 400))).text).toBe('OK:400');
  await waitFor(() => hook.calls.length > 20, 'the first deliveries');
  // Another process takes the write lock for longer than the busy timeout (5 s). (A process's
  // own second connection would not do: SQLite's file locks are held per process.)
  await holdWriteLock(join(server.dir, 'fpa.db'), 6_500);
  // Still serving: a terminal is answered, and new punches are taken.
  expect((await postAttlog(server, device.serialNumber, punchLines('8', 10))).text).toBe('OK:10');
  await waitFor(() => new Set(hook.calls.map((c) => c.id)).size === 410, 'every punch delivered', 60_000);
}, 120_000);
