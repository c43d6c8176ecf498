/**
 * An open stream outlives neither its caller's access nor the role and areas it was opened with:
 * every STREAM_RECHECK_MS the socket's caller is admitted again, and the socket is closed with
 * 4401 once its API key is revoked or its account disabled, and with 4403 once the account's
 * areas or role change (connecting again gives the new ones). Through the real server: an API
 * key on `punches/stream/`, a console session (cookie and Origin, as the console opens it) on
 * `events/stream/`.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { CLOSE_ACCESS_CHANGED, CLOSE_TOKEN_EXPIRED, STREAM_RECHECK_MS } from '../../src/platform/http/stream';
import { makeUser } from '../support/accounts';
import { startTestServer, type TestServer } from '../support/harness';
import { openSocket, type WatchedSocket } from '../support/sockets';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({});
  for (const name of ['north', 'south']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

/** Opens a stream with these headers and records how it closes. */
const open = (path: string, headers: Record<string, string>) => openSocket(`${server.url.replace('http', 'ws')}/api/fingerprint/v1/${path}`, headers);

async function closedWithin(stream: WatchedSocket, ms: number) {
  const deadline = Date.now() + ms;
  while (stream.closed() === null && Date.now() < deadline) await Bun.sleep(20);
  return stream.closed();
}

test('a stream of a revoked API key is closed with 4401 at the next check', async () => {
  const made = await server.admin.post('/api-keys/', { name: 'payroll-feed', role: 'viewer', areas: ['north'] });
  expect(made.status).toBe(201);
  const stream = await open('punches/stream/', { authorization: `Bearer ${made.body.key}` });
  expect(await closedWithin(stream, 300)).toBeNull();
  expect((await server.admin.delete(`/api-keys/${made.body.id}/`)).status).toBe(204);
  expect(await closedWithin(stream, STREAM_RECHECK_MS + 2_000)).toEqual({ code: CLOSE_TOKEN_EXPIRED, reason: 'access ended' });
}, 15_000);

test('a console session’s stream is closed with 4403 when the account’s areas change, and with 4401 once it is disabled', async () => {
  const hugo = await makeUser(server, 'hugo', 'hr', { areas: ['south'] });
  const headers = { cookie: hugo.session.cookie, origin: server.url };
  const first = await open('events/stream/?type=punch_received', headers);
  expect((await server.admin.patch(`/users/${hugo.id}/`, { areas: ['north'] })).status).toBe(200);
  expect(await closedWithin(first, STREAM_RECHECK_MS + 2_000)).toEqual({ code: CLOSE_ACCESS_CHANGED, reason: 'access changed: connect again' });
  // Connecting again is allowed, with the new areas; disabling the account ends that one too.
  const second = await open('events/stream/?type=punch_received', headers);
  expect((await server.admin.patch(`/users/${hugo.id}/`, { disabled: true })).status).toBe(200);
  expect(await closedWithin(second, STREAM_RECHECK_MS + 2_000)).toEqual({ code: CLOSE_TOKEN_EXPIRED, reason: 'access ended' });
}, 20_000);
