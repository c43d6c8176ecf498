/**
 * Every list's cursor, as a client could tamper with it, through the real server: for EVERY
 * GET operation of the served document that takes `cursor`, any cursor string (random text,
 * and well-formed cursors of the wrong arity, the wrong kinds, floats, huge or negative
 * numbers) is answered 200 or 400 (`invalid_cursor`, or `validation_error` for one the query's
 * schema refuses), never a 5xx. Path and required query parameters are real, so the cursor is
 * what is checked.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { approvedTerminal, newEnrollee } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';
import { API, type DocumentedOperation, fetchDocument, operationsOf } from '../support/openapi';

const SERIAL = 'CURSOR01';
let server: TestServer;
let lists: DocumentedOperation[];
let known: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_WORKER: false });
  await approvedTerminal(server, SERIAL);
  const person = await newEnrollee(server);
  const webhook = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/cursors' });
  const area = await server.admin.post('/areas/', { name: 'cursor-area' });
  if (webhook.status !== 201 || area.status !== 201) throw new Error('setup failed');
  // Two of everything the lists page over (audit entries, webhook deliveries), so a next cursor exists.
  for (const _ of [1, 2]) await server.admin.post(`/webhooks/${webhook.body.id}/test/`);
  known = { serial: SERIAL, id: webhook.body.id, enrollee: person.id, name: 'cursor-area', area: 'cursor-area', from: '2026-01-05', to: '2026-01-11' };
  lists = operationsOf(await fetchDocument(server)).filter(
    (op) => op.method === 'get' && (op.operation.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor'),
  );
});
afterAll(async () => {
  await server.close();
});

const fill = (op: DocumentedOperation, name: string) => {
  // `{id}` is the webhook's, but a person's under enrollees/ (their consents).
  const value = name === 'id' && op.path.includes('/enrollees/{id}') ? known.enrollee : known[name];
  if (value === undefined) throw new Error(`no known value for ${name} in ${op.path}`);
  return encodeURIComponent(value);
};

/** The URL of a list, its path and required query parameters filled with real values, ready for `&cursor=`. */
function urlOf(op: DocumentedOperation): string {
  const path = op.path.slice(API.length).replace(/\{(\w+)\}/g, (_, name: string) => fill(op, name));
  const required = (op.operation.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${fill(op, p.name)}`);
  return `${path}?${required.join('&')}`;
}

const encode = (values: unknown) => Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
const key = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 60), 1e300, '', 'x', '1', '2099-01-01', 'a|b', '1|'),
);
/** Any cursor: well-formed ones of every arity and kind (what a tamperer makes), and any text. */
const cursor = fc.oneof(
  { arbitrary: fc.array(key, { maxLength: 4 }).map(encode), weight: 4 },
  { arbitrary: fc.json().map((j) => Buffer.from(j).toString('base64url')), weight: 1 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
);

describe('any cursor on any list', () => {
  test('is answered 200 or 400, never a 5xx', async () => {
    expect(lists.length).toBeGreaterThan(20);
    for (const op of lists) {
      const url = urlOf(op);
      expect([url, (await server.admin.get(url)).status]).toEqual([url, 200]);
      await fc.assert(
        fc.asyncProperty(cursor, async (c) => {
          const answer = await server.admin.get(`${url}&cursor=${encodeURIComponent(c)}`);
          // A cursor the query's schema refuses (empty, too long) is a validation_error.
          if (answer.status !== 200)
            expect([url, c, answer.status, answer.body.error?.code]).toEqual([url, c, 400, expect.stringMatching(/^(invalid_cursor|validation_error)$/)]);
        }),
        { numRuns: 40 },
      );
    }
  }, 120_000);
});
