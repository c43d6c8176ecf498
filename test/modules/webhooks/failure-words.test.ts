/**
 * Why a webhook request got no answer, as `deliveries/` and `last_error` say it: plain words with
 * the system code in brackets, never Bun's text with its advice to a programmer ("For more
 * information, pass `verbose: true` in the second argument to fetch()"). Real sockets: a port
 * nothing listens on, a receiver that closes the connection, one that never answers, plain HTTP
 * where https was asked.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createServer, type Server, type Socket } from 'node:net';
import { describeFailure, fetchSender } from '../../../src/modules/webhooks/sender';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, punchLines } from '../../support/punch-feed';
import { waitFor } from '../../support/webhook-receiver';

const servers: Server[] = [];

/** A TCP server on 127.0.0.1 doing `onConnection` with each socket; its port. */
async function tcp(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer(onConnection);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** A port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const send = (url: string, timeoutMs = 2_000) => fetchSender({ url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs });

afterAll(() => {
  for (const s of servers) s.close();
});

describe('a request that got no answer, in words', () => {
  test('the receiver closed the connection (ECONNRESET)', async () => {
    const port = await tcp((socket) => socket.once('data', () => socket.destroy()));
    expect(await send(`http://127.0.0.1:${port}/hook`)).toMatchObject({ statusCode: null, error: 'the receiver closed the connection (ECONNRESET)' });
  });

  test('could not connect (ECONNREFUSED)', async () => {
    expect((await send(`http://127.0.0.1:${await closedPort()}/hook`)).error).toBe('could not connect (ECONNREFUSED)');
  });

  test('timed out after the timeout, said in seconds', async () => {
    const port = await tcp(() => undefined);
    expect((await send(`http://127.0.0.1:${port}/hook`, 1_000)).error).toBe('timed out after 1 s');
    expect((await send(`http://127.0.0.1:${port}/hook`, 300)).error).toBe('timed out after 300 ms');
  });

  test('https asked of a plain HTTP receiver: the TLS handshake failed (EPROTO)', async () => {
    const port = await tcp((socket) => socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')));
    expect((await send(`https://127.0.0.1:${port}/hook`)).error).toBe('the TLS handshake failed: does the receiver speak https on that port? (EPROTO)');
  });

  test('the codes Bun gives for DNS and certificates; an unknown code keeps its words, without the advice', () => {
    const failure = (code: string, message: string) => Object.assign(new TypeError(message), { code });
    expect(describeFailure(failure('ENOTFOUND', 'getaddrinfo ENOTFOUND hooks.example.com'), 10_000)).toBe('the host name could not be resolved (ENOTFOUND)');
    expect(describeFailure(failure('DEPTH_ZERO_SELF_SIGNED_CERT', 'self signed certificate'), 10_000)).toBe(
      'the receiver’s TLS certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)',
    );
    expect(describeFailure(failure('CERT_HAS_EXPIRED', 'certificate has expired'), 10_000)).toBe(
      'the receiver’s TLS certificate is not trusted: it has expired (CERT_HAS_EXPIRED)',
    );
    expect(
      describeFailure(
        failure('ESOMETHING', 'ESOMETHING: The socket did something. For more information, pass `verbose: true` in the second argument to fetch()'),
        10_000,
      ),
    ).toBe('The socket did something (ESOMETHING)');
    expect(describeFailure(Object.assign(new Error('x'), { name: 'TimeoutError' }), 10_000)).toBe('timed out after 10 s');
    expect(describeFailure(Object.assign(new Error('x'), { name: 'TimeoutError' }), 1_500)).toBe('timed out after 1.5 s');
  });
});

describe('what an integrator reads', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 60_000, WEBHOOK_TIMEOUT: 2_000 });
  });
  afterAll(async () => {
    await server.close();
  });

  test('deliveries/ and last_error say the receiver closed the connection, with no fetch() advice', async () => {
    const port = await tcp((socket) => socket.once('data', () => socket.destroy()));
    const hook = (await server.admin.post('/webhooks/', { url: `http://127.0.0.1:${port}/hook` })).body as { id: string };
    await ingest(server, await approvedDevice(server, 'WORDS001'), punchLines('1', 1));
    await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/deliveries/`)).body.results.length > 0, 'the failed attempt');
    const [attempt] = (await server.admin.get(`/webhooks/${hook.id}/deliveries/`)).body.results;
    expect(attempt).toMatchObject({ status_code: null, error: 'the receiver closed the connection (ECONNRESET)' });
    await waitFor(async () => (await server.admin.get(`/webhooks/${hook.id}/`)).body.last_error !== null, 'the endpoint’s last error');
    expect((await server.admin.get(`/webhooks/${hook.id}/`)).body.last_error).toBe('the receiver closed the connection (ECONNRESET)');
  });
});
