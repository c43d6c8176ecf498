/**
 * generate-absences announces the days it writes, through the real server (a payroll tester's
 * finding: it wrote them silently, so the event log, the streams and the webhooks never heard of
 * an absence). A simulated terminal uploads over ADMS, the job runs over the API, a real
 * receiver on 127.0.0.1 takes the webhook; the worker is off, each pass is `deliver-webhooks`.
 * - two dates: the two absent days written, each an `attendance_day_changed` as the API lists it,
 *   delivered to the webhook;
 * - the first run over the month: every day it writes (absent, non_working_day, holiday,
 *   on_leave) announced once; the days that were there (punched, or written by the run before)
 *   not again; a run that writes nothing announces nothing.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { receiver, waitFor } from '../support/webhook-receiver';

const ZONE = 'Europe/Berlin';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2026-10-20', '12:00');
let server: TestServer;
const rx = receiver(() => new Response(null, { status: 204 }));

interface Day {
  employee: string;
  date: string;
  status: string;
}

/** The days announced after the event sequence `after`, and the newest sequence. */
async function announcedAfter(after: number): Promise<{ days: Day[]; last: number }> {
  const res = await server.admin.get(`/events/?type=attendance_day_changed&after=${after}&limit=1000`);
  expect(res.status).toBe(200);
  return { days: (res.body.results as { data: { day: Day } }[]).map((e) => e.data.day), last: res.body.last_sequence };
}

async function generate(from: string, to: string) {
  const res = await server.admin.post('/jobs/generate-absences/run/', { params: { from, to } });
  expect(res.body.status).toBe('succeeded');
  return res.body.result as Record<string, number | string>;
}

/** What the webhook has received so far, once `count` deliveries are in. */
async function delivered(count: number): Promise<Day[]> {
  await waitFor(async () => {
    await server.admin.post('/jobs/deliver-webhooks/run/');
    return rx.calls.length >= count;
  }, `${count} deliveries`);
  return rx.calls.map((c) => (JSON.parse(c.body) as { type: string; data: { day: Day } }).data.day);
}

const keys = (days: readonly Day[]) => days.map((d) => `${d.employee} ${d.date} ${d.status}`).sort();

beforeAll(async () => {
  server = await startTestServer(
    { TIME_ZONE: ZONE, WEBHOOK_ALLOWED_NETWORKS: ['127.0.0.0/8'], WEBHOOK_WORKER: false, WEBHOOK_TIMEOUT: 2_000 },
    { clock: { now: () => now } },
  );
  expect((await server.admin.post('/employees/', { id: 'E-01', name: 'Eva Payroll' })).status).toBe(201);
  const enrollee = await server.admin.post('/enrollees/', { employee: 'E-01', areas: ['office'] });
  expect(enrollee.status).toBe(201);
  const terminal = new SimulatedTerminal({ url: server.url, sn: 'ABSEV001', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/ABSEV001/approve/', { areas: ['office'] })).status).toBe(200);
  const schedule = { name: 'Day', start: '09:00', end: '17:00', grace_in: '5m', grace_out: '5m', break: '30m', weekdays: [1, 2, 3, 4, 5] };
  expect((await server.admin.post('/work-schedules/', schedule)).status).toBe(201);
  expect((await server.admin.post('/shift-assignments/', { schedule: 'Day', area: 'office', from: '2026-11-01' })).status).toBe(201);
  expect((await server.admin.post('/holidays/', { date: '2026-11-11', name: 'Plant day' })).status).toBe(201);
  expect((await server.admin.post('/leaves/', { enrollee: enrollee.body.id, from: '2026-11-16', to: '2026-11-17', kind: 'annual' })).status).toBe(201);
  expect((await server.admin.post('/webhooks/', { url: rx.url, events: ['attendance_day_changed'] })).status).toBe(201);
  now = berlin('2026-11-28', '07:00');
  const punched = await terminal.punch([
    { pin: enrollee.body.device_pin, localTime: '2026-11-24 08:58:00' },
    { pin: enrollee.body.device_pin, localTime: '2026-11-24 17:02:00' },
  ]);
  expect(punched).toEqual({ status: 200, body: 'OK:2' });
});
afterAll(async () => {
  rx.stop();
  await server.close();
});

test('generate-absences announces exactly the days it writes, as the API lists them, to the log and the webhooks', async () => {
  // The punched day's own event first (a read of the days brings them up to date): the run's come after it.
  expect((await server.admin.get('/attendance-days/?employee=E-01')).body.results).toMatchObject([{ date: '2026-11-24', status: 'present' }]);
  expect(await delivered(1)).toMatchObject([{ employee: 'E-01', date: '2026-11-24', status: 'present' }]);
  let { last } = await announcedAfter(0);

  expect(await generate('2026-11-26', '2026-11-27')).toMatchObject({ absent: 2, unchanged: 0 });
  const two = await announcedAfter(last);
  expect(keys(two.days)).toEqual(['E-01 2026-11-26 absent', 'E-01 2026-11-27 absent']);
  const listed = await server.admin.get('/attendance-days/?employee=E-01&from=2026-11-26&to=2026-11-27');
  expect(two.days).toEqual(listed.body.results.toReversed());
  expect(keys((await delivered(3)).slice(1))).toEqual(keys(two.days));
  last = two.last;

  // The month so far: 27 dates, the punched one and the two written before kept as they were.
  const month = await generate('2026-11-01', '2026-11-27');
  expect(month).toMatchObject({ absent: 14, non_working_day: 7, holiday: 1, on_leave: 2, unchanged: 3 });
  const written = await announcedAfter(last);
  expect(written.days).toHaveLength(24);
  expect(new Set(written.days.map((d) => d.status))).toEqual(new Set(['absent', 'non_working_day', 'holiday', 'on_leave']));
  expect(written.days.filter((d) => ['2026-11-24', '2026-11-26', '2026-11-27'].includes(d.date))).toEqual([]);
  expect(written.days.find((d) => d.date === '2026-11-11')).toMatchObject({ status: 'holiday' });
  expect(keys((await delivered(27)).slice(3))).toEqual(keys(written.days));

  // Nothing left to write: nothing announced.
  expect(await generate('2026-11-01', '2026-11-27')).toMatchObject({ absent: 0, unchanged: 27 });
  expect((await announcedAfter(written.last)).days).toEqual([]);
});
