/**
 * The calendar through the real server: holidays, schedules, assignments, leaves and weekends
 * are validated, audited, and every change recomputes exactly the days it touches; a host's
 * own calendar joins through a provider and `calendarChanged`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { workSchedules } from '../../../src/app/schema';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { dayOf, linesAt, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

const ZONE = 'UTC';
let now = Date.parse('2026-03-25T12:00:00Z');
let server: TestServer;
let device: DeviceRow;
const people: Record<string, { id: string; pin: string }> = {};

async function person(employee: string, areas: string[]) {
  await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` });
  const e = await server.admin.post('/enrollees/', { employee, areas });
  expect(e.status).toBe(201);
  people[employee] = { id: e.body.id, pin: e.body.device_pin };
}

const absences = (from: string, to: string) => server.admin.post('/jobs/generate-absences/run/', { params: { from, to } });
const statuses = async (employee: string, from: string, to: string) =>
  (await server.admin.get(`/attendance-days/?employee=${employee}&from=${from}&to=${to}`)).body.results
    .map((d: { date: string; status: string }) => `${d.date} ${d.status}`)
    .reverse();

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE, DEFAULT_SCHEDULE: '09:00-17:00' }, { clock: { now: () => now } });
  now = Date.parse('2026-02-20T12:00:00Z');
  await person('P-1', ['plant']);
  await person('P-2', ['plant']);
  await person('B-1', ['branch']);
  device = await terminal(server, 'CAL00001', ['plant', 'branch']);
  now = Date.parse('2026-03-25T12:00:00Z');
});
afterAll(async () => {
  await server.close();
});

describe('holidays', () => {
  test('create, read, change and delete; each change moves the days it touches', async () => {
    expect((await absences('2026-03-02', '2026-03-06')).body.status).toBe('succeeded');
    expect(await statuses('P-1', '2026-03-02', '2026-03-04')).toEqual(['2026-03-02 absent', '2026-03-03 absent', '2026-03-04 absent']);
    const created = await server.admin.post('/holidays/', { date: '2026-03-03', name: 'Plant day', areas: ['plant'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ date: '2026-03-03', name: 'Plant day', areas: ['plant'], enrollee: null, recurring: false, cancelled: false });
    expect(await statuses('P-1', '2026-03-02', '2026-03-04')).toEqual(['2026-03-02 absent', '2026-03-03 holiday', '2026-03-04 absent']);
    expect((await dayOf(server, 'B-1', '2026-03-03')).status).toBe('absent');
    // Moved a day later: the 3rd is absent again, the 4th a holiday.
    const moved = await server.admin.patch(`/holidays/${created.body.id}/`, { date: '2026-03-04' });
    expect(moved.body.date).toBe('2026-03-04');
    expect(await statuses('P-1', '2026-03-02', '2026-03-04')).toEqual(['2026-03-02 absent', '2026-03-03 absent', '2026-03-04 holiday']);
    expect((await server.admin.get(`/holidays/${created.body.id}/`)).body.name).toBe('Plant day');
    expect((await server.admin.get('/holidays/?from=2026-03-04&to=2026-03-04')).body.results).toHaveLength(1);
    expect((await server.admin.delete(`/holidays/${created.body.id}/`)).status).toBe(204);
    expect((await dayOf(server, 'P-1', '2026-03-04')).status).toBe('absent');
    expect((await server.admin.get(`/holidays/${created.body.id}/`)).status).toBe(404);
    const audit = await server.admin.get('/audit-log/?action=holiday.updated');
    expect(audit.body.results[0]).toMatchObject({ actor: 'admin@example.com', target_id: created.body.id, details: { date: '2026-03-04' } });
  });

  test('a recurring holiday is listed in every range it falls in, from its own year on', async () => {
    const created = await server.admin.post('/holidays/', { date: '2024-01-01', name: 'New year', recurring: true });
    expect(created.status).toBe(201);
    const named = async (from: string, to?: string) =>
      ((await server.admin.get(`/holidays/?from=${from}${to ? `&to=${to}` : ''}`)).body.results as { name: string }[]).filter((h) => h.name === 'New year')
        .length;
    expect(await named('2027-01-01', '2027-01-31')).toBe(1);
    expect(await named('2026-12-15', '2027-01-15')).toBe(1);
    expect(await named('2027-01-02', '2027-12-31')).toBe(0);
    expect(await named('2023-12-15', '2023-12-31')).toBe(0);
    expect(await named('2023-01-01', '2023-01-31')).toBe(0);
    expect(await named('2030-02-01')).toBe(1);
    expect(await named('2025-03-01', '2027-02-01')).toBe(1);
    expect((await server.admin.delete(`/holidays/${created.body.id}/`)).status).toBe(204);
  });

  test('one enrollee’s holiday, and a cancelled row cancelling a recurring one for one year', async () => {
    const own = await server.admin.post('/holidays/', { date: '2026-03-05', name: 'Wedding', enrollee: people['P-2']!.id });
    expect(own.body.enrollee).toBe(people['P-2']!.id);
    expect((await dayOf(server, 'P-2', '2026-03-05')).status).toBe('holiday');
    expect((await dayOf(server, 'P-1', '2026-03-05')).status).toBe('absent');
    await server.admin.post('/holidays/', { date: '2025-03-06', name: 'Founders', recurring: true });
    expect((await dayOf(server, 'B-1', '2026-03-06')).status).toBe('holiday');
    await server.admin.post('/holidays/', { date: '2026-03-06', name: 'Founders (moved)', cancelled: true });
    expect((await dayOf(server, 'B-1', '2026-03-06')).status).toBe('absent');
    const plan = await server.admin.get('/calendar/?employee=B-1&from=2027-03-05&to=2027-03-06');
    expect(plan.body.results.map((d: { holiday: string | null }) => d.holiday)).toEqual([null, 'Founders']);
    const both = await server.admin.post('/holidays/', { date: '2026-03-05', name: 'x', enrollee: people['P-2']!.id, areas: ['plant'] });
    expect(both.status).toBe(400);
  });
});

describe('schedules and assignments', () => {
  test('validated: times, durations, a break shorter than the shift, unique names', async () => {
    expect((await server.admin.post('/work-schedules/', { name: 'x', start: '25:00', end: '08:00' })).status).toBe(400);
    expect((await server.admin.post('/work-schedules/', { name: 'x', start: '08:00', end: '08:00' })).status).toBe(400);
    expect((await server.admin.post('/work-schedules/', { name: 'x', start: '08:00', end: '09:00', break: '1h' })).status).toBe(400);
    const early = await server.admin.post('/work-schedules/', { name: 'early', start: '06:00', end: '14:00', grace_in: '15m', break: '30m' });
    expect(early.body).toMatchObject({ name: 'early', overnight: false, grace_in: '15m', grace_out: '0s', break: '30m', weekdays: null });
    expect((await server.admin.post('/work-schedules/', { name: 'early', start: '06:00', end: '14:00' })).status).toBe(409);
    expect((await server.admin.get('/work-schedules/early/')).body.id).toBe(early.body.id);
    // Graces as long as the shift, no working day, a name that is another schedule's id: each refused, saying why.
    for (const [body, message] of [
      [{ name: 'x', start: '09:00', end: '17:00', grace_in: '100000h' }, 'grace_in must be shorter than the shift'],
      [{ name: 'x', start: '22:00', end: '06:00', grace_out: '8h' }, 'grace_out must be shorter than the shift'],
      [
        { name: 'x', start: '09:00', end: '17:00', weekdays: [] },
        'weekdays: name at least one day (0 Sunday … 6 Saturday), or null for every day but the weekend',
      ],
      [{ name: early.body.id, start: '09:00', end: '17:00' }, 'a schedule’s name cannot be an id (a UUID)'],
    ] as const) {
      const refused = await server.admin.post('/work-schedules/', body);
      expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([400, 'validation_error', message]);
    }
    // A schedule stored before these rules (no day, a grace as long as its shift) can still be
    // edited: a patch is held to them only in what it changes.
    const old = await server.admin.post('/work-schedules/', { name: 'stored before', start: '09:00', end: '17:00' });
    await server.fpa.db.write(({ tx }) =>
      tx
        .update(workSchedules)
        .set({ weekdays: [], graceInMs: 8 * 3_600_000 })
        .where(eq(workSchedules.id, old.body.id)),
    );
    const renamed = await server.admin.patch(`/work-schedules/${old.body.id}/`, { name: 'renamed', break: '30m' });
    expect([renamed.status, renamed.body.name, renamed.body.weekdays]).toEqual([200, 'renamed', []]);
    expect((await server.admin.patch(`/work-schedules/${old.body.id}/`, { weekdays: [] })).status).toBe(400);
    expect((await server.admin.patch(`/work-schedules/${old.body.id}/`, { end: '16:00' })).body.error.message).toBe('grace_in must be shorter than the shift');
    expect((await server.admin.delete(`/work-schedules/${old.body.id}/`)).status).toBe(204);
  });

  test('an assignment recomputes its days; a schedule change recomputes its assignments’ days; in use it cannot go', async () => {
    await upload(server, device, linesAt(ZONE, people['P-1']!.pin, '2026-03-10 06:00:00', '2026-03-10 14:00:00'));
    expect(await dayOf(server, 'P-1', '2026-03-10')).toMatchObject({ schedule: 'default', flags: ['early_leave'] });
    const both = await server.admin.post('/shift-assignments/', { schedule: 'early', enrollee: people['P-1']!.id, area: 'plant', from: '2026-03-09' });
    expect(both.status).toBe(400);
    const assigned = await server.admin.post('/shift-assignments/', { schedule: 'early', area: 'plant', from: '2026-03-09', to: '2026-03-13' });
    expect(assigned.body).toMatchObject({ schedule: 'early', area: 'plant', enrollee: null, from: '2026-03-09', to: '2026-03-13', priority: 0 });
    expect(await dayOf(server, 'P-1', '2026-03-10')).toMatchObject({ schedule: 'early', flags: [], expected_seconds: 7.5 * 3600, worked_seconds: 7.5 * 3600 });
    // P-2 has no punches: her absences expect the early shift.
    await absences('2026-03-09', '2026-03-13');
    expect(await dayOf(server, 'P-2', '2026-03-11')).toMatchObject({ schedule: 'early', status: 'absent', expected_seconds: 7.5 * 3600 });
    const changed = await server.admin.patch('/work-schedules/early/', { start: '05:00', end: '13:00' });
    expect(changed.body).toMatchObject({ start: '05:00', end: '13:00', grace_in: '15m' });
    expect(await dayOf(server, 'P-1', '2026-03-10')).toMatchObject({ flags: ['late'], late_seconds: 3600 });
    expect((await server.admin.delete('/work-schedules/early/')).status).toBe(409);
    expect((await server.admin.get('/shift-assignments/?area=plant')).body.results).toHaveLength(1);
    expect((await server.admin.delete(`/shift-assignments/${assigned.body.id}/`)).status).toBe(204);
    expect(await dayOf(server, 'P-1', '2026-03-10')).toMatchObject({ schedule: 'default', flags: ['early_leave'] });
    expect((await server.admin.delete('/work-schedules/early/')).status).toBe(204);
  });
});

describe('leaves and weekends', () => {
  test('leave turns absences into on_leave; removed, they are absences again', async () => {
    const leave = await server.admin.post('/leaves/', { enrollee: people['B-1']!.pin, from: '2026-03-02', to: '2026-03-08', kind: 'sick' });
    expect(leave.body).toMatchObject({ enrollee: people['B-1']!.id, employee: 'B-1', kind: 'sick' });
    // Its weekend stays a weekend; the cancelled holiday's date is a leave day.
    expect(await statuses('B-1', '2026-03-05', '2026-03-06')).toEqual(['2026-03-05 on_leave', '2026-03-06 on_leave']);
    expect((await server.admin.get('/leaves/?employee=B-1&from=2026-03-08&to=2026-03-31')).body.results).toHaveLength(1);
    expect((await server.admin.get('/leaves/?employee=B-1&from=2026-03-09')).body.results).toHaveLength(0);
    expect((await server.admin.delete(`/leaves/${leave.body.id}/`)).status).toBe(204);
    expect(await statuses('B-1', '2026-03-05', '2026-03-06')).toEqual(['2026-03-05 absent', '2026-03-06 absent']);
    expect((await server.admin.post('/leaves/', { enrollee: people['B-1']!.id, from: '2026-03-09', to: '2026-03-08', kind: 'x' })).status).toBe(400);
  });

  test('an area’s weekend from a date on', async () => {
    const friday = await server.admin.post('/weekends/', { area: 'branch', days: [5, 6], from: '2026-03-01' });
    expect(friday.body).toMatchObject({ area: 'branch', days: [5, 6], from: '2026-03-01' });
    expect(await statuses('B-1', '2026-03-05', '2026-03-06')).toEqual(['2026-03-05 absent', '2026-03-06 non_working_day']);
    expect((await dayOf(server, 'P-1', '2026-03-06')).status).toBe('absent');
    const plan = await server.admin.get('/calendar/?employee=B-1&from=2026-03-06&to=2026-03-08');
    expect(plan.body.results.map((d: { day_type: string }) => d.day_type)).toEqual(['weekend', 'weekend', 'workday']);
    expect((await server.admin.get('/weekends/?area=branch')).body.results).toHaveLength(1);
    expect((await server.admin.delete(`/weekends/${friday.body.id}/`)).status).toBe(204);
    expect((await dayOf(server, 'B-1', '2026-03-06')).status).toBe('absent');
  });
});

describe('the calendar and recompute endpoints', () => {
  test('calendar/ wants a person and at most a year; recompute/ at most a year', async () => {
    expect((await server.admin.get('/calendar/?from=2026-03-01&to=2026-03-02')).status).toBe(400);
    expect((await server.admin.get('/calendar/?employee=NOBODY&from=2026-03-01&to=2026-03-02')).status).toBe(404);
    expect((await server.admin.get('/calendar/?employee=P-1&from=2026-01-01&to=2027-01-02')).status).toBe(400);
    expect((await server.admin.post('/attendance-days/recompute/', { from: '2026-03-02', to: '2026-03-01' })).status).toBe(400);
    expect((await server.admin.post('/attendance-days/recompute/', { from: '2026-03-02', to: '2026-03-06', enrollee: people['P-1']!.id })).body).toEqual({
      recomputed: 5,
    });
  });
});

describe('a host’s own calendar', () => {
  test('a provider adds leaves and shifts; calendarChanged recomputes the days', async () => {
    await server.admin.post('/work-schedules/', { name: 'late', start: '13:00', end: '21:00' });
    let hostLeave = false;
    server.fpa.service.addCalendarProvider(({ enrollees }) => ({
      leaves:
        hostLeave && enrollees.includes(people['P-2']!.id) ? [{ enrollee: people['P-2']!.id, from: '2026-03-02', to: '2026-03-03', kind: 'host leave' }] : [],
      shifts: enrollees.includes(people['B-1']!.id) ? [{ enrollee: people['B-1']!.id, schedule: 'late', from: '2026-03-02', to: '2026-03-02' }] : [],
    }));
    const plan = await server.admin.get('/calendar/?employee=B-1&from=2026-03-02&to=2026-03-02');
    expect(plan.body.results[0].schedule).toMatchObject({ name: 'late', expected_start: '2026-03-02T13:00:00.000Z' });
    hostLeave = true;
    expect((await dayOf(server, 'P-2', '2026-03-02')).status).toBe('absent');
    await server.fpa.service.calendarChanged({ from: '2026-03-02', to: '2026-03-03' }, [people['P-2']!.id]);
    expect(await statuses('P-2', '2026-03-02', '2026-03-03')).toEqual(['2026-03-02 on_leave', '2026-03-03 on_leave']);
    const events = await server.admin.get('/events/?type=calendar_changed');
    expect(events.body.results[events.body.results.length - 1].data).toMatchObject({ kind: 'host', enrollees: [people['P-2']!.id], by: 'host' });
  });
});
