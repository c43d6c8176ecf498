/**
 * A query parameter a route does not take is refused, never dropped (README "HTTP contract"):
 * `reports/summary.csv?…&employee=E02` answered EVERY person's rows to a clerk who believed she
 * had one person's file, and a caller limited to north asking `attendance-days/?area=south` got
 * its north rows without a word. Now it is 400 `validation_error` naming the parameter and the
 * parameters the route takes, before any byte of a file; every parameter the OpenAPI document
 * lists is still taken, on every GET of the administrators' API. The terminals' ADMS endpoints
 * (firmware sends all sorts of parameters) and the single sign-on callback (the provider's) stay
 * open.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { approvedTerminal, newEnrollee } from '../support/agents';
import { linesAt, terminal, upload } from '../support/attendance';
import { clientAs, startTestServer, type TestServer } from '../support/harness';
import { API, type DocumentedOperation, fetchDocument, operationsOf, type Parameter } from '../support/openapi';

let server: TestServer;
let operations: DocumentedOperation[];
let known: Record<string, string>;

const ZONE = 'Europe/Berlin';
const OCTOBER = 'from=2026-10-01&to=2026-10-31';

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE });
  for (const name of ['north', 'south', 'plant']) expect((await server.admin.post('/areas/', { name })).status).toBe(201);
  await approvedTerminal(server, 'QUERY001', { areas: ['north'] });
  // Two people of two areas, each with a day of October: the summary has a row of each.
  for (const [id, area, serial] of [
    ['E01', 'north', 'QUERY011'],
    ['E02', 'south', 'QUERY012'],
  ] as const) {
    expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
    const person = await server.admin.post('/enrollees/', { employee: id, areas: [area] });
    expect(person.status).toBe(201);
    const device = await terminal(server, serial, [area]);
    await upload(server, device, linesAt(ZONE, person.body.device_pin, '2026-10-05 08:00:00', '2026-10-05 16:30:00'));
  }
  const person = await newEnrollee(server, { areas: ['north'] });
  known = { serial: 'QUERY001', sn: 'QUERY001', area: 'north', name: 'north', employee: 'E01', enrollee: person.id, date: '2026-10-01' };
  operations = operationsOf(await fetchDocument(server)).filter(
    (op) => op.method === 'get' && !op.operation['x-websocket'] && (op.operation.security ?? []).some((s) => 'AdminJWT' in s),
  );
});
afterAll(async () => {
  await server.close();
});

/** The refusal of an unknown parameter, as every route answers it. */
function refusal(names: string[], takes: string[]) {
  return {
    code: 'validation_error',
    message: `unknown query parameter${names.length > 1 ? 's' : ''} ${names.map((n) => `"${n}"`).join(', ')}; ${takes.length ? `this route takes ${takes.join(', ')}` : 'this route takes none'}`,
    details: { in: 'query', errors: names.map((n) => ({ path: `/${n}`, message: 'Unknown parameter' })), parameters: takes },
  };
}

const errorOf = (body: { error: Record<string, unknown> }) => ({ code: body.error.code, message: body.error.message, details: body.error.details });

describe('the examples of the report', () => {
  test('the summary and the exceptions of a month: both people, and employee=E02 is refused before any byte of the file', async () => {
    const all = await fetch(`${server.url}${API}/reports/summary.csv?${OCTOBER}`, { headers: server.admin.headers });
    expect(all.status).toBe(200);
    const csv = await all.text();
    expect(csv).toContain('E01');
    expect(csv).toContain('E02');

    for (const report of ['summary', 'exceptions']) {
      const res = await fetch(`${server.url}${API}/reports/${report}.csv?${OCTOBER}&employee=E02`, { headers: server.admin.headers });
      expect([res.status, res.headers.get('content-type'), res.headers.get('content-disposition')]).toEqual([400, 'application/json', null]);
      const takes = report === 'summary' ? ['from', 'to', 'area', 'bom'] : ['from', 'to', 'area', 'kind', 'bom'];
      expect(errorOf(await res.json())).toEqual(refusal(['employee'], takes));
    }
  });

  test('attendance-summary/ takes no area; attendance-days/ takes no foo', async () => {
    expect((await server.admin.get(`/attendance-summary/?${OCTOBER}`)).status).toBe(200);
    const summary = await server.admin.get(`/attendance-summary/?${OCTOBER}&area=plant`);
    expect(summary.status).toBe(400);
    expect(summary.body.error.details).toMatchObject({ in: 'query', errors: [{ path: '/area', message: 'Unknown parameter' }] });

    expect((await server.admin.get(`/attendance-days/?${OCTOBER}`)).status).toBe(200);
    const days = await server.admin.get(`/attendance-days/?${OCTOBER}&foo=1`);
    expect(days.status).toBe(400);
    expect(days.body.error.details.errors).toEqual([{ path: '/foo', message: 'Unknown parameter' }]);
    expect(days.body.error.details.parameters).toContain('employee');
  });

  test('a caller limited to north asking attendance-days/?area=south is refused, not answered its north rows', async () => {
    const north = await clientAs(server, 'hr', ['north']);
    expect((await north.get(`/attendance-days/?${OCTOBER}`)).status).toBe(200);
    const res = await north.get(`/attendance-days/?${OCTOBER}&area=south`);
    expect([res.status, res.body.error.code, res.body.error.details.errors]).toEqual([
      400,
      'validation_error',
      [{ path: '/area', message: 'Unknown parameter' }],
    ]);
    expect(res.body.error.message).toStartWith('unknown query parameter "area"; this route takes ');
  });

  test('several unknown parameters are all named; a route without parameters says it takes none', async () => {
    const res = await server.admin.get(`/attendance-summary/?${OCTOBER}&area=plant&foo=1`);
    expect(errorOf(res.body)).toEqual(refusal(['area', 'foo'], ['from', 'to', 'employee', 'limit', 'cursor']));

    const device = await server.admin.get('/devices/QUERY001/?verbose=1');
    expect([device.status, errorOf(device.body)]).toEqual([400, refusal(['verbose'], [])]);
    expect((await server.admin.get('/devices/QUERY001/')).status).toBe(200);
  });

  // The last of two silently won: punches/?employee=E01&employee=E02 answered E02's punches.
  test('a parameter given twice is refused, naming it; each given once is taken', async () => {
    for (const query of ['employee=E01&employee=E02', 'limit=5&from=2026-10-01&limit=7']) {
      const res = await server.admin.get(`/punches/?${query}`);
      const name = query.split('=')[0]!;
      expect([res.status, errorOf(res.body)]).toEqual([
        400,
        {
          code: 'validation_error',
          message: `query parameter "${name}" given more than once; give it once`,
          details: { in: 'query', errors: [{ path: `/${name}`, message: 'given more than once' }] },
        },
      ]);
    }
    expect((await server.admin.get('/punches/?employee=E01&limit=5')).status).toBe(200);
    const anonymous = await fetch(`${server.url}${API}/punches/?employee=E01&employee=E02`);
    expect(anonymous.status).toBe(401);
  });

  test('an anonymous caller is still 401, whatever its query; an unknown path still 404', async () => {
    const anonymous = await fetch(`${server.url}${API}/reports/summary.csv?${OCTOBER}&employee=E02`);
    expect(anonymous.status).toBe(401);
    const nowhere = await server.admin.get('/no-such-thing/?foo=1');
    expect([nowhere.status, nowhere.body.error.code]).toEqual([404, 'not_found']);
  });

  test('a stream refuses a parameter it does not take before the upgrade; its own (after, access_token) open it', async () => {
    const handshake = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };
    const token = (server.admin.headers.authorization ?? '').replace('Bearer ', '');
    const refused = await fetch(`${server.url}${API}/punches/stream/?after=0&employee=E02&access_token=${token}`, { headers: handshake });
    expect(refused.status).toBe(400);
    expect(errorOf(await refused.json())).toEqual(refusal(['employee'], ['after', 'access_token']));
    const opened = await fetch(`${server.url}${API}/punches/stream/?after=0&access_token=${token}`, { headers: handshake });
    expect(opened.status).toBe(101);
  });

  test('the agent API takes no query parameters (SPEC.md: none), and refuses one', async () => {
    const made = await server.admin.post('/enrollment-agents/', { name: 'desk', algorithm_version: '10' });
    expect(made.status).toBe(201);
    const agent = { authorization: `Agent ${made.body.key}` };
    expect((await fetch(`${server.url}${API}/agent/me/`, { headers: agent })).status).toBe(200);
    const res = await fetch(`${server.url}${API}/agent/me/?verbose=1`, { headers: agent });
    expect([res.status, errorOf(await res.json())]).toEqual([400, refusal(['verbose'], [])]);
  });

  test('the single sign-on callback takes whatever the provider adds: not refused for its query', async () => {
    const res = await fetch(`${server.url}/console/sso/callback?code=abc&state=made-up&iss=https%3A%2F%2Fidp.example&session_state=s1`, { redirect: 'manual' });
    // Not this browser's trip (no cookie): back to the sign-in page, which says why.
    expect([res.status, res.headers.get('location')]).toEqual([303, '../?sso_error=failed']);
  });

  test("the terminals' ADMS endpoints stay open: a parameter firmware adds is no refusal", async () => {
    const res = await fetch(`${server.url}/iclock/cdata?SN=QUERY001&options=all&pushver=2.4.1&language=69&DeviceType=att&firmware_extra=1`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('GET OPTION FROM: QUERY001');
  });
});

/** A value of the kind a parameter takes: the known rows' where the name says, else one of its schema. */
function sample(p: Parameter): string {
  const named = known[p.name];
  if (named !== undefined) return named;
  const schema = p.schema;
  const choices = (schema.enum ??
    (Array.isArray(schema.anyOf) ? schema.anyOf.flatMap((s: { const?: unknown }) => (s.const === undefined ? [] : [s.const])) : [])) as unknown[];
  if (choices.length > 0) return String(choices[0]);
  if (schema.type === 'integer') return String(schema.minimum ?? 1);
  if (schema.type === 'boolean') return 'true';
  if (schema.format === 'uuid') return '0b0e7c55-1d2e-4f3a-9b8c-7d6e5f4a3b2c';
  if (p.name === 'from' || p.name === 'to') return '2026-10-01';
  if (typeof schema.pattern === 'string' && schema.pattern.startsWith('^\\d{4}-')) return '2026-10-01';
  if (typeof schema.pattern === 'string' && schema.pattern.startsWith('^\\d{1,')) return '1';
  if (typeof schema.pattern === 'string' && schema.pattern.startsWith('^(late|')) return 'late';
  return 'x';
}

/** The route with its path and required query parameters filled, and the parameters given. */
function urlOf(op: DocumentedOperation, given: Record<string, string>): string {
  const params = op.operation.parameters ?? [];
  const path = op.path
    .slice(API.length)
    .replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(sample(params.find((p) => p.name === n && p.in === 'path')!)));
  const query = new URLSearchParams();
  for (const p of params) if (p.in === 'query' && p.required) query.set(p.name, sample(p));
  for (const [name, value] of Object.entries(given)) query.set(name, value);
  return `${path}?${query}`;
}

const queryOf = (op: DocumentedOperation) => (op.operation.parameters ?? []).filter((p) => p.in === 'query');
const refusedAsUnknown = (body: unknown) => JSON.stringify(body ?? null).includes('"Unknown parameter"');

describe('every GET of the administrators’ API', () => {
  test('takes every query parameter its OpenAPI document lists, each sent on its own', async () => {
    const tried: string[] = [];
    const refused: unknown[] = [];
    for (const op of operations) {
      for (const p of queryOf(op)) {
        const url = urlOf(op, { [p.name]: sample(p) });
        tried.push(url);
        const res = await server.admin.get(url);
        if (res.status >= 500 || refusedAsUnknown(res.body)) refused.push([url, res.status, res.body]);
      }
    }
    // The lists' limit and cursor at least, the reports' filters, the exports' bom.
    expect(tried.length).toBeGreaterThan(150);
    expect(refused).toEqual([]);
  });

  test('refuses a parameter it does not take, naming it and exactly the parameters the document lists', async () => {
    const wrong: unknown[] = [];
    for (const op of operations) {
      const url = urlOf(op, { not_a_parameter: '1' });
      const res = await server.admin.get(url);
      const takes = queryOf(op).map((p) => p.name);
      const details = res.body?.error?.details;
      const named = details?.errors?.some((e: { path: string; message: string }) => e.path === '/not_a_parameter' && e.message === 'Unknown parameter');
      if (res.status !== 400 || !named || JSON.stringify([...(details.parameters ?? [])].sort()) !== JSON.stringify([...takes].sort())) {
        wrong.push([url, res.status, details]);
      }
    }
    expect(operations.length).toBeGreaterThan(60);
    expect(wrong).toEqual([]);
  });
});
