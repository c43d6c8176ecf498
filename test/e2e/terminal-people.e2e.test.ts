/**
 * People on terminals (issue 23): drift repaired by the hourly reconciliation, punches of a user
 * adopted after their pay period was locked, and cards (an administrator's card wins; cards are
 * normalised and unique as a terminal reads them).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { clientAs, startTestServer, type TestServer } from '../support/harness';
import { deviceLog, drain } from '../support/terminals';

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

describe('cards', () => {
  const userLine = (pin: string, card: string) =>
    `USER PIN=${pin}\tName=At the menu\tPri=0\tPasswd=\tCard=${card}\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;
  let c1: SimulatedTerminal;
  let c2: SimulatedTerminal;
  const changed: { enrollee: string; device: { serial_number: string }; by: string }[] = [];

  beforeAll(async () => {
    s.fpa.events.on('enrollee_card_changed', (e) => void changed.push(e));
    c1 = await online('CARD1');
    c2 = await online('CARD2');
  });

  test('an administrator’s card wins: a terminal’s other card is not taken, and that terminal gets the card back', async () => {
    const p = await person('C-1', 'Cam One', false);
    expect((await s.admin.patch(`/enrollees/${p.id}/`, { card: '777' })).status).toBe(200);
    await drain(c1);
    await drain(c2);
    expect((await c1.post('cdata', { table: 'OPERLOG', Stamp: '10' }, userLine(p.device_pin, '5555'))).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${p.id}/`)).body.card).toBe('777');
    const back = await drain(c1);
    expect(back.filter((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${p.device_pin}\t`))).toHaveLength(1);
    expect(back.find((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${p.device_pin}\t`))).toContain('\tCard=777\t');
    expect(c1.users.get(p.device_pin)?.fields.Card).toBe('777');
    expect((await drain(c2)).join('\n')).not.toContain('5555');
    expect(changed.filter((e) => e.enrollee === p.id)).toHaveLength(0);
  });

  test('a terminal fills the card of a person who has none: an event, and the other terminals get it', async () => {
    const p = await person('C-2', 'Cam Two', false);
    await drain(c1);
    await drain(c2);
    expect((await c1.post('cdata', { table: 'OPERLOG', Stamp: '11' }, userLine(p.device_pin, '0004321'))).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${p.id}/`)).body.card).toBe('4321');
    const event = changed.find((e) => e.enrollee === p.id);
    expect(event).toMatchObject({ enrollee: p.id, device: { serial_number: 'CARD1' }, by: 'device:CARD1' });
    // As a value (the event's ids are random hex, which may hold those digits by chance).
    expect(JSON.stringify(event)).not.toMatch(/[":=]0*4321\b/);
    const toC2 = await drain(c2);
    expect(toC2.find((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${p.device_pin}\t`))).toContain('\tCard=4321\t');
    expect((await drain(c1)).filter((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${p.device_pin}\t`))).toHaveLength(0);
  });

  test('a card held by someone outside a limited caller’s areas is a 409 that does not name them', async () => {
    const south = await person('C-S1', 'Sam South', false, { areas: ['south'] });
    const north = await person('C-N1', 'Nell North', false, { areas: ['north'] });
    expect((await s.admin.patch(`/enrollees/${south.id}/`, { card: '5555' })).status).toBe(200);
    const hr = await clientAs(s, 'hr', ['north']);
    const refused = await hr.patch(`/enrollees/${north.id}/`, { card: '5555' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toEqual({ card: '5555' });
    expect(JSON.stringify(refused.body)).not.toContain(south.id);
    // An HR officer of south, who may see Sam, is told who holds it.
    const southHr = await clientAs(s, 'hr', ['south']);
    const named = await southHr.patch(`/enrollees/${(await person('C-S2', 'Sue South', false, { areas: ['south'] })).id}/`, { card: '5555' });
    expect(named.body.error).toMatchObject({ code: 'conflict', details: { card: '5555', enrollee: south.id } });
  });

  test('cards are normalised and unique as a terminal reads them; out of range is 422, a duplicate 409', async () => {
    const a = await person('C-3', 'Cam Three', false);
    const b = await person('C-4', 'Cam Four', false);
    const set = await s.admin.patch(`/enrollees/${a.id}/`, { card: '01234' });
    expect(set.status).toBe(200);
    expect(set.body.card).toBe('1234');
    for (const same of ['1234', '0001234']) {
      const dup = await s.admin.patch(`/enrollees/${b.id}/`, { card: same });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toMatchObject({ code: 'conflict', details: { card: '1234', enrollee: a.id } });
    }
    for (const [card, reason] of [
      ['4294967296', 'out_of_range'],
      ['12345678901234567890', 'out_of_range'],
      ['0', 'zero'],
    ]) {
      const bad = await s.admin.patch(`/enrollees/${b.id}/`, { card });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toMatchObject({ code: 'invalid_card', details: { field: 'card', reason, max: 4294967295 } });
    }
    const top = await s.admin.patch(`/enrollees/${b.id}/`, { card: '4294967295' });
    expect(top.status).toBe(200);
    expect((await s.admin.get(`/enrollees/${b.id}/`)).body.card).toBe('4294967295');
    // A terminal cannot give a person a card another one holds, however it writes it.
    const c = await person('C-5', 'Cam Five', false);
    await drain(c1);
    expect((await c1.post('cdata', { table: 'OPERLOG', Stamp: '13' }, userLine(c.device_pin, '01234'))).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${c.id}/`)).body.card).toBeNull();
    expect((await deviceLog(s.fpa, 'CARD1', 'card_conflict')).map((e) => e.details)).toEqual([{ pin: c.device_pin, enrollee: c.id }]);
  });

  test('a card that is not decimal digits is 422 invalid_card not_digits, one past what a terminal holds out_of_range; not a string (or unprintable, or past 200 characters) is 400', async () => {
    const p = await person('C-6', 'Cam Six', false);
    for (const card of ['12a', ' 12', '12 ', '+12', '-5', '', '1.5', '0x1F', '[15CD5B07]']) {
      const bad = await s.admin.patch(`/enrollees/${p.id}/`, { card });
      expect({ card, status: bad.status }).toEqual({ card, status: 422 });
      expect(bad.body.error).toMatchObject({ code: 'invalid_card', details: { field: 'card', reason: 'not_digits', max: 4294967295 } });
    }
    const long = await s.admin.patch(`/enrollees/${p.id}/`, { card: '1'.repeat(25) });
    expect(long.status).toBe(422);
    expect(long.body.error).toMatchObject({ code: 'invalid_card', details: { field: 'card', reason: 'out_of_range' } });
    for (const card of [12, true, ['12'], '\t12', '1'.repeat(201)]) {
      const malformed = await s.admin.patch(`/enrollees/${p.id}/`, { card });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('validation_error');
    }
    expect((await s.admin.get(`/enrollees/${p.id}/`)).body.card).toBeNull();
    expect((await s.admin.patch(`/enrollees/${p.id}/`, { card: '0042' })).body.card).toBe('42');
  });

  test('a card another enrollee holds, given to a user at the menu: not taken, and the terminal gets the user back without it', async () => {
    // E-005 is the terminal's user 007 with badge 31777, adopted; E-004 has no card.
    const t = await online('NEW02', { existingUsers: [{ pin: '007', name: 'Menu Seven', card: '0031777' }] });
    await s.admin.post('/employees/', { id: 'E-005', name: 'Eve Five' });
    const e5 = await s.admin.post('/devices/NEW02/users/007/adopt/', { employee: 'E-005' });
    expect(e5.status).toBe(201);
    expect(e5.body.card).toBe('31777');
    const e4 = await person('E-004', 'Eve Four', false);
    await drain(t);
    expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '14' }, userLine(e4.device_pin, '0031777'))).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${e4.id}/`)).body.card).toBeNull();
    const back = (await drain(t)).filter((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${e4.device_pin}\t`));
    expect(back).toEqual([expect.stringContaining('\tCard=\t')]);
    expect(t.users.get(e4.device_pin)?.fields.Card).toBe('');
    const listed = (await s.admin.get('/devices/NEW02/users/')).body.results as { pin: string; card: string | null }[];
    expect(listed.filter((u) => u.card === '31777').map((u) => u.pin)).toEqual(['007']);
    expect(listed.find((u) => u.pin === e4.device_pin)).toMatchObject({ card: null });
    const log = await deviceLog(s.fpa, 'NEW02', 'card_conflict');
    expect(log.map((e) => e.details)).toEqual([{ pin: e4.device_pin, enrollee: e4.id }]);
    expect(log[0]?.message).toContain('sent back without it');
    expect(changed.filter((e) => e.enrollee === e4.id)).toHaveLength(0);
  });

  test('a terminal reporting a card it cannot hold: logged and left out, the rest of the user kept', async () => {
    const body = `${userLine('88', '99999999999')}${userLine('89', '[15CD5B07]')}${userLine('90', '0')}`;
    expect((await c1.post('cdata', { table: 'OPERLOG', Stamp: '12' }, body)).body).toBe('OK:3');
    const users = (await s.admin.get('/devices/CARD1/users/')).body as
      | { pin: string; name: string; card: string | null }[]
      | { results: { pin: string; card: string | null }[] };
    const list = Array.isArray(users) ? users : users.results;
    expect(list.find((u) => u.pin === '88')).toMatchObject({ pin: '88', card: null });
    expect(list.find((u) => u.pin === '89')).toMatchObject({ card: '123456789' });
    expect(list.find((u) => u.pin === '90')).toMatchObject({ card: null });
    const log = await deviceLog(s.fpa, 'CARD1', 'card_invalid');
    expect(log.map((e) => e.details)).toEqual([{ pin: '88', reason: 'out_of_range' }]);
    expect(JSON.stringify(log)).not.toContain('99999999999');
  });
});
