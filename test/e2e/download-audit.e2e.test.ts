/**
 * Reads of people's data in bulk are in the audit log (README "People who sign in"): each
 * download of the payroll export, a report (CSV, Excel, PDF, a timesheet among them) or a deletion
 * proof (JSON, PDF) writes one entry naming the caller, what was downloaded and with which
 * parameters; one about a person is found by the person's id. A refused download, a list read and
 * a report's preview write none. The entry is written before the file streams: a write made while
 * an export is being read is not held up by it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type ApiClient, clientAs, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let hr: ApiClient;
let person: { id: string };
let withdrawn: { id: string };

interface Entry {
  actor: string;
  actor_kind: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
}

const HR = 'hr.north@example.com';

beforeAll(async () => {
  server = await startTestServer();
  hr = await clientAs(server, 'hr', ['north'], HR);
  for (const [id, name] of [
    ['DA-1', 'Dana Audit'],
    ['DA-2', 'Dirk Audit'],
  ] as const) {
    expect((await server.admin.post('/employees/', { id, name })).status).toBe(201);
  }
  person = (await server.admin.post('/enrollees/', { employee: 'DA-1', areas: ['north'] })).body;
  withdrawn = (await server.admin.post('/enrollees/', { employee: 'DA-2', areas: ['north'] })).body;
  expect((await server.admin.post('/punches/manual/', { enrollee: person.id, at: '2026-03-02T08:00:00Z', reason: 'forgot' })).status).toBe(201);
  expect((await server.admin.post(`/enrollees/${withdrawn.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  expect((await server.admin.delete(`/enrollees/${withdrawn.id}/consent/`)).status).toBe(200);
});

afterAll(async () => {
  await server.close();
});

/** A download by `client`, read to its end. */
async function download(client: ApiClient, path: string): Promise<number> {
  const res = await fetch(`${client.base}${path}`, { headers: client.headers });
  await res.arrayBuffer();
  return res.status;
}

async function entries(query: string): Promise<Entry[]> {
  return (await server.admin.get(`/audit-log/?${query}&limit=200`)).body.results as Entry[];
}

describe('downloads of people’s data are audited', () => {
  test('the export, each report and the proofs: one entry each, the caller, the target and the parameters', async () => {
    const before = (await entries('action=export.downloaded')).length;
    expect(await download(hr, '/attendance-days/export.csv?from=2026-03-01&to=2026-03-31&employee=DA-1&bom=true')).toBe(200);
    expect(await download(hr, '/reports/timesheet.pdf?from=2026-03-01&to=2026-03-31&employee=DA-1')).toBe(200);
    expect(await download(hr, '/reports/summary.xlsx?from=2026-03-01&to=2026-03-31&area=north')).toBe(200);
    expect(await download(hr, '/reports/exceptions.csv?from=2026-03-01&to=2026-03-31&kind=late')).toBe(200);
    expect(await download(hr, '/reports/daily.csv')).toBe(200);
    const exports = (await entries('action=export.downloaded')).slice(0, 5).reverse();
    expect(exports.length - before).toBe(5);
    for (const e of exports) expect([e.actor, e.actor_kind, e.target_type]).toEqual([HR, 'token', 'report']);
    expect(exports.map((e) => [e.target_id, e.details])).toEqual([
      ['attendance-days/export.csv', { from: '2026-03-01', to: '2026-03-31', employee: 'DA-1', enrollee: person.id }],
      ['reports/timesheet.pdf', { from: '2026-03-01', to: '2026-03-31', employee: 'DA-1', enrollee: person.id }],
      ['reports/summary.xlsx', { from: '2026-03-01', to: '2026-03-31', area: 'north' }],
      ['reports/exceptions.csv', { from: '2026-03-01', to: '2026-03-31', kind: 'late' }],
      // The date the daily report was read for, though none was given.
      ['reports/daily.csv', { date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) }],
    ]);

    expect(await download(hr, `/enrollees/${withdrawn.id}/deletion-proof/`)).toBe(200);
    expect(await download(hr, `/enrollees/${withdrawn.id}/deletion-proof.pdf`)).toBe(200);
    const proofs = (await entries('action=proof.downloaded')).reverse();
    expect(proofs.map((e) => [e.actor, e.target_type, e.target_id, e.details])).toEqual([
      [HR, 'enrollee', withdrawn.id, { format: 'json' }],
      [HR, 'enrollee', withdrawn.id, { format: 'pdf' }],
    ]);
  });

  test('a person’s id finds the downloads about them', async () => {
    const about = (await entries(`target=${person.id}`)).filter((e) => e.action.endsWith('.downloaded'));
    expect(about.map((e) => e.target_id).sort()).toEqual(['attendance-days/export.csv', 'reports/timesheet.pdf']);
    const proof = (await entries(`target=${withdrawn.id}`)).filter((e) => e.action === 'proof.downloaded');
    expect(proof).toHaveLength(2);
  });

  test('a refused download, a list read and a preview write no entry', async () => {
    const count = async () => (await entries('action=export.downloaded')).length + (await entries('action=proof.downloaded')).length;
    const before = await count();
    const south = await clientAs(server, 'hr', ['south']);
    expect(await download(south, '/attendance-days/export.csv?from=2026-03-01&to=2026-03-31&employee=DA-1')).toBe(404);
    expect(await download(south, '/reports/timesheet.csv?from=2026-03-01&to=2026-03-31&employee=DA-1')).toBe(404);
    expect(await download(south, `/enrollees/${withdrawn.id}/deletion-proof/`)).toBe(404);
    expect(await download(hr, `/enrollees/${person.id}/deletion-proof/`)).toBe(404);
    expect((await hr.get('/attendance-days/?from=2026-03-01&to=2026-03-31')).status).toBe(200);
    expect((await hr.get('/punches/?employee=DA-1')).status).toBe(200);
    expect((await hr.get('/reports/timesheet/preview?from=2026-03-01&to=2026-03-31&employee=DA-1')).status).toBe(200);
    // A HEAD answers the headers only: nothing was downloaded.
    for (const path of [
      '/reports/summary.csv?from=2026-03-01&to=2026-03-31',
      '/attendance-days/export.csv?from=2026-03-01&to=2026-03-31',
      `/enrollees/${withdrawn.id}/deletion-proof.pdf`,
    ]) {
      const head = await fetch(`${hr.base}${path}`, { method: 'HEAD', headers: hr.headers });
      expect(head.status).toBe(200);
    }
    expect(await count()).toBe(before);
  });

  test('a write made while an export is being read is not held up by it', async () => {
    const res = await fetch(`${hr.base}/attendance-days/export.csv?from=2026-03-01&to=2026-03-31`, { headers: hr.headers });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    // The export is open (its entry written): a write goes through at once.
    const started = performance.now();
    expect((await server.admin.patch(`/enrollees/${person.id}/`, { display_name: 'Dana Audit-Lund' })).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5000);
    await reader.cancel();
  });
});
