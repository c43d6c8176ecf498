/**
 * A list takes only its own cursors (README "HTTP contract"): for EVERY paged list of the served
 * document (every GET that takes `cursor`), the `next_cursor` of each other list and made-up
 * cursors of every shape are 400 `invalid_cursor`, however alike the keys are (`punches/` and
 * `audit-log/` both page on an integer); its own `next_cursor` reads its next page. `areas/`
 * pages like the others.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { approvedTerminal, createAgent, newEnrollee, startSession } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';
import { API, type DocumentedOperation, fetchDocument, operationsOf } from '../support/openapi';

const SERIALS = ['CURSORA1', 'CURSORB2'];
let server: TestServer;
let lists: DocumentedOperation[];
let known: Record<string, string>;
/** The `{id}` of a person's lists (`enrollees/{id}/consents/`). */
let personId: string;
/** The `next_cursor` of each list's first page (limit 1), for the lists that have a second page. */
const ownCursor = new Map<string, string>();

const encode = (values: unknown[]) => Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
/** Made up: the keys a list pages on without the list, keys of another kind, text, another list's name. */
const MADE_UP = [encode([999999]), encode([181]), encode(['x']), encode(['x', 'y']), encode([1, 'x']), encode(['punch', 1]), 'garbage', 'WzE4MV0'];

async function ok(answer: Promise<{ status: number; body: unknown }>, status = 201) {
  const { status: got, body } = await answer;
  if (got !== status) throw new Error(`setup answered ${got}: ${JSON.stringify(body)}`);
  return body as Record<string, string>;
}

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_WORKER: false, TIME_ZONE: 'Europe/Berlin' });
  const { admin } = server;
  // Two of everything a list pages over, so that each list has a second page.
  const hooks = [await ok(admin.post('/webhooks/', { url: 'http://127.0.0.1:9/a' })), await ok(admin.post('/webhooks/', { url: 'http://127.0.0.1:9/b' }))];
  for (const serial of SERIALS) await approvedTerminal(server, serial);
  await ok(admin.post('/areas/', { name: 'cursor-area' }));
  const people = [await newEnrollee(server, { areas: ['default'] }), await newEnrollee(server, { areas: ['default'] })];
  for (const person of people) await ok(admin.post('/punches/manual/', { enrollee: person.id, at: '2026-01-08T08:00:00Z', reason: 'forgot' }));
  // A second consent (a new notice), so the person's consents have a second page.
  await ok(admin.post(`/enrollees/${people[0]!.id}/consent/`, { version: 'v2', method: 'paper' }));
  personId = people[0]!.id;
  for (const _ of [1, 2]) await admin.post(`/webhooks/${hooks[0]!.id}/test/`);
  for (const [i, date] of ['2026-01-06', '2026-01-07'].entries()) {
    await ok(admin.post('/holidays/', { date, name: `Day ${i}` }));
    await ok(admin.post('/leaves/', { enrollee: people[i]!.id, from: date, to: date, kind: 'sick' }));
    await ok(admin.post('/pay-periods/', { from: date, to: date }));
    await ok(admin.post('/weekends/', { area: 'default', days: [0, 6], from: date }));
  }
  for (const name of ['early', 'late']) await ok(admin.post('/work-schedules/', { name, start: '08:00', end: '16:00' }));
  for (const person of people) await ok(admin.post('/shift-assignments/', { schedule: 'early', enrollee: person.id, from: '2026-01-05' }));
  for (const name of ['payroll', 'reports']) await ok(admin.post('/api-keys/', { name, role: 'viewer' }));
  for (const name of ['ada', 'bo']) await ok(admin.post('/users/', { name, username: name, role: 'viewer', areas: [] }));
  const agents = [await createAgent(server, 'desk one'), await createAgent(server, 'desk two')];
  for (const [i, person] of people.entries()) await startSession(server, person.id, agents[i]!.id, [1]);
  for (const kind of ['info', 'reboot']) await ok(admin.post(`/devices/${SERIALS[0]}/commands/`, { kind }));

  known = {
    serial: SERIALS[0]!,
    id: hooks[0]!.id!,
    name: 'default',
    area: 'default',
    from: '2026-01-05',
    to: '2026-01-31',
  };
  lists = operationsOf(await fetchDocument(server)).filter(
    (op) => op.method === 'get' && (op.operation.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor'),
  );
  for (const op of lists) {
    const first = await admin.get(`${urlOf(op)}&limit=1`);
    if (first.status !== 200) throw new Error(`${op.path} answered ${first.status}: ${JSON.stringify(first.body)}`);
    if (first.body.next_cursor) ownCursor.set(op.path, first.body.next_cursor);
  }
}, 60_000);

afterAll(async () => {
  await server.close();
});

/** The URL of a list, its path and required query parameters filled with real values, ready for `&cursor=`. */
function urlOf(op: DocumentedOperation): string {
  const fill = (name: string) => {
    const value = name === 'id' && op.path.includes('/enrollees/{id}/') ? personId : known[name];
    if (value === undefined) throw new Error(`no known value for ${name} in ${op.path}`);
    return encodeURIComponent(value);
  };
  const path = op.path.slice(API.length).replace(/\{(\w+)\}/g, (_, name: string) => fill(name));
  const required = (op.operation.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${fill(p.name)}`);
  return `${path}?${required.join('&')}`;
}

describe('every paged list takes its own cursor and no other', () => {
  test('nearly every list has a second page here, so its own cursor is tried', () => {
    expect(lists.length).toBeGreaterThan(20);
    const without = lists.map((op) => op.path.slice(API.length)).filter((path) => !ownCursor.has(`${API}${path}`));
    // A terminal's users and anomalies need a terminal's own uploads: those lists are only tried with the others' cursors.
    expect(without.sort()).toEqual(['/anomalies/', '/devices/{serial}/users/']);
    expect(ownCursor.size).toBe(new Set(ownCursor.values()).size);
  });

  test('its own next_cursor reads the next page', async () => {
    for (const op of lists) {
      const own = ownCursor.get(op.path);
      if (!own) continue;
      const next = await server.admin.get(`${urlOf(op)}&limit=1&cursor=${encodeURIComponent(own)}`);
      expect([op.path, next.status, next.body.results?.length]).toEqual([op.path, 200, 1]);
    }
  });

  test("another list's cursor and a made-up one are 400 invalid_cursor", async () => {
    const refused: string[] = [];
    for (const op of lists) {
      const foreign = [...ownCursor].filter(([path]) => path !== op.path).map(([, c]) => c);
      for (const cursor of [...foreign, ...MADE_UP]) {
        const answer = await server.admin.get(`${urlOf(op)}&cursor=${encodeURIComponent(cursor)}`);
        if (answer.status !== 400 || answer.body.error?.code !== 'invalid_cursor') refused.push(`${op.path} took ${cursor}: ${answer.status}`);
      }
    }
    expect(refused).toEqual([]);
  });

  test('areas/ pages by name with limit and cursor', async () => {
    const first = await server.admin.get('/areas/?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.results.map((a: { name: string }) => a.name)).toEqual(['cursor-area']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await server.admin.get(`/areas/?limit=1&cursor=${first.body.next_cursor}`);
    expect([second.body.results.map((a: { name: string }) => a.name), second.body.next_cursor]).toEqual([['default'], null]);
    const garbage = (await server.admin.get('/areas/?cursor=garbage')).body.error;
    expect(garbage.code).toBe('invalid_cursor');
    // It says what to do (a cursor kept across an upgrade is refused so).
    expect(garbage.message).toContain('start the walk again');
  });
});
