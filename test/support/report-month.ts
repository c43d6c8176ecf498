/**
 * A seeded month for the report tests: February 2026 in Europe/Berlin (no clock change), a
 * day shift (08:00–16:30, 30 min unpaid break, 5 min grace) for the areas `plant` and
 * `branch`, punches uploaded by simulated terminals over ADMS, absences generated for the month.
 *
 * Exceptions, exactly five: D1 is late on the 3rd (08:20), E1 leaves early on the 5th (15:00),
 * F1 forgets to clock out on the 10th (missing punch) and is absent on the 11th, O1 works late
 * on the 12th (18:30: 2:00 overtime, the time after the shift's end). Everyone else is on time every workday (07:58–16:31:
 * 8:03 worked, 3 minutes over is within the grace: no overtime).
 */
import { expect } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import type { TestServer } from './harness';

export const ZONE = 'Europe/Berlin';
export const COMPANY = 'Müller & Söhne Metallbau GmbH';
export const FROM = '2026-02-01';
export const TO = '2026-02-28';

export const PEOPLE = [
  { employee: 'B1', name: 'Berta Schulz', area: 'branch' },
  { employee: 'D1', name: 'Dana Fischer', area: 'plant' },
  { employee: 'E1', name: 'Emil Weber', area: 'plant' },
  { employee: 'F1', name: 'Frieda Koch', area: 'plant' },
  { employee: 'O1', name: 'Otto Wagner', area: 'plant' },
] as const;

export const FEBRUARY = Array.from({ length: 28 }, (_, i) => `2026-02-${String(i + 1).padStart(2, '0')}`);
export const isWeekend = (date: string) => [0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());
export const WORKDAYS = FEBRUARY.filter((d) => !isWeekend(d));

/** Wall times each person punches on a workday. */
export function punchesOf(employee: string, date: string): string[] {
  if (employee === 'D1' && date === '2026-02-03') return ['08:20', '16:31'];
  if (employee === 'E1' && date === '2026-02-05') return ['07:58', '15:00'];
  if (employee === 'F1' && date === '2026-02-10') return ['07:58'];
  if (employee === 'F1' && date === '2026-02-11') return [];
  if (employee === 'O1' && date === '2026-02-12') return ['07:58', '18:30'];
  return ['07:58', '16:31'];
}

/** Seconds: a normal day's 8:03, D1's late day 7:41, E1's early day 6:32, O1's long day 10:02. */
export const NORMAL = 8 * 3600 + 3 * 60;
export const WORKED: Record<string, number> = {
  B1: WORKDAYS.length * NORMAL,
  D1: (WORKDAYS.length - 1) * NORMAL + (7 * 3600 + 41 * 60),
  E1: (WORKDAYS.length - 1) * NORMAL + (6 * 3600 + 32 * 60),
  // the missing punch's day counts nothing; the absent day nothing
  F1: (WORKDAYS.length - 2) * NORMAL,
  O1: (WORKDAYS.length - 1) * NORMAL + (10 * 3600 + 2 * 60),
};

/** People, terminals, the shift, a month of punches and its absences; the clock ends on 2 March 07:00 Berlin. */
export async function seedMonth(server: TestServer, clock: { now: number }): Promise<Record<string, string>> {
  const created = async (path: string, body: unknown) => {
    const res = await server.admin.post(path, body);
    expect({ path, status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ path, status: 201, body: null });
    return res.body;
  };
  const pins: Record<string, string> = {};
  for (const p of PEOPLE) {
    await created('/employees/', { id: p.employee, name: p.name });
    pins[p.employee] = (await created('/enrollees/', { employee: p.employee, areas: [p.area] })).device_pin;
  }
  const terminals: Record<string, SimulatedTerminal> = {};
  for (const [sn, area] of [
    ['PLANT01', 'plant'],
    ['BRANCH01', 'branch'],
  ] as const) {
    const t = new SimulatedTerminal({ url: server.url, sn, timeZone: ZONE });
    await t.handshake();
    expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: [area] })).status).toBe(200);
    terminals[area] = t;
  }
  await created('/work-schedules/', { name: 'day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m' });
  await created('/shift-assignments/', { schedule: 'day', area: 'plant', from: FROM });
  await created('/shift-assignments/', { schedule: 'day', area: 'branch', from: FROM });
  clock.now = Date.parse('2026-03-02T06:00:00Z');
  for (const area of ['plant', 'branch']) {
    const lines = PEOPLE.filter((p) => p.area === area).flatMap((p) =>
      WORKDAYS.flatMap((date) => punchesOf(p.employee, date).map((time) => ({ pin: pins[p.employee]!, localTime: `${date} ${time}:00` }))),
    );
    const res = await terminals[area]!.punch(lines);
    expect(res).toEqual({ status: 200, body: `OK:${lines.length}` });
  }
  const run = await server.admin.post('/jobs/generate-absences/run/', { params: { from: FROM, to: TO } });
  expect(run.body).toMatchObject({ status: 'succeeded' });
  return pins;
}
