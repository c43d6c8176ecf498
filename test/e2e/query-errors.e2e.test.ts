/**
 * A query parameter out of its range is named in the error, as any other refused parameter is:
 * for EVERY GET of the served document, each integer query parameter (`limit` of every list, of
 * `events/`, of the board and the report previews) below its minimum or above its maximum is 400
 * `validation_error` with `details: { in: "query", errors: [{ path: "/<name>", message }] }`.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/harness';
import { API, type DocumentedOperation, fetchDocument, operationsOf, type Parameter } from '../support/openapi';

let server: TestServer;
let operations: DocumentedOperation[];

beforeAll(async () => {
  server = await startTestServer();
  operations = operationsOf(await fetchDocument(server)).filter((op) => op.method === 'get');
});
afterAll(async () => {
  await server.close();
});

const integerQuery = (op: DocumentedOperation) =>
  (op.operation.parameters ?? []).filter((p) => p.in === 'query' && p.schema.type === 'integer' && typeof p.schema.minimum === 'number');

/** A value a parameter takes (the others of the query, path parameters): only the one tried is wrong. */
function plausible(p: Parameter): string {
  if (p.schema.format === 'uuid') return '0b0e7c55-1d2e-4f3a-9b8c-7d6e5f4a3b2c';
  if (p.name === 'from' || p.name === 'to' || p.name === 'date') return '2026-11-23';
  return 'x';
}

function urlOf(op: DocumentedOperation, name: string, value: number): string {
  const params = op.operation.parameters ?? [];
  const path = op.path.slice(API.length).replace(/\{(\w+)\}/g, (_, n: string) => plausible(params.find((p) => p.name === n && p.in === 'path')!));
  const required = params.filter((p) => p.in === 'query' && p.required && p.name !== name).map((p) => `${p.name}=${plausible(p)}`);
  return `${path}?${[...required, `${name}=${value}`].join('&')}`;
}

test('an integer query parameter out of range is named: events/?limit=0 says /limit', async () => {
  const events = await server.admin.get('/events/?limit=0');
  expect([events.status, events.body.error.code, events.body.error.details]).toEqual([
    400,
    'validation_error',
    { in: 'query', errors: [{ path: '/limit', message: 'Expected integer to be greater or equal to 1' }] },
  ]);
  expect((await server.admin.get('/events/?limit=5000')).body.error.details).toEqual({
    in: 'query',
    errors: [{ path: '/limit', message: 'Expected integer to be less or equal to 1000' }],
  });
});

test('on every route, every integer query parameter below its minimum or above its maximum', async () => {
  const tried: string[] = [];
  const unnamed: unknown[] = [];
  for (const op of operations) {
    for (const p of integerQuery(op)) {
      const values = [(p.schema.minimum as number) - 1, ...(typeof p.schema.maximum === 'number' ? [(p.schema.maximum as number) + 1] : [])];
      for (const value of values) {
        const url = urlOf(op, p.name, value);
        tried.push(url);
        const res = await server.admin.get(url);
        const details = res.body?.error?.details;
        if (res.status !== 400 || details?.in !== 'query' || details?.errors?.[0]?.path !== `/${p.name}`) unnamed.push([url, res.status, details]);
      }
    }
  }
  // Every list's limit at least.
  expect(tried.length).toBeGreaterThan(40);
  expect(unnamed).toEqual([]);
});
