/**
 * Areas with time zones of their own, through the real server (README "Time zones"): a company
 * in London (ATTENDANCE_TIME_ZONE, the area `london` has no zone), Mumbai (`mumbai`,
 * Asia/Kolkata) and New York (`newyork`, America/New_York), each with a terminal keeping its own
 * zone, and a 09:00–17:00 schedule for everyone. Each person is judged where they work: their
 * shift's wall times, the date a punch counts for, holidays, the Today board's today, the
 * absences job's yesterday, the export's wall times, a manual punch's wall time, a move between
 * zones, a change of an area's zone (never inside a locked period), the lock itself, anomalies, and the
 * weeks where New York has changed its clocks and London not yet (8 and 29 March 2026).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { peopleIn, zonedTerminals } from '../support/zoned-company';

const LONDON = 'Europe/London';
const MUMBAI = 'Asia/Kolkata';
const NEW_YORK = 'America/New_York';
let now = Date.parse('2026-03-01T12:00:00Z');
let server: TestServer;
const terminals: Record<string, SimulatedTerminal> = {};
const people: Record<string, { id: string; pin: string }> = {};

interface Day {
  employee: string;
  date: string;
  status: string;
  first_in: string | null;
  late_seconds: number;
  flags: string[];
}

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ path, status: 201, body: null });
  return res.body;
}

/** A punch at a terminal, at its own wall time (`at`: the instant, to move the clock past it). */
async function punch(sn: string, employee: string, localTime: string, at: string) {
  now = Math.max(now, Date.parse(at) + 30_000);
  // Handshaken again first: a terminal runs on the offset it was told last (New York's changed on 8 March).
  await terminals[sn]!.handshake();
  expect((await terminals[sn]!.punch([{ pin: people[employee]!.pin, localTime }])).status).toBe(200);
}

async function day(employee: string, date: string): Promise<Day | undefined> {
  const res = await server.admin.get<{ results: Day[] }>(`/attendance-days/?employee=${employee}&from=${date}&to=${date}`);
  expect(res.status).toBe(200);
  return res.body.results[0];
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: LONDON }, { clock: { now: () => now } });
  expect((await created('/areas/', { name: 'london' })).time_zone).toBeNull();
  // Spelt as the tz database does, whatever the case given.
  expect((await created('/areas/', { name: 'mumbai', time_zone: 'asia/kolkata' })).time_zone).toBe(MUMBAI);
  expect((await created('/areas/', { name: 'newyork', time_zone: NEW_YORK })).people_in_several_zones).toBe(0);
  // Entered first with their zone, as an installer does: their punches are read in it from the first.
  Object.assign(
    terminals,
    await zonedTerminals(
      server,
      [
        ['LON1', LONDON, 'london'],
        ['MUM1', MUMBAI, 'mumbai'],
        ['NYC1', NEW_YORK, 'newyork'],
      ],
      () => now,
    ),
  );
  Object.assign(
    people,
    await peopleIn(server, [
      ['L-1', 'london'],
      ['M-1', 'mumbai'],
      ['M-2', 'mumbai'],
      ['N-1', 'newyork'],
      ['N-2', 'newyork'],
      ['X-1', 'london'],
    ]),
  );
  await created('/work-schedules/', { name: 'Day', start: '09:00', end: '17:00', grace_in: '0s', grace_out: '0s', weekdays: [1, 2, 3, 4, 5] });
  await created('/work-schedules/', { name: 'Night', start: '22:00', end: '06:00', grace_in: '0s', grace_out: '0s', weekdays: [1, 2, 3, 4, 5] });
  for (const area of ['london', 'mumbai', 'newyork']) await created('/shift-assignments/', { schedule: 'Day', area, from: '2026-03-01' });
  await created('/shift-assignments/', { schedule: 'Night', enrollee: people['N-2']!.id, from: '2026-03-01' });
});
afterAll(async () => {
  await server?.close();
});

describe('an area’s time zone', () => {
  test('shown, validated as a terminal’s (a fixed offset refused), audited', async () => {
    const bad = await server.admin.post('/areas/', { name: 'offset', time_zone: '+05:30' });
    expect({ status: bad.status, field: bad.body.error?.details?.field }).toEqual({ status: 400, field: 'time_zone' });
    expect((await server.admin.get('/areas/mumbai/')).body.time_zone).toBe(MUMBAI);
    expect((await server.admin.patch('/areas/london/', { time_zone: 'Mars/Olympus' })).status).toBe(400);
    const audit = await server.admin.get<{ results: { action: string; target_id: string; details: unknown }[] }>('/audit-log/?action=area.created');
    expect(audit.body.results.find((r) => r.target_id === 'mumbai')?.details).toEqual({ time_zone: MUMBAI });
  });

  test('a 09:00 shift is 09:00 where the person works: 09:05 in Mumbai is 5 minutes late on its IST date, as 09:05 in London is there', async () => {
    await punch('LON1', 'L-1', '2026-03-09 09:05:00', '2026-03-09T09:05:00Z');
    await punch('MUM1', 'M-1', '2026-03-09 09:05:00', '2026-03-09T03:35:00Z');
    await punch('NYC1', 'N-1', '2026-03-09 09:00:00', '2026-03-09T13:00:00Z');
    await punch('LON1', 'X-1', '2026-03-09 09:00:00', '2026-03-09T09:00:00Z');
    expect(await day('M-1', '2026-03-09')).toMatchObject({ first_in: '2026-03-09T03:35:00.000Z', late_seconds: 300, status: 'incomplete' });
    expect(await day('L-1', '2026-03-09')).toMatchObject({ first_in: '2026-03-09T09:05:00.000Z', late_seconds: 300 });
    // New York on summer time since 8 March: 09:00 there is 13:00Z, on time.
    expect(await day('N-1', '2026-03-09')).toMatchObject({ first_in: '2026-03-09T13:00:00.000Z', late_seconds: 0 });
  });

  test('DST: New York’s 09:00 is 14:00Z on Friday 6 March and 13:00Z on Monday 9 March, while London’s stays 09:00Z', async () => {
    const starts = async (employee: string) => {
      const res = await server.admin.get<{ results: { date: string; schedule: { expected_start: string } | null }[] }>(
        `/calendar/?employee=${employee}&from=2026-03-06&to=2026-03-09`,
      );
      return Object.fromEntries(res.body.results.filter((r) => r.schedule).map((r) => [r.date, r.schedule!.expected_start]));
    };
    expect(await starts('N-1')).toEqual({ '2026-03-06': '2026-03-06T14:00:00.000Z', '2026-03-09': '2026-03-09T13:00:00.000Z' });
    expect(await starts('L-1')).toEqual({ '2026-03-06': '2026-03-06T09:00:00.000Z', '2026-03-09': '2026-03-09T09:00:00.000Z' });
    expect(await starts('M-1')).toEqual({ '2026-03-06': '2026-03-06T03:30:00.000Z', '2026-03-09': '2026-03-09T03:30:00.000Z' });
  });

  test('a manual punch at the wall time 2026-03-09 09:00 for a Mumbai person is 03:30Z, its local time Mumbai’s', async () => {
    const res = await server.admin.post('/punches/manual/', { enrollee: people['M-2']!.id, at: '2026-03-09 09:00', reason: 'forgot to punch' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ punched_at: '2026-03-09T03:30:00.000Z', local_time: '2026-03-09 09:00:00' });
    const imported = await server.admin.post('/punches/import/', [{ employee: 'M-2', at: '2026-03-09 17:00' }]);
    expect(imported.body).toMatchObject({ imported: 1, errors: [] });
    expect(await day('M-2', '2026-03-09')).toMatchObject({ first_in: '2026-03-09T03:30:00.000Z', status: 'present', late_seconds: 0 });
  });

  test('a Mumbai holiday is Mumbai’s date: a punch at 00:30 IST on it (19:00Z the day before, London’s 9th) counts for it', async () => {
    await created('/holidays/', { date: '2026-03-10', name: 'Mumbai holiday', areas: ['mumbai'] });
    await punch('MUM1', 'M-1', '2026-03-10 00:30:00', '2026-03-09T19:00:00Z');
    expect(await day('M-1', '2026-03-10')).toMatchObject({ first_in: '2026-03-09T19:00:00.000Z', flags: expect.arrayContaining(['worked_on_holiday']) });
    // The 9th keeps its own punch alone.
    expect(await day('M-1', '2026-03-09')).toMatchObject({ first_in: '2026-03-09T03:35:00.000Z' });
  });

  test('a person moved from london to mumbai keeps their old days and is judged in Mumbai from the move’s first date on', async () => {
    now = Date.parse('2026-03-10T12:00:00Z');
    const moved = await server.admin.patch(`/enrollees/${people['X-1']!.id}/`, { areas: ['mumbai'] });
    expect(moved.status).toBe(200);
    await punch('MUM1', 'X-1', '2026-03-11 09:05:00', '2026-03-11T03:35:00Z');
    // 09:05 in Mumbai (03:35Z: early for London's 09:00).
    expect(await day('X-1', '2026-03-11')).toMatchObject({ first_in: '2026-03-11T03:35:00.000Z', late_seconds: 300 });
    // The 9th stays London's: 09:00Z on time (14:30 in Mumbai would be late).
    expect(await day('X-1', '2026-03-09')).toMatchObject({ first_in: '2026-03-09T09:00:00.000Z', late_seconds: 0 });
  });

  test('a New York night shift’s punch after London’s midnight counts for the New York date it started', async () => {
    await punch('NYC1', 'N-2', '2026-03-10 22:00:00', '2026-03-11T02:00:00Z');
    await punch('NYC1', 'N-2', '2026-03-11 06:00:00', '2026-03-11T10:00:00Z');
    expect(await day('N-2', '2026-03-10')).toMatchObject({
      first_in: '2026-03-11T02:00:00.000Z',
      status: 'present',
      late_seconds: 0,
    });
    expect(await day('N-2', '2026-03-11')).toBeUndefined();
  });

  test('the Today board: with area=mumbai, Mumbai’s today while London is still on the day before; without, each person on their own today', async () => {
    await punch('MUM1', 'M-1', '2026-03-11 09:05:00', '2026-03-11T03:35:00Z');
    now = Date.parse('2026-03-11T20:00:00Z');
    const mumbai = await server.admin.get<{ date: string; people: { employee: string; date?: string; status: string }[] }>('/attendance/today/?area=mumbai');
    expect(mumbai.status).toBe(200);
    expect(mumbai.body.date).toBe('2026-03-12');
    // 01:30 in Mumbai: the day shift is not due yet.
    expect(mumbai.body.people.find((p) => p.employee === 'M-1')).toMatchObject({ date: '2026-03-12', status: 'scheduled' });
    const all = await server.admin.get<{ date: string; people: { employee: string; date?: string; status: string }[] }>('/attendance/today/');
    expect(all.body.date).toBe('2026-03-11');
    const row = (e: string) => all.body.people.find((p) => p.employee === e);
    expect(row('M-1')?.date).toBe('2026-03-12');
    expect(row('L-1')).toMatchObject({ date: '2026-03-11', status: 'absent' });
    expect(row('N-1')).toMatchObject({ date: '2026-03-11', status: 'not_in_yet' });
    // Each row says its person's zone, in which the console shows their times.
    expect(['M-1', 'L-1', 'N-1'].map((e) => (row(e) as { time_zone?: string } | undefined)?.time_zone)).toEqual([
      'Asia/Kolkata',
      'Europe/London',
      'America/New_York',
    ]);
  });

  test('the absences job writes each zone’s yesterday: Mumbai’s 12th while London’s is not over', async () => {
    now = Date.parse('2026-03-12T20:00:00Z');
    const run = await server.admin.post('/jobs/generate-absences/run/', {});
    expect(run.body).toMatchObject({ status: 'succeeded', result: { from: '2026-03-11', to: '2026-03-12' } });
    expect(await day('M-1', '2026-03-12')).toMatchObject({ status: 'absent' });
    expect(await day('L-1', '2026-03-12')).toBeUndefined();
    expect(await day('L-1', '2026-03-11')).toMatchObject({ status: 'absent' });
    expect(await day('N-1', '2026-03-12')).toBeUndefined();
  });

  test('the month’s export shows each row’s wall times in its person’s zone', async () => {
    const res = await server.admin.get<string>('/attendance-days/export.csv?from=2026-03-01&to=2026-03-31');
    expect(res.status).toBe(200);
    const [header, ...rows] = parseCsv(res.body).map((r) => ('fields' in r ? r.fields : []));
    const at = (employee: string, date: string) => {
      const fields = rows.find((f) => f[0] === employee && f[2] === date)!;
      return fields[header!.indexOf('first_in')];
    };
    expect(at('L-1', '2026-03-09')).toBe('2026-03-09 09:05:00');
    expect(at('M-1', '2026-03-09')).toBe('2026-03-09 09:05:00');
    expect(at('N-1', '2026-03-09')).toBe('2026-03-09 09:00:00');
    expect(at('N-2', '2026-03-10')).toBe('2026-03-10 22:00:00');
  });

  test('a pay period locks once it is over in every zone: not while New York is still on its last date', async () => {
    now = Date.parse('2026-03-13T02:00:00Z');
    const open = await created('/pay-periods/', { from: '2026-03-10', to: '2026-03-12' });
    const early = await server.admin.post(`/pay-periods/${open.id}/lock/`, {});
    expect({ status: early.status, from: early.body.error?.details?.lockable_from, zone: early.body.error?.details?.time_zone }).toEqual({
      status: 409,
      from: '2026-03-13',
      zone: NEW_YORK,
    });
    // London's HR, already on the 13th, is told which zone is still on the 12th.
    expect(early.body.error?.message).toBe(
      `the pay period ends on 2026-03-12, which is not over yet in ${NEW_YORK} (the zone of an area whose people are still on 2026-03-12): it can be locked from 2026-03-13 on there`,
    );
    now = Date.parse('2026-03-13T05:00:00Z');
    expect((await server.admin.post(`/pay-periods/${open.id}/lock/`, {})).status).toBe(200);
  });

  test('changing mumbai’s zone recomputes its people’s days, but not a locked period’s; the answer counts people in two zones', async () => {
    now = Date.parse('2026-03-16T12:00:00Z');
    await punch('MUM1', 'M-1', '2026-03-16 09:05:00', '2026-03-16T03:35:00Z');
    expect(await day('M-1', '2026-03-16')).toMatchObject({ late_seconds: 300 });
    // M-2 also in newyork: once mumbai's zone changes, their areas disagree.
    expect((await server.admin.patch(`/enrollees/${people['M-2']!.id}/`, { areas: ['mumbai', 'newyork'] })).status).toBe(200);
    const changed = await server.admin.patch('/areas/mumbai/', { time_zone: 'Asia/Dubai' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ time_zone: 'Asia/Dubai', people_in_several_zones: 1 });
    // 03:35Z is 07:35 in Dubai: early, no longer late.
    expect(await day('M-1', '2026-03-16')).toMatchObject({ late_seconds: 0 });
    // The 11th is in the locked period: as it was locked.
    expect(await day('M-1', '2026-03-11')).toMatchObject({ late_seconds: 300 });
    const audit = await server.admin.get<{ results: { target_id: string; details: unknown }[] }>('/audit-log/?action=area.updated');
    expect(audit.body.results.find((r) => r.target_id === 'mumbai')?.details).toEqual({ name: 'mumbai', time_zone: { from: MUMBAI, to: 'Asia/Dubai' } });
    // Cleared: mumbai follows ATTENDANCE_TIME_ZONE again.
    expect((await server.admin.patch('/areas/mumbai/', { time_zone: null })).body).toMatchObject({ time_zone: null, people_in_several_zones: 0 });
    expect(await day('M-1', '2026-03-16')).toMatchObject({ late_seconds: 0, first_in: '2026-03-16T03:35:00.000Z', status: 'incomplete' });
    expect((await server.admin.patch('/areas/mumbai/', { time_zone: MUMBAI })).status).toBe(200);
    expect(await day('M-1', '2026-03-16')).toMatchObject({ late_seconds: 300 });
  });

  test('diagnostics: a terminal keeping its area’s zone is no warning; a London-zoned terminal in the Mumbai area is', async () => {
    await created('/devices/', { serial_number: 'MUMX', time_zone: LONDON, areas: ['mumbai'] });
    const res = await server.admin.get<{ results: { kind: string; device: string; fix: string; details: unknown }[] }>('/diagnostics/');
    const zones = res.body.results.filter((d) => d.kind === 'other_time_zone');
    expect(zones.map((d) => d.device)).toEqual(['MUMX']);
    expect(zones[0]!.details).toEqual({ time_zone: LONDON, area_time_zone: MUMBAI, area: 'mumbai' });
    expect(zones[0]!.fix).toContain('set the time zone of its area (Areas → mumbai) to Europe/London');
  });

  test('anomalies are on the person’s date: a punch at 00:30 IST on a Mumbai leave day is while_on_leave; mumbai’s zone cleared, it falls on London’s day before', async () => {
    now = Date.parse('2026-03-18T12:00:00Z');
    expect((await server.admin.post('/leaves/', { enrollee: people['M-1']!.id, from: '2026-03-18', to: '2026-03-18', kind: 'vacation' })).status).toBe(201);
    await punch('MUM1', 'M-1', '2026-03-18 00:30:00', '2026-03-17T19:00:00Z');
    const onLeave = async () => {
      const res = await server.admin.get<{ results: { kind: string; date: string }[] }>('/anomalies/?from=2026-03-16&to=2026-03-19&employee=M-1');
      expect(res.status).toBe(200);
      return res.body.results.filter((a) => a.kind === 'while_on_leave').map((a) => a.date);
    };
    expect(await onLeave()).toEqual(['2026-03-18']);
    expect((await server.admin.patch('/areas/mumbai/', { time_zone: null })).status).toBe(200);
    expect(await onLeave()).toEqual([]);
    expect((await server.admin.patch('/areas/mumbai/', { time_zone: MUMBAI })).status).toBe(200);
    expect(await onLeave()).toEqual(['2026-03-18']);
  });
});
