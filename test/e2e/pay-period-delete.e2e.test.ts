/**
 * `DELETE pay-periods/{id}/`, through the real server: a period added with a wrong date (it stood
 * in the way of the right one, "overlaps another pay period", and nothing removed it) is deleted
 * and audited, and the right one can be added; a locked period is 409 `conflict` and stays (a lock
 * is final); an unknown id is 404. Who may: those who add periods (hr and up, limited to no area).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { clientAs, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;

async function period(from: string, to: string): Promise<string> {
  const res = await server.admin.post('/pay-periods/', { from, to });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('deleting a pay period', () => {
  test('one added with a wrong date is deleted, audited, and no longer stands in the way of the right one', async () => {
    const wrong = await period('2026-10-01', '2062-10-31');
    const blocked = await server.admin.post('/pay-periods/', { from: '2026-10-01', to: '2026-10-31' });
    expect(blocked.status).toBe(409);
    const deleted = await server.admin.delete(`/pay-periods/${wrong}/`);
    expect(deleted.status).toBe(204);
    expect((await server.admin.get(`/pay-periods/${wrong}/`)).status).toBe(404);
    expect((await server.admin.get('/pay-periods/')).body.results).toEqual([]);
    const audit = (await server.admin.get('/audit-log/?action=pay_period.deleted')).body.results;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: 'admin@example.com',
      target_type: 'pay_period',
      target_id: wrong,
      details: { from: '2026-10-01', to: '2062-10-31' },
    });
    await period('2026-10-01', '2026-10-31');
  });

  test('a locked one is 409 and stays: a lock is final', async () => {
    const locked = await period('2025-01-01', '2025-01-31');
    expect((await server.admin.post(`/pay-periods/${locked}/lock/`)).status).toBe(200);
    const refused = await server.admin.delete(`/pay-periods/${locked}/`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { pay_period: locked } });
    expect((await server.admin.get(`/pay-periods/${locked}/`)).body).toMatchObject({ id: locked, locked: true });
  });

  test('an unknown or malformed id', async () => {
    expect((await server.admin.delete('/pay-periods/00000000-0000-4000-8000-000000000000/')).status).toBe(404);
    expect((await server.admin.delete('/pay-periods/not-an-id/')).status).toBe(400);
  });
});

describe('who may delete one', () => {
  test('hr of every area may; hr limited to an area, managers, viewers and installers may not', async () => {
    const open = await period('2027-01-01', '2027-01-31');
    for (const [role, areas] of [
      ['hr', ['north']],
      ['manager', undefined],
      ['viewer', undefined],
      ['installer', undefined],
    ] as const) {
      const refused = await (await clientAs(server, role, areas ? [...areas] : undefined)).delete(`/pay-periods/${open}/`);
      expect({ role, areas, status: refused.status }).toEqual({ role, areas, status: 403 });
    }
    expect((await (await clientAs(server, 'hr')).delete(`/pay-periods/${open}/`)).status).toBe(204);
  });
});
