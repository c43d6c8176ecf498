/**
 * A host's calendar provider that fails (its leave or roster system is down) never stops
 * attendance capture: through the real server and a terminal speaking ADMS, punches are stored
 * and acknowledged, a manual punch too; the `while_on_leave` check of the punches stored
 * meanwhile is skipped and said so in the log (once per outage, without the provider's words);
 * attendance days wait for the calendar (never computed without it) and follow once it answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/platform/log';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let front: SimulatedTerminal;
let person: { id: string; device_pin: string };
const hostLeaves: { enrollee: string; from: string; to: string; kind: string }[] = [];
let hostDown = false;
let providerCalls = 0;
const lines: { level: string; msg: string; [field: string]: unknown }[] = [];

const NOW = Date.parse('2026-12-01T12:00:00Z');

beforeAll(async () => {
  const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)));
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => NOW }, logger });
  server.fpa.service.addCalendarProvider(({ enrollees, from, to }) => {
    providerCalls++;
    if (hostDown) throw new Error('host calendar down: secret-payload-1234');
    return { leaves: hostLeaves.filter((l) => enrollees.includes(l.enrollee) && l.from <= to && from <= l.to) };
  });
  expect((await server.admin.post('/employees/', { id: 'E-ann', name: 'Ann' })).status).toBe(201);
  const created = await server.admin.post('/enrollees/', { employee: 'E-ann', areas: ['hq'] });
  expect(created.status).toBe(201);
  person = created.body;
  front = new SimulatedTerminal({ url: server.url, sn: 'FRONT001' });
  await front.handshake();
  await front.postOptions();
  expect((await server.admin.post(`/devices/${front.sn}/approve/`, { areas: ['hq'] })).status).toBe(200);
  await drain(front);
});
afterAll(async () => {
  await server.close();
});

async function punches(): Promise<{ id: string; punched_at: string; flags: string[]; source: string }[]> {
  const res = await server.admin.get('/punches/?employee=E-ann&limit=500');
  expect(res.status).toBe(200);
  return res.body.results;
}

describe('a host calendar provider that fails', () => {
  test('the ordinary flow: with the provider answering, a punch on the host leave is flagged and its day computed', async () => {
    hostLeaves.push({ enrollee: person.id, from: '2026-11-23', to: '2026-11-23', kind: 'annual' });
    expect((await front.punch([{ pin: person.device_pin, localTime: '2026-11-23 09:00:00', verifyType: 1 }])).body).toBe('OK:1');
    const [stored] = await punches();
    expect(stored!.flags).toEqual(['while_on_leave']);
    const days = await server.admin.get('/attendance-days/?from=2026-11-23&to=2026-11-23&employee=E-ann');
    expect(days.status).toBe(200);
    expect(days.body.results.length).toBe(1);
  });

  test('while it fails: punches are stored and acknowledged, the leave check is skipped and logged once, days wait', async () => {
    hostDown = true;
    lines.length = 0;
    const calls = providerCalls;
    expect((await front.punch([{ pin: person.device_pin, localTime: '2026-11-24 09:00:00', verifyType: 1 }])).body).toBe('OK:1');
    expect((await front.punch([{ pin: person.device_pin, localTime: '2026-11-24 17:00:00', verifyType: 1 }])).body).toBe('OK:1');
    const manual = await server.fpa.service.recordManualPunch(person.id, { at: '2026-11-25T09:00:00Z', reason: 'forgot', by: 'hr' });
    expect(manual).toBeDefined();
    const stored = await punches();
    expect(stored.map((p) => p.punched_at).sort()).toEqual([
      '2026-11-23T09:00:00.000Z',
      '2026-11-24T09:00:00.000Z',
      '2026-11-24T17:00:00.000Z',
      '2026-11-25T09:00:00.000Z',
    ]);
    expect(providerCalls).toBeGreaterThan(calls);
    // Said once for the outage, whatever the number of punches and follower steps; the provider's own words are not logged.
    await Bun.sleep(2_500);
    const warnings = lines.filter((l) => l.level === 'warn').map((l) => l.msg);
    expect(warnings.filter((m) => m.startsWith("the host's calendar provider failed")).length).toBe(1);
    expect(warnings.filter((m) => m.startsWith('log follower attendance waits')).length).toBe(1);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('secret-payload-1234');
    // The days are not computed without the host's calendar: a read that needs them says so.
    const days = await server.admin.get('/attendance-days/?from=2026-11-24&to=2026-11-25&employee=E-ann');
    expect(days.status).toBe(503);
    expect(days.body.error.code).toBe('unavailable');
    expect(days.body.error.message).toContain('calendar');
  });

  test('once it answers again: the days follow, the recovery is said with the dates left unchecked, calendarChanged checks them', async () => {
    hostLeaves.push({ enrollee: person.id, from: '2026-11-24', to: '2026-11-24', kind: 'sick' });
    hostDown = false;
    const days = await server.admin.get('/attendance-days/?from=2026-11-24&to=2026-11-25&employee=E-ann');
    expect(days.status).toBe(200);
    expect(days.body.results.map((d: { date: string }) => d.date).sort()).toEqual(['2026-11-24', '2026-11-25']);
    const recovered = lines.find((l) => l.level === 'info' && /answers again/.test(l.msg));
    expect(recovered).toBeDefined();
    expect(recovered!.unchecked_from).toBe('2026-11-24');
    expect(recovered!.unchecked_to).toBe('2026-11-25');
    // Stored without the check: the sick leave of the 24th is found once the host says its calendar changed.
    expect((await punches()).filter((p) => p.flags.includes('while_on_leave')).length).toBe(1);
    await server.fpa.service.calendarChanged({ from: '2026-11-24', to: '2026-11-25' }, [person.id]);
    const found = await server.admin.get('/anomalies/?from=2026-11-20&to=2026-11-30&employee=E-ann');
    expect(found.status).toBe(200);
    expect(found.body.results.map((a: { date: string; details: unknown }) => [a.date, a.details]).sort()).toEqual([
      ['2026-11-23', { leave: 'annual' }],
      ['2026-11-24', { leave: 'sick' }],
      ['2026-11-24', { leave: 'sick' }],
    ]);
  });
});
