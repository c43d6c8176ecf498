/**
 * AGENT_RATE_LIMIT holds across instances (counted in the database, not per process), and the
 * lock file's operator token counts only from a loopback peer.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { networkInterfaces } from 'node:os';
import { loadSettings } from '../../../src/platform/config/settings';
import { AdminAuthenticator, OPERATOR_TOKEN_HEADER } from '../../../src/platform/http/admin-auth';
import { isLoopbackAddress } from '../../../src/platform/net/ip';
import { agentClient, createAgent } from '../../support/agents';
import { startTestServer, type TestServer } from '../../support/harness';

const API = '/api/fingerprint/v1';

describe('AGENT_RATE_LIMIT across instances', () => {
  // The start of a one-minute window, so the test never straddles a window edge.
  let now = Date.UTC(2030, 5, 1, 12, 0, 0);
  const clock = { now: () => now };
  let first: TestServer;
  let second: TestServer;

  beforeAll(async () => {
    first = await startTestServer({ AGENT_RATE_LIMIT: '4/m' }, { clock });
    second = await startTestServer({ AGENT_RATE_LIMIT: '4/m' }, { dir: first.dir, db: first.fpa.db, clock });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  test('two instances on one database share one budget per agent key', async () => {
    const agent = await createAgent(first, 'shared-budget');
    const viaFirst = agentClient(first, agent.key);
    const viaSecond = agentClient(second, agent.key);
    const answers = [];
    for (const client of [viaFirst, viaSecond, viaFirst, viaSecond]) {
      const res = await client.get('/me/');
      answers.push([res.status, res.headers.get('ratelimit-remaining')]);
      now += 1_000;
    }
    expect(answers).toEqual([
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
    ]);
    // Each instance alone has seen two requests; together they are over the limit.
    for (const client of [viaSecond, viaFirst]) {
      const limited = await client.get('/me/');
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ code: 'rate_limited', details: { limit: 4, retry_after: 56 } });
      expect(limited.headers.get('retry-after')).toBe('56');
    }
    // Another key has its own budget, on either instance.
    const other = await createAgent(second, 'other-budget');
    expect((await agentClient(first, other.key).get('/me/')).status).toBe(200);
    // The next window starts again, on both.
    now += 60_000;
    expect((await viaSecond.get('/me/')).status).toBe(200);
    expect((await viaFirst.get('/me/')).headers.get('ratelimit-remaining')).toBe('2');
  });
});

describe('the operator token', () => {
  test('counts only from a loopback peer', async () => {
    const { settings } = loadSettings({ ADMIN_JWT_SECRET: 'x'.repeat(40) }, {});
    const auth = new AdminAuthenticator(settings);
    auth.operatorToken = 'operator-token-for-the-test';
    const request = () => new Request('http://host/api', { headers: { [OPERATOR_TOKEN_HEADER]: 'operator-token-for-the-test' } });
    for (const peerIp of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      expect(await auth.authenticate(request(), { allowOperatorToken: true, peerIp })).toMatchObject({
        by: 'operator',
        role: 'owner',
        actor: { kind: 'operator' },
      });
    }
    for (const peerIp of ['10.0.0.5', '192.0.2.2', '::ffff:10.0.0.5', 'fd00::2', '', null, undefined]) {
      await expect(auth.authenticate(request(), { allowOperatorToken: true, peerIp })).rejects.toMatchObject({ code: 'unauthorized' });
    }
    expect(isLoopbackAddress('128.0.0.1')).toBe(false);
    expect(isLoopbackAddress('127.0.0.1.example.com')).toBe(false);
  });

  /** A non-loopback address of this machine, if it has one. */
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

  test.skipIf(!external)('over real HTTP: the same request is accepted from 127.0.0.1 and refused from another address', async () => {
    const server = await startTestServer({}, { hostname: '0.0.0.0' });
    try {
      const token = server.fpa.lock?.info.token;
      expect(token).toBeString();
      const create = (host: string, name: string) =>
        fetch(`http://${host}:${new URL(server.url).port}${API}/enrollment-agents/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [OPERATOR_TOKEN_HEADER]: token! },
          body: JSON.stringify({ name, algorithm_version: '10' }),
        });
      const local = await create('127.0.0.1', 'from-loopback');
      expect(local.status).toBe(201);
      expect(((await local.json()) as { created_by: string }).created_by).toBe('operator');
      const remote = await create(external!, 'from-the-network');
      expect(remote.status).toBe(401);
      expect(((await remote.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      const job = await fetch(`http://${external}:${new URL(server.url).port}${API}/jobs/check-devices/run/`, {
        method: 'POST',
        headers: { [OPERATOR_TOKEN_HEADER]: token! },
      });
      expect(job.status).toBe(401);
      await job.text();
    } finally {
      await server.close();
    }
  });
});
