/**
 * Punch stream fixes: the socket is closed with 4401 when the administrator token it was
 * opened with expires, and an administrator (token subject) may hold at most
 * WEBSOCKET_MAX_PER_ADMIN streams; more are refused before the upgrade with 429 and the error
 * body, and a closed stream gives its place back.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { CLOSE_TOKEN_EXPIRED, StreamQuota } from '../../../src/platform/http/stream';
import { adminToken, startTestServer, type TestServer } from '../../support/harness';
import { openSocket } from '../../support/sockets';

const HANDSHAKE = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ WEBSOCKET_MAX_PER_ADMIN: 2 });
});
afterAll(async () => {
  await server.close();
});

function streamUrl(token: string): string {
  return `${server.url.replace('http', 'ws')}/api/fingerprint/v1/punches/stream/?access_token=${token}`;
}

/** Opens a real WebSocket and records how it closes. */
const open = (token: string) => openSocket(streamUrl(token));

/** The upgrade handshake over plain HTTP, to read a refusal's status and body. */
async function handshake(token: string) {
  const res = await fetch(streamUrl(token).replace('ws', 'http'), { headers: HANDSHAKE });
  const body = res.status === 101 ? null : await res.json();
  return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
}

describe('token expiry', () => {
  test('the socket is closed with 4401 when its token expires', async () => {
    const token = await adminToken({ sub: 'short-lived@example.com', expiresIn: '2s' });
    const stream = await open(token);
    expect(stream.closed()).toBeNull();
    await waitFor(() => stream.closed() !== null, 'the close at exp', 10_000);
    expect(stream.closed()).toEqual({ code: CLOSE_TOKEN_EXPIRED, reason: 'token expired' });
    // Its place was given back: the same subject opens two more.
    const fresh = await adminToken({ sub: 'short-lived@example.com' });
    const [a, b] = [await open(fresh), await open(fresh)];
    a.ws.close();
    b.ws.close();
  });

  test('a token valid for an hour is not closed early', async () => {
    const stream = await open(await adminToken({ sub: 'long-lived@example.com' }));
    await Bun.sleep(300);
    expect(stream.closed()).toBeNull();
    stream.ws.close();
  });
});

describe('WEBSOCKET_MAX_PER_ADMIN', () => {
  test('a third stream of one administrator is refused with 429; others are not; closing one frees a place', async () => {
    const alice = await adminToken({ sub: 'alice@example.com' });
    const first = await open(alice);
    const second = await open(alice);
    const refused = await handshake(alice);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: { code: 'rate_limited', message: expect.any(String), details: { limit: 2, open_streams: 2, retry_after: 10 }, request_id: expect.any(String) },
    });
    // As every 429 (README "HTTP contract"): when to try again, the place held by a handshake that never opened given back by then.
    expect(refused.retryAfter).toBe('10');
    // Another token of the same subject counts against the same cap.
    expect((await handshake(await adminToken({ sub: 'alice@example.com', expiresIn: '2h' }))).status).toBe(429);

    const bob = await open(await adminToken({ sub: 'bob@example.com' }));
    expect(bob.closed()).toBeNull();

    first.ws.close();
    await waitFor(async () => {
      try {
        const again = await open(alice);
        again.ws.close();
        return true;
      } catch {
        return false;
      }
    }, 'a freed place');
    second.ws.close();
    bob.ws.close();
  });

  test('the quota counts places per subject and gives each back once', () => {
    const quota = new StreamQuota(() => 2);
    const one = quota.take('s');
    const two = quota.take('s');
    expect(() => quota.take('s')).toThrow(expect.objectContaining({ code: 'rate_limited' }));
    expect(quota.held('t')).toBe(0);
    quota.take('t');
    one();
    one();
    expect(quota.held('s')).toBe(1);
    quota.take('s');
    two();
    expect(quota.held('s')).toBe(1);
  });
});
