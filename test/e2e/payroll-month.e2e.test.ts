/**
 * A month of a factory, through the real server: simulated terminals upload over ADMS, the
 * administrator works over HTTP, the clock moves a day at a time and generate-absences runs
 * every morning as it would on its schedule. March 2026 in Europe/Berlin (summer time starts on
 * Sunday the 29th: wall times stay what people see).
 *
 * - a day shift (08:00–16:30, 30 min unpaid break, 5 min grace) assigned to the areas `plant`
 *   and `branch`, and a night shift (22:00–06:00, 30 min break, 10 min grace, Monday to Friday)
 *   assigned to one person, whose own assignment beats the area's;
 * - D1 is late once; N1 leaves one night early; L1 is on leave a week; B1's branch declares a
 *   holiday on the 19th four days after the fact; F1 forgets a clock-out (fixed by hand) and
 *   touches the reader once by mistake (voided); I1's terminal is broken for a week and her
 *   punches are imported from a CSV file (one line duplicated, two lines bad);
 * - the first half of the month is locked on the 16th: a punch uploaded later for it is stored
 *   and flagged `after_lock`, and a holiday declared later for it changes nothing.
 *
 * The export and the summary of the month are then checked line by line, and a newcomer whose
 * name reads like a spreadsheet formula is exported as text.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseCsv } from '../../src/platform/csv';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
const API = '/api/fingerprint/v1';
let now = Date.parse('2026-02-27T12:00:00Z');
let server: TestServer;
let plant: SimulatedTerminal;
let branch: SimulatedTerminal;
const pins: Record<string, string> = {};
const ids: Record<string, string> = {};

/** The instant of a Berlin wall time (CET before the 29th, CEST from then on). */
function berlin(date: string, time: string): number {
  const offset = date >= '2026-03-29' ? '+02:00' : '+01:00';
  return Date.parse(`${date}T${time}:00${offset}`);
}

function nextDate(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

const MARCH = Array.from({ length: 31 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`);
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
const isWeekend = (date: string) => weekday(date) === 0 || weekday(date) === 6;

/** Who punches what on a date: [pin owner, wall time (next date's when marked +1)] pairs, by terminal. */
function punchesOf(date: string): { terminal: 'plant' | 'branch'; employee: string; localTime: string }[] {
  if (isWeekend(date)) return [];
  const out: { terminal: 'plant' | 'branch'; employee: string; localTime: string }[] = [];
  const at = (terminal: 'plant' | 'branch', employee: string, day: string, time: string) => out.push({ terminal, employee, localTime: `${day} ${time}:00` });
  // D1: on time, except on the 3rd.
  at('plant', 'D1', date, date === '2026-03-03' ? '08:20' : '07:58');
  at('plant', 'D1', date, '16:31');
  // N1: nights, out early on the 24th's night.
  at('plant', 'N1', date, '21:55');
  at('plant', 'N1', nextDate(date), date === '2026-03-24' ? '05:00' : '06:05');
  // B1 at the branch; nobody there on the 19th (the holiday nobody had declared yet).
  if (date !== '2026-03-19') {
    at('branch', 'B1', date, '07:58');
    at('branch', 'B1', date, '16:31');
  }
  // L1: on leave from the 9th to the 13th.
  if (date < '2026-03-09' || date > '2026-03-13') {
    at('plant', 'L1', date, '07:58');
    at('plant', 'L1', date, '16:31');
  }
  // F1: forgets to clock out on the 10th; a stray touch at noon on the 11th.
  at('plant', 'F1', date, '07:58');
  if (date !== '2026-03-10') at('plant', 'F1', date, '16:31');
  if (date === '2026-03-11') at('plant', 'F1', date, '12:00');
  // I1: her terminal is broken from the 16th to the 20th (imported later).
  if (date < '2026-03-16' || date > '2026-03-20') {
    at('plant', 'I1', date, '07:58');
    at('plant', 'I1', date, '16:31');
  }
  return out;
}

async function upload(terminal: SimulatedTerminal, lines: { employee: string; localTime: string }[]) {
  if (lines.length === 0) return;
  const res = await terminal.punch(lines.map((l) => ({ pin: pins[l.employee]!, localTime: l.localTime })));
  expect(res).toEqual({ status: 200, body: `OK:${lines.length}` });
}

/**
 * Berlin moves to +02:00 at 01:00Z on 29 March. A terminal knows no zone rules: it keeps +01:00
 * until it is told otherwise, which the hourly sync-device-clocks job does (CHECK, a new
 * handshake). The terminals here poll all night, so by 02:00Z they run on +02:00.
 */
async function toldSummerTime() {
  const saved = now;
  now = Date.parse('2026-03-29T02:00:00Z');
  await plant.handshake();
  await branch.handshake();
  now = saved;
}

/** The morning after `date`: that day's punches are uploaded (night shifts end then), then absences run. */
async function morningAfter(date: string) {
  if (date === '2026-03-29') await toldSummerTime();
  now = berlin(nextDate(date), '07:00');
  const lines = punchesOf(date);
  await upload(
    plant,
    lines.filter((l) => l.terminal === 'plant'),
  );
  await upload(
    branch,
    lines.filter((l) => l.terminal === 'branch'),
  );
  const run = await server.admin.post('/jobs/generate-absences/run/', {});
  expect(run.body).toMatchObject({ status: 'succeeded', result: { from: date, to: date } });
}

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status }).toEqual({ path, status: 201 });
  return res.body;
}

async function day(employee: string, date: string) {
  const res = await server.admin.get(`/attendance-days/?employee=${employee}&from=${date}&to=${date}`);
  return res.body.results[0];
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const [employee, area] of [
    ['B1', 'branch'],
    ['D1', 'plant'],
    ['F1', 'plant'],
    ['I1', 'plant'],
    ['L1', 'plant'],
    ['N1', 'plant'],
  ] as const) {
    await created('/employees/', { id: employee, name: `Person ${employee}` });
    const e = await created('/enrollees/', { employee, areas: [area] });
    pins[employee] = e.device_pin;
    ids[employee] = e.id;
  }
  for (const [sn, area] of [
    ['PLANT01', 'plant'],
    ['BRANCH01', 'branch'],
  ] as const) {
    const t = new SimulatedTerminal({ url: server.url, sn, timeZone: ZONE });
    await t.handshake();
    expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: [area] })).status).toBe(200);
    if (sn === 'PLANT01') plant = t;
    else branch = t;
  }
  await created('/work-schedules/', { name: 'day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m' });
  await created('/work-schedules/', {
    name: 'night',
    start: '22:00',
    end: '06:00',
    grace_in: '10m',
    grace_out: '10m',
    break: '30m',
    weekdays: [1, 2, 3, 4, 5],
  });
  await created('/shift-assignments/', { schedule: 'day', area: 'plant', from: '2026-03-01' });
  await created('/shift-assignments/', { schedule: 'day', area: 'branch', from: '2026-03-01' });
  await created('/shift-assignments/', { schedule: 'night', enrollee: ids.N1, from: '2026-03-01' });
  await created('/leaves/', { enrollee: ids.L1, from: '2026-03-09', to: '2026-03-13', kind: 'annual' });
});
afterAll(async () => {
  await server.close();
});

describe('a month of a factory', () => {
  test('the plan: the night shift ends on the next date, own assignment beats the area’s, leave and weekends', async () => {
    const night = await server.admin.get(`/calendar/?employee=N1&from=2026-03-06&to=2026-03-07`);
    expect(night.status).toBe(200);
    expect(night.body.results).toEqual([
      {
        date: '2026-03-06',
        day_type: 'workday',
        schedule: {
          name: 'night',
          expected_start: '2026-03-06T21:00:00.000Z',
          expected_end: '2026-03-07T05:00:00.000Z',
          expected_seconds: 27000,
          grace_in_seconds: 600,
          grace_out_seconds: 600,
          break_seconds: 1800,
        },
        holiday: null,
        leave: null,
      },
      { date: '2026-03-07', day_type: 'weekend', schedule: null, holiday: null, leave: null },
    ]);
    const leave = await server.admin.get(`/calendar/?enrollee=${ids.L1}&from=2026-03-08&to=2026-03-09`);
    expect(leave.body.results.map((d: { day_type: string; leave: string | null }) => [d.day_type, d.leave])).toEqual([
      ['weekend', null],
      ['leave', 'annual'],
    ]);
  });

  test('the first half, day by day; a forgotten clock-out fixed by hand and a stray touch voided', async () => {
    for (const date of MARCH.slice(0, 15)) {
      await morningAfter(date);
      if (date === '2026-03-10') {
        expect(await day('F1', date)).toMatchObject({ status: 'incomplete', punch_count: 1 });
        const fixed = await server.admin.post('/punches/manual/', {
          enrollee: ids.F1,
          at: '2026-03-10 16:31',
          reason: 'forgot to clock out (told her manager)',
        });
        expect(fixed.status).toBe(201);
        expect(fixed.body).toMatchObject({ source: 'manual', device: null, voided: false, employee: 'F1', punched_at: '2026-03-10T15:31:00.000Z' });
        expect(await day('F1', date)).toMatchObject({ status: 'present', flags: ['manual'] });
      }
      if (date === '2026-03-11') {
        expect(await day('F1', date)).toMatchObject({ status: 'incomplete', punch_count: 3 });
        const stray = await server.admin.get(`/punches/?employee=F1&from=2026-03-11T11:00:00Z&to=2026-03-11T11:00:00Z`);
        expect(stray.body.results).toHaveLength(1);
        const voided = await server.admin.post(`/punches/${stray.body.results[0].id}/void/`, { reason: 'badge touched the reader passing by' });
        expect(voided.body).toMatchObject({ voided: true, source: 'device', device: 'PLANT01' });
        expect(await day('F1', date)).toMatchObject({ status: 'present', punch_count: 2, flags: [] });
      }
    }
    // Every correction is in the audit log with who did it and why.
    const trail = await server.admin.get('/audit-log/?from=2026-03-11&to=2026-03-12');
    const actions = trail.body.results.map((e: { action: string; actor: string; details: { reason?: string } }) => [e.action, e.actor, e.details.reason]);
    expect(actions).toEqual([
      ['punch.voided', 'admin@example.com', 'badge touched the reader passing by'],
      ['punch.manual', 'admin@example.com', 'forgot to clock out (told her manager)'],
    ]);
  });

  test('the first half is locked; what comes later for it is kept but changes nothing', async () => {
    now = berlin('2026-03-16', '08:00');
    const period = await created('/pay-periods/', { from: '2026-03-01', to: '2026-03-15' });
    const locked = await server.admin.post(`/pay-periods/${period.id}/lock/`);
    expect(locked.body).toMatchObject({ locked: true, locked_by: 'admin@example.com' });
    await created('/pay-periods/', { from: '2026-03-16', to: '2026-03-31' });
    const before = await day('D1', '2026-03-13');
    // A terminal kept a punch of the 13th offline and uploads it now.
    await upload(plant, [{ employee: 'D1', localTime: '2026-03-13 12:00:00' }]);
    const late = await server.admin.get(`/punches/?employee=D1&from=2026-03-13T11:00:00Z&to=2026-03-13T11:00:00Z`);
    expect(late.body.results[0]).toMatchObject({ flags: ['after_lock'], voided: false });
    expect(await day('D1', '2026-03-13')).toEqual(before);
    // A holiday declared now for a locked date changes no day either (the calendar shows it).
    await created('/holidays/', { date: '2026-03-02', name: 'Branch anniversary', areas: ['branch'] });
    expect(await day('B1', '2026-03-02')).toMatchObject({ status: 'present' });
    const plan = await server.admin.get('/calendar/?employee=B1&from=2026-03-02&to=2026-03-02');
    expect(plan.body.results[0]).toMatchObject({ day_type: 'holiday', holiday: 'Branch anniversary' });
    // A recompute skips the locked dates.
    expect((await server.admin.post('/attendance-days/recompute/', { from: '2026-03-01', to: '2026-03-15' })).body).toEqual({ recomputed: 0 });
  });

  test('the second half: an import for a broken terminal and a branch holiday declared after the fact', async () => {
    for (const date of MARCH.slice(15)) {
      await morningAfter(date);
      if (date === '2026-03-20') {
        expect(await day('I1', '2026-03-16')).toMatchObject({ status: 'absent', expected_seconds: 28800 });
        now = berlin('2026-03-21', '09:00');
        const lines = ['employee,at,state'];
        for (const d of ['16', '17', '18', '19', '20']) lines.push(`I1,2026-03-${d} 07:58,0`, `I1,2026-03-${d} 16:31,1`);
        lines.push('I1,2026-03-17 07:58,0', 'NOBODY,2026-03-18 07:58,0', 'I1,2026-03-32 07:58,0');
        const csv = `${lines.join('\r\n')}\r\n`;
        const post = () =>
          fetch(`${server.url}${API}/punches/import/`, { method: 'POST', headers: { ...server.admin.headers, 'content-type': 'text/csv' }, body: csv }).then(
            async (r) => ({ status: r.status, body: await r.json() }),
          );
        const first = await post();
        expect(first).toEqual({
          status: 200,
          body: {
            dry_run: false,
            imported: 10,
            duplicates: 1,
            errors: [
              { line: 13, message: 'no person has this employee ID' },
              { line: 14, message: expect.stringContaining('`at` must be') },
            ],
          },
        });
        // The corrected file imported again stores nothing twice.
        expect((await post()).body).toMatchObject({ imported: 0, duplicates: 11 });
        expect(await day('I1', '2026-03-16')).toMatchObject({ status: 'present', flags: ['manual'] });
      }
      if (date === '2026-03-22') {
        expect(await day('B1', '2026-03-19')).toMatchObject({ status: 'absent' });
        now = berlin('2026-03-23', '10:00');
        await created('/holidays/', { date: '2026-03-19', name: 'Town festival', areas: ['branch'] });
        expect(await day('B1', '2026-03-19')).toMatchObject({ status: 'holiday', expected_seconds: 0, schedule: null });
        // Only the branch: the plant worked.
        expect(await day('D1', '2026-03-19')).toMatchObject({ status: 'present' });
      }
    }
    now = berlin('2026-04-01', '07:30');
    const recomputed = await server.admin.post('/attendance-days/recompute/', { from: '2026-03-01', to: '2026-03-31' });
    expect(recomputed.body).toEqual({ recomputed: 6 * 16 });
  });

  test('the export of the month, line by line', async () => {
    const res = await fetch(`${server.url}${API}/attendance-days/export.csv?from=2026-03-01&to=2026-03-31`, { headers: server.admin.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await res.text()).split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe(
      'employee,name,date,status,schedule,first_in,last_out,worked,worked_seconds,expected,expected_seconds,late,late_seconds,early_leave,early_leave_seconds,overtime,overtime_seconds,punches,flags',
    );
    const expected = ['B1', 'D1', 'F1', 'I1', 'L1', 'N1'].flatMap((employee) => MARCH.map((date) => expectedRow(employee, date)));
    expect(lines.slice(1)).toEqual(expected);
    // One employee only.
    const one = await fetch(`${server.url}${API}/attendance-days/export.csv?from=2026-03-30&to=2026-03-31&employee=N1`, { headers: server.admin.headers });
    expect((await one.text()).split('\r\n').slice(1, -1)).toEqual([expectedRow('N1', '2026-03-30'), expectedRow('N1', '2026-03-31')]);
    // A typo in the employee is a 404 that says so, not a file of headers only.
    const typo = await fetch(`${server.url}${API}/attendance-days/export.csv?from=2026-03-30&to=2026-03-31&employee=NI`, { headers: server.admin.headers });
    expect(typo.status).toBe(404);
    expect(await typo.json()).toMatchObject({ error: { code: 'not_found', message: 'employee not found', details: { employee: 'NI' } } });
    // Streamed page by page: pages of 7 rows (cutting through employees) give the same bytes.
    const paged = await server.fpa.service.reports.exportCsv({ from: '2026-03-01', to: '2026-03-31' }, { pageRows: 7 });
    expect(await new Response(paged).text()).toBe([lines[0], ...expected, ''].join('\r\n'));
    // Pages of one row (186 of them): the same bytes, and a full collection after every 100th
    // page, so that a long export's garbage does not grow the server's heap.
    const collect = Bun.gc;
    let collections = 0;
    Bun.gc = (force) => {
      if (force) collections++;
      return collect(force);
    };
    try {
      const onePerPage = await server.fpa.service.reports.exportCsv({ from: '2026-03-01', to: '2026-03-31' }, { pageRows: 1 });
      expect(await new Response(onePerPage).text()).toBe([lines[0], ...expected, ''].join('\r\n'));
    } finally {
      Bun.gc = collect;
    }
    expect(collections).toBe(1);
  });

  test('the summary of the month, employee by employee', async () => {
    const res = await server.admin.get('/attendance-summary/?from=2026-03-01&to=2026-03-31');
    expect(res.status).toBe(200);
    const zero = { days_incomplete: 0, days_absent: 0, days_on_leave: 0, days_holiday: 0, days_late: 0, days_early_leave: 0, days_worked_off: 0 };
    const zeroSeconds = { overtime_seconds: 0, late_seconds: 0, early_leave_seconds: 0 };
    const who = (employee: string) => ({ employee, enrollee: ids[employee], name: `Person ${employee}`, days: 31 });
    expect(res.body).toEqual({
      results: [
        {
          ...who('B1'),
          ...zero,
          ...zeroSeconds,
          days_present: 21,
          days_holiday: 1,
          days_off: 9,
          days_manual: 0,
          worked_seconds: 21 * 28980,
          expected_seconds: 21 * 28800,
        },
        {
          ...who('D1'),
          ...zero,
          ...zeroSeconds,
          days_present: 22,
          days_off: 9,
          days_late: 1,
          late_seconds: 1200,
          days_manual: 0,
          worked_seconds: 21 * 28980 + 27660,
          expected_seconds: 22 * 28800,
        },
        { ...who('F1'), ...zero, ...zeroSeconds, days_present: 22, days_off: 9, days_manual: 1, worked_seconds: 22 * 28980, expected_seconds: 22 * 28800 },
        { ...who('I1'), ...zero, ...zeroSeconds, days_present: 22, days_off: 9, days_manual: 5, worked_seconds: 22 * 28980, expected_seconds: 22 * 28800 },
        {
          ...who('L1'),
          ...zero,
          ...zeroSeconds,
          days_present: 17,
          days_on_leave: 5,
          days_off: 9,
          days_manual: 0,
          worked_seconds: 17 * 28980,
          expected_seconds: 17 * 28800,
        },
        {
          ...who('N1'),
          ...zero,
          ...zeroSeconds,
          days_present: 22,
          days_off: 9,
          days_early_leave: 1,
          early_leave_seconds: 3600,
          days_manual: 0,
          worked_seconds: 21 * 27600 + 23700,
          expected_seconds: 22 * 27000,
        },
      ],
      next_cursor: null,
    });
    const one = await server.admin.get('/attendance-summary/?from=2026-03-01&to=2026-03-15&employee=L1');
    expect(one.body.results).toEqual([expect.objectContaining({ employee: 'L1', days: 15, days_present: 5, days_on_leave: 5, days_off: 5 })]);
    const typo = await server.admin.get('/attendance-summary/?from=2026-03-01&to=2026-03-15&employee=LI');
    expect(typo.status).toBe(404);
    expect(typo.body.error).toMatchObject({ code: 'not_found', details: { employee: 'LI' } });
  });

  test('a name from outside is written as text a spreadsheet shows, quoted where CSV needs it', async () => {
    const name = '=HYPERLINK("http://x"), Jr.';
    await created('/employees/', { id: 'Q1', name });
    const e = await created('/enrollees/', { employee: 'Q1', areas: ['plant'] });
    expect((await server.admin.post('/punches/manual/', { enrollee: e.id, at: '2026-04-01 07:00', reason: 'first day' })).status).toBe(201);
    const res = await fetch(`${server.url}${API}/attendance-days/export.csv?from=2026-04-01&to=2026-04-01&employee=Q1`, { headers: server.admin.headers });
    const [header, line, end] = (await res.text()).split('\r\n');
    expect([header?.startsWith('employee,name,date,'), end]).toEqual([true, '']);
    expect(line).toStartWith(`Q1,"'=HYPERLINK(""http://x""), Jr.",2026-04-01,`);
    expect(parseCsv(`${line}\r\n`)).toEqual([{ line: 1, fields: expect.arrayContaining(['Q1', `'${name}`, '2026-04-01', '2026-04-01 07:00:00']) }]);
  });
});

/** The export line of one employee and date, from the story above (figures worked out by hand). */
function expectedRow(employee: string, date: string): string {
  const row = (status: string, schedule: string, firstIn: string, lastOut: string, figures: string, punches: number, flags = '') =>
    `${employee},Person ${employee},${date},${status},${schedule},${firstIn},${lastOut},${figures},${punches},${flags}`;
  const none = '0:00,0';
  const empty = (status: string) => row(status, '', '', '', [none, none, none, none, none].join(','), 0);
  if (isWeekend(date)) return empty('non_working_day');
  // A day shift 07:58–16:31 is 8 h 33 min less the 30 min break: 8:03 worked, 8:00 expected, 3 min over (within grace).
  const dayShift = (flags = '', firstIn = '07:58') => {
    if (firstIn === '08:20')
      return row('present', 'day', `${date} 08:20:00`, `${date} 16:31:00`, ['7:41,27660', '8:00,28800', '0:20,1200', none, none].join(','), 2, flags);
    return row('present', 'day', `${date} 07:58:00`, `${date} 16:31:00`, ['8:03,28980', '8:00,28800', none, none, none].join(','), 2, flags);
  };
  switch (employee) {
    case 'B1':
      return date === '2026-03-19' ? empty('holiday') : dayShift();
    case 'D1':
      return date === '2026-03-03' ? dayShift('late', '08:20') : dayShift();
    case 'F1':
      return dayShift(date === '2026-03-10' ? 'manual' : '');
    case 'I1':
      return dayShift(date >= '2026-03-16' && date <= '2026-03-20' ? 'manual' : '');
    case 'L1':
      return date >= '2026-03-09' && date <= '2026-03-13' ? empty('on_leave') : dayShift();
    default: {
      // N1's night 21:55–06:05 is 8 h 10 min less the break: 7:40 worked, 7:30 expected (10 min over: within grace).
      const out = nextDate(date);
      if (date === '2026-03-24') {
        return row(
          'present',
          'night',
          `${date} 21:55:00`,
          `${out} 05:00:00`,
          ['6:35,23700', '7:30,27000', none, '1:00,3600', none].join(','),
          2,
          'early_leave',
        );
      }
      return row('present', 'night', `${date} 21:55:00`, `${out} 06:05:00`, ['7:40,27600', '7:30,27000', none, none, none].join(','), 2);
    }
  }
}
