import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { punchStreamSource } from '../../../src/modules/punches';
import type { PunchView } from '../../../src/modules/punches/view';
import { CLOSE_TOO_SLOW, STREAM_BATCH, StreamHub, type StreamSocket } from '../../../src/platform/http/stream';
import { adminToken, startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, postAttlog, punchLines } from '../../support/punch-feed';
import { openSocket } from '../../support/sockets';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** A real WebSocket client collecting the punches it is sent. */
function subscribe(server: TestServer, query: string, headers: Record<string, string> = {}) {
  return openSocket<PunchView>(`${server.url.replace('http', 'ws')}/api/fingerprint/v1/punches/stream/${query}`, headers);
}

describe('the punch stream (WebSocket)', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    token = await adminToken();
  });
  afterAll(async () => {
    await server.close();
  });

  test('is refused before upgrading without an administrator token', async () => {
    const handshake = {
      upgrade: 'websocket',
      connection: 'Upgrade',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-version': '13',
    };
    const anonymous = await fetch(`${server.url}/api/fingerprint/v1/punches/stream/?after=0`, { headers: handshake });
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe('unauthorized');
    const wrong = await fetch(`${server.url}/api/fingerprint/v1/punches/stream/?access_token=${await adminToken({ scope: 'other' })}`, { headers: handshake });
    expect(wrong.status).toBe(403);
    const badAfter = await fetch(`${server.url}/api/fingerprint/v1/punches/stream/?after=x`, { headers: { ...handshake, authorization: `Bearer ${token}` } });
    expect(badAfter.status).toBe(400);
  });

  test('replays from a sequence, then follows live, in order; the header token works too', async () => {
    const device = await approvedDevice(server, 'WS000001');
    const before = await ingest(server, device, punchLines('1', 5));
    const start = before.lastSequence! - 5;

    const replaying = await subscribe(server, `?after=${start}&access_token=${token}`);
    const fromHead = await subscribe(server, '', { authorization: `Bearer ${token}` });
    await waitFor(() => replaying.received.length === 5, 'the replay');
    expect(replaying.received.map((p) => p.sequence)).toEqual([start + 1, start + 2, start + 3, start + 4, start + 5]);

    expect((await postAttlog(server, 'WS000001', punchLines('2', 3))).text).toBe('OK:3');
    await waitFor(() => replaying.received.length === 8 && fromHead.received.length === 3, 'the live punches');
    const liveSequences = [start + 6, start + 7, start + 8];
    expect(replaying.received.slice(5).map((p) => p.sequence)).toEqual(liveSequences);
    // Without `after` only punches committed after connecting arrive.
    expect(fromHead.received.map((p) => p.sequence)).toEqual(liveSequences);
    expect(fromHead.received[0]).toMatchObject({ device: 'WS000001', device_pin: '2', local_time: '2025-01-06 08:00:00' });

    replaying.ws.close();
    fromHead.ws.close();
  });

  test('a replay longer than one batch arrives complete and in order while punches keep coming', async () => {
    const device = await approvedDevice(server, 'WS000002');
    const head = await ingest(server, device, punchLines('3', STREAM_BATCH + 37));
    const start = head.lastSequence! - (STREAM_BATCH + 37);
    const client = await subscribe(server, `?after=${start}&access_token=${token}`);
    const writers = [1, 2, 3].map((i) => ingest(server, device, punchLines(`4${i}`, 20)));
    await Promise.all(writers);
    const expected = (await server.admin.get(`/punches/latest/?after=${start}&limit=1000`)).body.results.map((p: PunchView) => p.sequence);
    expect(expected).toHaveLength(STREAM_BATCH + 37 + 60);
    await waitFor(() => client.received.length >= expected.length, 'every punch');
    await Bun.sleep(100);
    expect(client.received.map((p) => p.sequence)).toEqual(expected);
    client.ws.close();
  });

  test('punches written by another instance on the same database arrive too', async () => {
    const other = await startTestServer({}, { dir: server.dir, db: server.fpa.db });
    try {
      const client = await subscribe(server, `?access_token=${token}`);
      const device = await approvedDevice(other, 'WS000003');
      const written = await ingest(other, device, punchLines('5', 2));
      await waitFor(() => client.received.length === 2, 'the other instance’s punches', 5_000);
      expect(client.received.map((p) => p.sequence)).toEqual([written.lastSequence! - 1, written.lastSequence!]);
      client.ws.close();
    } finally {
      await other.close();
    }
  });
});

describe('the stream hub', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ WEBSOCKET_MAX_BUFFERED_BYTES: 4_000 });
    const device = await approvedDevice(server, 'HUB00001');
    await ingest(server, device, punchLines('1', 40));
  });
  afterAll(async () => {
    await server.close();
  });

  class FakeSocket implements StreamSocket {
    messages: string[] = [];
    buffered = 0;
    closedWith: number | null = null;
    constructor(private readonly grows: boolean) {}
    send(message: string): number {
      this.messages.push(message);
      if (this.grows) this.buffered += message.length;
      return this.grows ? -1 : message.length;
    }
    getBufferedAmount(): number {
      return this.buffered;
    }
    close(code?: number): void {
      this.closedWith = code ?? 1000;
    }
  }

  test('drops a client whose buffer passes WEBSOCKET_MAX_BUFFERED_BYTES; the others get everything', async () => {
    const hub = new StreamHub(server.fpa.service.runtime, punchStreamSource(server.fpa.service.runtime));
    const fast = new FakeSocket(false);
    const slow = new FakeSocket(true);
    const fastSub = hub.add(fast, 0);
    hub.add(slow, 0);
    await waitFor(() => fast.messages.length === 40, 'the fast client');
    await waitFor(() => slow.closedWith !== null, 'the slow client to be dropped');
    expect(slow.closedWith).toBe(CLOSE_TOO_SLOW);
    expect(hub.size).toBe(1);
    expect(fastSub.position).toBe(40);
    expect(fast.messages.map((m) => (JSON.parse(m) as PunchView).sequence)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    await hub.stop();
    expect(fast.closedWith).toBe(1001);
  });

  test('pauses a client past half the limit until its socket drains, then catches it up', async () => {
    const hub = new StreamHub(server.fpa.service.runtime, punchStreamSource(server.fpa.service.runtime));
    const socket = new FakeSocket(false);
    socket.buffered = 2_500; // over half of 4,000, under the limit
    const sub = hub.add(socket, 30);
    await waitFor(() => sub.pausedSince !== null, 'the pause');
    expect(socket.messages).toHaveLength(10);
    const device = await approvedDevice(server, 'HUB00002');
    await ingest(server, device, punchLines('2', 3));
    await Bun.sleep(100);
    expect(socket.messages).toHaveLength(10);
    socket.buffered = 0;
    hub.drained(sub);
    await waitFor(() => socket.messages.length === 13, 'the catch-up');
    expect(socket.closedWith).toBeNull();
    await hub.stop();
  });
});

describe('shutting down with streams open', () => {
  test('the server stops promptly and its clients see 1001', async () => {
    const server = await startTestServer();
    const client = await subscribe(server, `?access_token=${await adminToken()}`);
    const started = Date.now();
    await server.close();
    await waitFor(() => client.closed() !== null, 'the close frame', 10_000);
    expect(client.closed()!.code).toBe(1001);
    // Not held by the open stream (its token lives an hour, its pings go on): well within a
    // bound generous enough for a loaded machine, since this is no benchmark.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
