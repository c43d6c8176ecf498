/**
 * A company that goes live mid-period (an HR officer's finding): everyone is enrolled today and
 * the terminals upload the weeks of punches before. On a past date, the Today board and the
 * daily report listed the people enrolled by then and those with a day stored on it, so someone
 * enrolled today who had punched before that date but not on it was missing (not `absent`),
 * while a pay-period lock writes their absent day there (generate-absences starts a person's
 * days at the earliest of their enrolment, their first day with punches and their own
 * schedule's first day). Now the board and the daily report take people by that same rule, and
 * the board of the date reads the same before the lock and after it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'UTC';
const DATE = '2026-11-26'; // a Thursday
let now = Date.parse('2026-10-01T09:00:00Z');
let server: TestServer;
const pins: Record<string, string> = {};

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ path, status: 201, body: null });
  return res.body;
}

async function enroll(employee: string, name: string) {
  await created('/employees/', { id: employee, name });
  const enrollee = await created('/enrollees/', { employee, areas: ['east'] });
  pins[employee] = enrollee.device_pin;
  return enrollee.id as string;
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  await created('/work-schedules/', { name: 'day', start: '08:00', end: '16:30' });
  await created('/shift-assignments/', { schedule: 'day', area: 'east', from: '2026-11-01' });
  // Olga has been enrolled since October; the others are enrolled on 1 December, going live.
  await enroll('E-O', 'Olga Old');
  now = Date.parse('2026-12-01T09:00:00Z');
  await enroll('E-A', 'Anna Present');
  await enroll('E-C', 'Carl Backlog');
  await enroll('E-D', 'Dora Nothing');
  await enroll('E-E', 'Emil Later');
  const own = await enroll('E-F', 'Fritz Own');
  // A schedule of Fritz's own from 1 November: his attendance starts then (README "Attendance rules").
  await created('/shift-assignments/', { schedule: 'day', enrollee: own, from: '2026-11-01' });
  const terminal = new SimulatedTerminal({ url: server.url, sn: 'EAST01', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/EAST01/approve/', { areas: ['east'] })).status).toBe(200);
  // November's punches uploaded now: Anna worked the 26th, Carl the 20th only, Emil from the 27th.
  const lines = [
    ['E-A', '2026-11-26 07:58:00'],
    ['E-A', '2026-11-26 16:31:00'],
    ['E-C', '2026-11-20 07:58:00'],
    ['E-C', '2026-11-20 16:31:00'],
    ['E-E', '2026-11-27 07:58:00'],
    ['E-E', '2026-11-27 16:31:00'],
  ].map(([employee, localTime]) => ({ pin: pins[employee!]!, localTime: localTime! }));
  expect(await terminal.punch(lines)).toEqual({ status: 200, body: `OK:${lines.length}` });
});
afterAll(async () => {
  await server.close();
});

async function board() {
  const res = await server.admin.get(`/attendance/today/?date=${DATE}&area=east`);
  expect(res.status).toBe(200);
  return {
    people: (res.body.people as { employee: string; status: string }[]).map((p) => `${p.employee} ${p.status}`),
    absent: res.body.counts.absent as number,
  };
}

async function daily(): Promise<string[]> {
  const res = await fetch(`${server.url}/api/fingerprint/v1/reports/daily.csv?date=${DATE}&area=east`, { headers: server.admin.headers });
  expect(res.status).toBe(200);
  const [header, ...rows] = parseCsv(await res.text()).map((r) => ('fields' in r ? r.fields : []));
  const at = (key: string) => header!.indexOf(key);
  return rows.map((r) => `${r[at('employee')]} ${r[at('status')]}`);
}

describe('a past date after going live', () => {
  // By name: Anna, Carl, Fritz, Olga. Dora (nothing before her enrolment) and Emil (punches from the 27th) have not started.
  const ON_THE_26TH = ['E-A present', 'E-C absent', 'E-F absent', 'E-O absent'];

  test('the board lists whoever’s attendance had started by the date: enrolled by then, or punched before it, or on a schedule of their own', async () => {
    expect(await board()).toEqual({ people: ON_THE_26TH, absent: 3 });
  });

  test('the daily report has a row for each of them', async () => {
    expect(await daily()).toEqual(['E-A present', 'E-C no_record', 'E-F no_record', 'E-O no_record']);
  });

  test('a pay-period lock writes the absent days of the same people: the board reads the same after it, the report as stored', async () => {
    const period = await created('/pay-periods/', { from: '2026-11-01', to: '2026-11-30' });
    expect((await server.admin.post(`/pay-periods/${period.id}/lock/`)).status).toBe(200);
    expect(await board()).toEqual({ people: ON_THE_26TH, absent: 3 });
    expect(await daily()).toEqual(['E-A present', 'E-C absent', 'E-F absent', 'E-O absent']);
    const days = await server.admin.get(`/attendance-days/?from=${DATE}&to=${DATE}`);
    expect((days.body.results as { employee: string }[]).map((d) => d.employee).sort()).toEqual(['E-A', 'E-C', 'E-F', 'E-O']);
  });
});
