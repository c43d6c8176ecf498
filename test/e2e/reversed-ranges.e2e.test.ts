/**
 * A reversed range answers alike on every route (README "HTTP contract"): for EVERY GET of the
 * served document that takes both `from` and `to`, `to` before `from` is 400 `validation_error`
 * naming both, never an empty 200; the same dates the right way round are answered.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { approvedTerminal, newEnrollee } from '../support/agents';
import { startTestServer, type TestServer } from '../support/harness';
import { API, type DocumentedOperation, fetchDocument, operationsOf } from '../support/openapi';

let server: TestServer;
let ranged: DocumentedOperation[];
let known: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'Europe/Berlin' });
  await approvedTerminal(server, 'RANGE001', { areas: ['plant'] });
  const person = await newEnrollee(server, { areas: ['plant'] });
  const employee = (await server.admin.get(`/enrollees/${person.id}/`)).body.employee as string;
  known = { serial: 'RANGE001', area: 'plant', employee, enrollee: person.id };
  ranged = operationsOf(await fetchDocument(server)).filter((op) => {
    const query = (op.operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    return op.method === 'get' && query.includes('from') && query.includes('to');
  });
});
afterAll(async () => {
  await server.close();
});

/** Query parameters a route needs one of, though none is required on its own. */
const ONE_OF: Record<string, string> = { '/calendar/': 'enrollee' };

/** The route with its path and other required query parameters filled with real values, and the range. */
function urlOf(op: DocumentedOperation, from: string, to: string): string {
  const fill = (name: string) => {
    const value = known[name];
    if (value === undefined) throw new Error(`no known value for ${name} in ${op.path}`);
    return encodeURIComponent(value);
  };
  const path = op.path.slice(API.length).replace(/\{(\w+)\}/g, (_, name: string) => fill(name));
  const required = (op.operation.parameters ?? [])
    .filter((p) => p.in === 'query' && p.required && p.name !== 'from' && p.name !== 'to')
    .map((p) => `${p.name}=${fill(p.name)}`);
  const oneOf = ONE_OF[op.path.slice(API.length)];
  if (oneOf) required.push(`${oneOf}=${fill(oneOf)}`);
  return `${path}?${[...required, `from=${from}`, `to=${to}`].join('&')}`;
}

test('to before from is 400 validation_error naming both, on every route that takes a range', async () => {
  const paths = ranged.map((op) => op.path.slice(API.length));
  // The lists, the exports and the reports: every one of them is checked here.
  for (const path of [
    '/punches/',
    '/attendance-days/',
    '/attendance-days/export.csv/',
    '/attendance-summary/',
    '/reports/summary.pdf/',
    '/audit-log/',
    '/anomalies/',
    '/holidays/',
  ])
    expect(paths).toContain(path);
  const answers: unknown[] = [];
  for (const op of ranged) {
    const path = op.path.slice(API.length);
    const reversed = await server.admin.get(urlOf(op, '2026-11-24', '2026-11-23'));
    answers.push([path, reversed.status, reversed.body?.error?.code, reversed.body?.error?.details?.fields]);
    const ordered = await server.admin.get(urlOf(op, '2026-11-23', '2026-11-24'));
    expect([path, ordered.status]).toEqual([path, 200]);
  }
  expect(answers).toEqual(ranged.map((op) => [op.path.slice(API.length), 400, 'validation_error', ['from', 'to']]));
  // Instants too, where a route takes them: the range ends before it starts.
  for (const path of ['/punches/', '/audit-log/']) {
    const reversed = await server.admin.get(`${path}?from=2026-11-24T10:00:00Z&to=2026-11-24T09:59:59Z`);
    expect([path, reversed.status, reversed.body.error?.details?.fields]).toEqual([path, 400, ['from', 'to']]);
    expect((await server.admin.get(`${path}?from=2026-11-24T10:00:00Z&to=2026-11-24T10:00:00Z`)).status).toBe(200);
  }
});

test('to before from is refused in the same words where a range is written: leave, pay period, shift, re-upload, absences job', async () => {
  const words = 'to (2026-11-23) is before from (2026-11-24)';
  const range = { from: '2026-11-24', to: '2026-11-23' };
  expect((await server.admin.post('/work-schedules/', { name: 'Day', start: '09:00', end: '17:00' })).status).toBe(201);
  const answers = [
    await server.admin.post('/leaves/', { enrollee: known.enrollee, kind: 'vacation', ...range }),
    await server.admin.post('/pay-periods/', range),
    await server.admin.post('/shift-assignments/', { schedule: 'Day', enrollee: known.enrollee, ...range }),
    await server.admin.post('/devices/RANGE001/commands/', { kind: 'reupload_logs', ...range }),
    await server.admin.post('/jobs/generate-absences/run/', { params: range }),
  ];
  expect(answers.map((a) => [a.status, a.body.error?.code, a.body.error?.message])).toEqual(answers.map(() => [400, 'validation_error', words]));
});
