/**
 * A badge an administrator removed stays removed: a terminal that still holds it (it was offline
 * while the change expired, or someone badged it in at its menu) is corrected, sent the person
 * without the card, and the card never comes back to the person or the rest of the fleet. Until
 * an administrator sets a card again, when a terminal may again be told nothing new.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { auditLog } from '../../src/app/schema';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceLog, drain } from '../support/terminals';

const DAY = 86_400_000;
const clock = runningClock();
let s: TestServer;
let gate1: SimulatedTerminal;
let gate2: SimulatedTerminal;
const changed: { enrollee: string }[] = [];

async function person(id: string) {
  await s.admin.post('/employees/', { id, name: `Person ${id}` });
  return (await s.admin.post('/enrollees/', { employee: id })).body as { id: string; device_pin: string };
}

async function online(sn: string) {
  const t = new SimulatedTerminal({ url: s.url, sn, now: clock.now });
  await t.handshake();
  await t.postOptions();
  await s.admin.post(`/devices/${sn}/approve/`);
  await drain(t);
  return t;
}

const userLine = (pin: string, card: string) =>
  `USER PIN=${pin}\tName=At the menu\tPri=0\tPasswd=\tCard=${card}\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;
const recordOf = (sent: string[], pin: string) => sent.filter((c) => c.startsWith(`DATA UPDATE USERINFO PIN=${pin}\t`));

beforeAll(async () => {
  s = await startTestServer({ COMMAND_EXPIRY: '1d' }, { clock });
  s.fpa.events.on('enrollee_card_changed', (e) => void changed.push(e));
  gate1 = await online('GATE1');
  gate2 = await online('GATE2');
});
afterAll(async () => {
  await s.close();
});

describe('a card an administrator removed', () => {
  test('does not come back from a terminal that was offline while the removal expired: that terminal is corrected', async () => {
    const p = await person('R-1');
    expect((await s.admin.patch(`/enrollees/${p.id}/`, { card: '4242' })).status).toBe(200);
    await drain(gate1);
    await drain(gate2);
    expect(gate2.users.get(p.device_pin)?.fields.Card).toBe('4242');

    expect((await s.admin.patch(`/enrollees/${p.id}/`, { card: null })).body.card).toBeNull();
    expect(recordOf(await drain(gate1), p.device_pin)[0]).toContain('\tCard=\t');
    // GATE2 is away longer than commands live: the removal expires unsent.
    clock.advance(2 * DAY);
    expect((await s.admin.post('/jobs/expire-commands/run/')).status).toBe(200);
    const back = await drain(gate2);
    expect(back[0]).toBe('DATA QUERY USERINFO');
    // It answered with the card it still holds: not the person's again, and it is sent the person without it.
    expect((await s.admin.get(`/enrollees/${p.id}/`)).body.card).toBeNull();
    expect(recordOf(back, p.device_pin).at(-1)).toContain('\tCard=\t');
    expect(gate2.users.get(p.device_pin)?.fields.Card).toBe('');
    expect((await deviceLog(s.fpa, 'GATE2', 'card_removed')).map((e) => e.details)).toEqual([{ pin: p.device_pin, enrollee: p.id }]);
    expect((await drain(gate1)).join('\n')).not.toContain('4242');
    expect(changed.filter((e) => e.enrollee === p.id)).toHaveLength(0);
    const audited = await s.fpa.db.orm.select().from(auditLog).where(eq(auditLog.targetId, p.id));
    expect(audited.map((a) => a.action)).not.toContain('enrollee.card_filled');
  });

  test('is not filled by any card a terminal reports, until an administrator sets one again', async () => {
    const p = await person('R-2');
    expect((await s.admin.patch(`/enrollees/${p.id}/`, { card: '888' })).status).toBe(200);
    expect((await s.admin.patch(`/enrollees/${p.id}/`, { card: null })).status).toBe(200);
    await drain(gate1);
    await drain(gate2);
    expect((await gate1.post('cdata', { table: 'OPERLOG', Stamp: '20' }, userLine(p.device_pin, '777'))).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${p.id}/`)).body.card).toBeNull();
    expect(recordOf(await drain(gate1), p.device_pin)).toEqual([expect.stringContaining('\tCard=\t')]);
    expect((await drain(gate2)).join('\n')).not.toContain('777');

    // An administrator's card ends it: that card wins as any administrator's card does.
    expect((await s.admin.patch(`/enrollees/${p.id}/`, { card: '999' })).status).toBe(200);
    await drain(gate1);
    expect((await gate1.post('cdata', { table: 'OPERLOG', Stamp: '21' }, userLine(p.device_pin, '777'))).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${p.id}/`)).body.card).toBe('999');
    expect(recordOf(await drain(gate1), p.device_pin)[0]).toContain('\tCard=999\t');
    expect(changed.filter((e) => e.enrollee === p.id)).toHaveLength(0);
  });

  test('a person who never had a card still takes the one a terminal reports', async () => {
    const p = await person('R-3');
    await drain(gate1);
    expect((await gate1.post('cdata', { table: 'OPERLOG', Stamp: '22' }, userLine(p.device_pin, '31337'))).body).toBe('OK:1');
    expect((await s.admin.get(`/enrollees/${p.id}/`)).body.card).toBe('31337');
    expect(changed.filter((e) => e.enrollee === p.id)).toHaveLength(1);
  });
});
