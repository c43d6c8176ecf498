/**
 * People on terminals (issue 23): drift repaired by the hourly reconciliation, punches of a user
 * adopted after their pay period was locked, and cards (an administrator's card wins; cards are
 * normalised and unique as a terminal reads them).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let s: TestServer;

async function person(id: string, name: string, consent = true, extra: Record<string, unknown> = {}) {
  await s.admin.post('/employees/', { id, name });
  const e = await s.admin.post('/enrollees/', { employee: id, ...extra });
  if (consent) await s.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' });
  return e.body as { id: string; device_pin: string; card: string | null };
}

async function online(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  const t = new SimulatedTerminal({ url: s.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  await s.admin.post(`/devices/${sn}/approve/`);
  await drain(t);
  return t;
}

/** The terminal tells its counts again (INFO of the first poll after a handshake). */
async function reportCounts(t: SimulatedTerminal) {
  await t.handshake();
  await t.poll();
}

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.close();
});

describe('reconciliation acts on what sync_check knows', () => {
  test('a user deleted at the terminal’s menu is put back, with their templates, by the hourly job', async () => {
    const t = await online('DRIFT1');
    const a = await person('D-1', 'Dee One');
    const b = await person('D-2', 'Dee Two');
    await s.fpa.service.storeTemplate(b.id, 2, new Uint8Array(Buffer.from(syntheticTemplate(160), 'base64')), { algorithmVersion: '10', by: 'test' });
    await drain(t);
    expect(t.users.has(a.device_pin) && t.users.has(b.device_pin)).toBe(true);
    expect(t.templates.has(`${b.device_pin}:2`)).toBe(true);
    // Deleted at the menu: the user and their fingerprint are gone from the terminal.
    t.users.delete(b.device_pin);
    t.templates.delete(`${b.device_pin}:2`);
    await reportCounts(t);
    const before = (await s.admin.get('/devices/DRIFT1/')).body.sync_check;
    expect(before.users).toEqual({ expected: 2, reported: 1 });
    const run = await s.admin.post('/jobs/reconcile-devices/run/');
    expect(run.status).toBe(200);
    expect(run.body.result.queued).toBeGreaterThan(0);
    const sent = await drain(t);
    expect(sent[0]).toStartWith('DATA QUERY USERINFO');
    expect(sent.some((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${b.device_pin}\tName=Dee Two`))).toBe(true);
    expect(sent.some((c) => c.startsWith(`DATA UPDATE FINGERTMP PIN=${b.device_pin}\tFID=2`))).toBe(true);
    // Only the missing one: the user still there is not sent again.
    expect(sent.some((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${a.device_pin}`))).toBe(false);
    expect(t.users.has(b.device_pin)).toBe(true);
    expect(t.templates.has(`${b.device_pin}:2`)).toBe(true);
    await reportCounts(t);
    expect((await s.admin.get('/devices/DRIFT1/')).body.sync_check.in_sync).toBe(true);
    // In line again: the next run asks nothing.
    expect((await s.admin.post('/jobs/reconcile-devices/run/')).body.result.queued).toBe(0);
  });
});

describe('a terminal user adopted after their pay period was locked', () => {
  test('their punches become theirs flagged after_lock; the locked days do not change', async () => {
    const t = await online('LOCK1', { existingUsers: [{ pin: '55', name: 'Menu 55' }] });
    await t.punch([
      { pin: '55', localTime: '2026-01-05 09:00:00' },
      { pin: '55', localTime: '2026-01-05 17:00:00' },
    ]);
    const period = await s.admin.post('/pay-periods/', { from: '2026-01-01', to: '2026-01-15' });
    expect(period.status).toBe(201);
    expect((await s.admin.post(`/pay-periods/${period.body.id}/lock/`)).body).toMatchObject({ locked: true });
    const before = await s.admin.get('/attendance-days/?from=2026-01-05&to=2026-01-05');
    await s.admin.post('/employees/', { id: 'L-55', name: 'Lee Late' });
    const adopted = await s.admin.post('/devices/LOCK1/users/55/adopt/', { employee: 'L-55' });
    expect(adopted.status).toBe(201);
    const punches = (await s.admin.get('/punches/?employee=L-55')).body.results as { flags: string[]; enrollee: string }[];
    expect(punches).toHaveLength(2);
    for (const p of punches) expect(p.flags).toEqual(['after_lock']);
    expect((await s.admin.get('/attendance-days/?from=2026-01-05&to=2026-01-05')).body).toEqual(before.body);
    expect((await s.admin.get('/attendance-days/?employee=L-55&from=2026-01-05&to=2026-01-05')).body.results).toEqual([]);
  });
});
