/**
 * A query parameter out of its range is named in the error, as any other refused parameter is:
 * for EVERY GET of the served document, each integer query parameter (`limit` of every list, of
 * `events/`, of the board and the report previews) below its minimum or above its maximum is 400
 * `validation_error` with `details: { in: "query", errors: [{ path: "/<name>", message }] }`.
 * A required parameter (or body field) left out is `required`, and of a required range's dates
 * the one that does not exist is named alone.
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
    { in: 'query', errors: [{ path: '/limit', message: 'must be a whole number from 1 to 1000' }] },
  ]);
  expect((await server.admin.get('/events/?limit=5000')).body.error.details).toEqual({
    in: 'query',
    errors: [{ path: '/limit', message: 'must be a whole number from 1 to 1000' }],
  });
});

test('a cursor that is not a sequence is told in words, not by its pattern: events/?after=abc', async () => {
  for (const path of ['/events/?after=abc', '/events/?after=-1', '/events/?order=desc&before=x1']) {
    const res = await server.admin.get(path);
    const [error] = res.body.error.details.errors as { path: string; message: string }[];
    expect({ path, status: res.status, message: error?.message }).toEqual({ path, status: 400, message: 'must be a whole number of up to 15 digits' });
  }
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

test('a date of a required range that does not exist is named alone: export.csv?from=2026-02-30 says from, not "from and to"', async () => {
  const error = async (query: string) => {
    const res = await server.admin.get(`/attendance-days/export.csv?${query}`);
    return [res.status, res.body.error.code, res.body.error.message, res.body.error.details];
  };
  expect(await error('from=2026-02-30&to=2026-03-01')).toEqual([
    400,
    'validation_error',
    'from must be a date (YYYY-MM-DD)',
    { field: 'from', value: '2026-02-30' },
  ]);
  expect(await error('from=2026-03-01&to=2026-04-31')).toEqual([
    400,
    'validation_error',
    'to must be a date (YYYY-MM-DD)',
    { field: 'to', value: '2026-04-31' },
  ]);
  // Both wrong: both named, each with its value.
  expect(await error('from=2026-02-30&to=2026-04-31')).toEqual([
    400,
    'validation_error',
    'from and to must be dates (YYYY-MM-DD)',
    { fields: ['from', 'to'], from: '2026-02-30', to: '2026-04-31' },
  ]);
  // The same on the other routes that take a required range.
  expect((await server.admin.get('/attendance-summary/?from=2026-03-01&to=2026-02-29')).body.error.details).toEqual({ field: 'to', value: '2026-02-29' });
  expect((await server.admin.post('/pay-periods/', { from: '2026-02-30', to: '2026-03-31' })).body.error.details).toEqual({
    field: 'from',
    value: '2026-02-30',
  });
});

test('a required query parameter or body field left out says "required", not "Expected string"', async () => {
  const missing = await server.admin.get('/attendance-days/export.csv?from=2026-03-01');
  expect([missing.status, missing.body.error.message, missing.body.error.details]).toEqual([
    400,
    'query parameter "to" is required',
    { in: 'query', errors: [{ path: '/to', message: 'required' }] },
  ]);
  const both = await server.admin.get('/attendance-summary/');
  expect(both.body.error.details.errors).toEqual([
    { path: '/from', message: 'required' },
    { path: '/to', message: 'required' },
  ]);
  const body = await server.admin.post('/pay-periods/', { from: '2026-03-01' });
  expect([body.status, body.body.error.message, body.body.error.details]).toEqual([
    400,
    'field "to" is required',
    { in: 'body', errors: [{ path: '/to', message: 'required' }] },
  ]);
  // A value of the wrong shape is still said as TypeBox says it.
  expect((await server.admin.post('/pay-periods/', { from: '2026-03-01', to: 5 })).body.error.details.errors).toEqual([
    { path: '/to', message: 'Expected string' },
  ]);
});

test('on every route, each required query parameter left out is named as required', async () => {
  const tried: string[] = [];
  const unnamed: unknown[] = [];
  for (const op of operations) {
    const params = op.operation.parameters ?? [];
    for (const p of params.filter((q) => q.in === 'query' && q.required)) {
      const path = op.path.slice(API.length).replace(/\{(\w+)\}/g, (_, n: string) => plausible(params.find((q) => q.name === n && q.in === 'path')!));
      const others = params.filter((q) => q.in === 'query' && q.required && q.name !== p.name).map((q) => `${q.name}=${plausible(q)}`);
      const url = `${path}${others.length > 0 ? `?${others.join('&')}` : ''}`;
      tried.push(url);
      const res = await server.admin.get(url);
      const details = res.body?.error?.details;
      if (res.status !== 400 || details?.in !== 'query' || JSON.stringify(details?.errors) !== JSON.stringify([{ path: `/${p.name}`, message: 'required' }]))
        unnamed.push([url, res.status, details]);
    }
  }
  expect(tried.length).toBeGreaterThan(10);
  expect(unnamed).toEqual([]);
});
