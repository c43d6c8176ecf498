/**
 * The Today board and the people search through the real server: a simulated terminal punches
 * over ADMS, the clock moves through a Monday in Berlin, and `attendance/today/` answers who is
 * in, late, not in yet, absent, on leave, on holiday; `enrollees/` finds people by a part of
 * their name, their card, their PIN, filters and sorts them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SignJWT } from 'jose';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { ApiClient, JWT_SECRET, startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
const MONDAY = '2026-03-02';
/** A Berlin wall time on a date (CET). */
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2026-02-27', '12:00');
let server: TestServer;
let terminal: SimulatedTerminal;
const people: Record<string, { id: string; pin: string }> = {};

const PEOPLE = [
  ['E-01', 'Anna Schmidt', 'plant'],
  ['E-02', 'Bruno Keller', 'plant'],
  ['E-03', 'Carla Díaz', 'plant'],
  ['E-04', 'Dieter Braun', 'plant'],
  ['E-05', 'Eva Lind', 'office'],
  ['E-06', 'Felix Roth', 'plant'],
] as const;

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ path, status: 201, body: null });
  return res.body;
}

async function punch(employee: string, time: string) {
  const res = await terminal.punch([{ pin: people[employee]!.pin, localTime: `${MONDAY} ${time}:00` }]);
  expect(res.status).toBe(200);
}

async function board(query = '') {
  const res = await server.admin.get(`/attendance/today/${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

const who = (b: { people: { employee: string; status: string; in_now: boolean }[] }, status: string) =>
  b.people.filter((p) => p.status === status).map((p) => p.employee);

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } });
  for (const [employee, name, area] of PEOPLE) {
    await created('/employees/', { id: employee, name });
    const e = await created('/enrollees/', { employee, areas: [area] });
    people[employee] = { id: e.id, pin: e.device_pin };
    now += 60_000;
  }
  terminal = new SimulatedTerminal({ url: server.url, sn: 'GATE01', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/GATE01/approve/', { areas: ['plant', 'office'] })).status).toBe(200);
  await created('/work-schedules/', { name: 'day', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m' });
  await created('/shift-assignments/', { schedule: 'day', area: 'plant', from: '2026-03-01' });
  await created('/shift-assignments/', { schedule: 'day', area: 'office', from: '2026-03-01' });
  await created('/leaves/', { enrollee: people['E-04']!.id, from: MONDAY, to: '2026-03-06', kind: 'annual' });
  await created('/holidays/', { date: MONDAY, name: 'Office closed', areas: ['office'] });
  expect((await server.admin.patch(`/enrollees/${people['E-06']!.id}/`, { card: '0004711' })).status).toBe(200);
  now = berlin(MONDAY, '06:00');
});
afterAll(async () => {
  await server.close();
});

describe('the Today board', () => {
  test('before work: leave and holiday show without a punch; the others are not due yet', async () => {
    const b = await board();
    expect(b.date).toBe(MONDAY);
    expect(b.counts).toMatchObject({ expected: 4, present: 0, late: 0, not_in_yet: 0, absent: 0, on_leave: 1, holiday: 1, off: 0, scheduled: 4 });
    expect(who(b, 'on_leave')).toEqual(['E-04']);
    expect(who(b, 'holiday')).toEqual(['E-05']);
  });

  test('at 10:00: who is in, who is late, who is not in yet; someone who came and went is out', async () => {
    now = berlin(MONDAY, '07:58');
    await punch('E-01', '07:58');
    now = berlin(MONDAY, '08:20');
    await punch('E-06', '07:55');
    await punch('E-02', '08:20');
    now = berlin(MONDAY, '10:00');
    await punch('E-06', '09:30');
    const b = await board();
    expect(b.counts).toMatchObject({ expected: 4, present: 3, late: 1, not_in_yet: 1, absent: 0, on_leave: 1, holiday: 1, out: 1, in_now: 2 });
    expect(who(b, 'late')).toEqual(['E-02']);
    expect(who(b, 'not_in_yet')).toEqual(['E-03']);
    expect(b.people.filter((p: { in_now: boolean }) => p.in_now).map((p: { employee: string }) => p.employee)).toEqual(['E-01', 'E-02']);
    const bruno = b.people.find((p: { employee: string }) => p.employee === 'E-02');
    expect(bruno).toMatchObject({
      display_name: 'Bruno Keller',
      areas: ['plant'],
      schedule: 'day',
      expected_start: new Date(berlin(MONDAY, '08:00')).toISOString(),
      first_in: new Date(berlin(MONDAY, '08:20')).toISOString(),
      last_out: null,
      late_seconds: 20 * 60,
      in_now: true,
    });
    const felix = b.people.find((p: { employee: string }) => p.employee === 'E-06');
    expect(felix).toMatchObject({ status: 'present', in_now: false, last_out: new Date(berlin(MONDAY, '09:30')).toISOString() });
    // People in name order; the status filter keeps the counts whole.
    expect(b.people.map((p: { display_name: string }) => p.display_name)).toEqual([...PEOPLE.map((p) => p[1])].sort((a, c) => a.localeCompare(c)));
    const late = await board('?status=late');
    expect(late.people.map((p: { employee: string }) => p.employee)).toEqual(['E-02']);
    expect(late.counts).toEqual(b.counts);
    // A count's people, as its tile lists them: came in is the on-time and the late, in now and left split them.
    const employees = (x: { people: { employee: string }[] }) => x.people.map((p) => p.employee);
    expect(employees(await board('?count=present'))).toEqual(['E-01', 'E-02', 'E-06']);
    expect(employees(await board('?count=in_now'))).toEqual(['E-01', 'E-02']);
    expect(employees(await board('?count=out'))).toEqual(['E-06']);
    expect((await board('?count=expected')).people_total).toBe(b.counts.expected);
    // The first of them by name, with how many there are: what a console asks for at every live read.
    const first = await board('?count=present&limit=2');
    expect([employees(first), first.people_total, first.counts]).toEqual([['E-01', 'E-02'], 3, b.counts]);
    expect(b.people_total).toBe(b.people.length);
    expect((await server.admin.get('/attendance/today/?count=everyone')).status).toBe(400);
    expect((await server.admin.get('/attendance/today/?limit=0')).status).toBe(400);
  });

  test('by area, and the caller’s areas', async () => {
    const b = await board();
    expect(b.areas.map((a: { area: string }) => a.area)).toEqual(['office', 'plant']);
    expect(b.areas[0].counts).toMatchObject({ holiday: 1, expected: 0 });
    expect(b.areas[1].counts).toMatchObject({ expected: 4, present: 3, late: 1, on_leave: 1 });
    const office = await board('?area=office');
    expect(office.people.map((p: { employee: string }) => p.employee)).toEqual(['E-05']);
    const token = await new SignJWT({ scope: 'fpa:admin', fpa_role: 'manager', fpa_areas: ['office'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('manager@example.com')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const manager = new ApiClient(server.admin.base, { authorization: `Bearer ${token}` });
    const scoped = await manager.get('/attendance/today/');
    expect(scoped.status).toBe(200);
    expect(scoped.body.people.map((p: { employee: string }) => p.employee)).toEqual(['E-05']);
    expect(scoped.body.areas.map((a: { area: string }) => a.area)).toEqual(['office']);
    expect((await manager.get('/attendance/today/?area=plant')).status).toBe(404);
    const list = await manager.get('/enrollees/');
    expect(list.body.results.map((e: { employee: string }) => e.employee)).toEqual(['E-05']);
  });

  test('after the shift has ended, who never came is absent; other dates work too', async () => {
    now = berlin(MONDAY, '17:00');
    const b = await board();
    expect(b.counts).toMatchObject({ not_in_yet: 0, absent: 1 });
    expect(who(b, 'absent')).toEqual(['E-03']);
    const sunday = await board('?date=2026-03-01');
    expect(sunday.counts).toMatchObject({ expected: 0, off: 6 });
    const tuesday = await board('?date=2026-03-03');
    expect(tuesday.counts).toMatchObject({ expected: 5, scheduled: 5, on_leave: 1, holiday: 0 });
    now = berlin('2026-03-03', '12:00');
    const yesterday = await board(`?date=${MONDAY}`);
    expect(yesterday.counts).toMatchObject({ present: 3, late: 1, absent: 1, in_now: 0 });
    expect((await server.admin.get('/attendance/today/?date=2026-02-30')).status).toBe(400);
  });
});

describe('finding people', () => {
  const find = async (query: string) => {
    const res = await server.admin.get(`/enrollees/${query}`);
    expect(res.status).toBe(200);
    return res.body.results.map((e: { employee: string }) => e.employee);
  };

  test('by a part of the name, the employee id, the PIN, the card', async () => {
    expect(await find('?search=schm')).toEqual(['E-01']);
    expect(await find('?search=KELL')).toEqual(['E-02']);
    expect(await find('?search=rl%20di')).toEqual(['E-03']);
    expect(await find('?search=E-05')).toEqual(['E-05']);
    expect(await find(`?search=${people['E-04']!.pin}`)).toEqual(['E-04']);
    expect(await find('?search=4711')).toEqual(['E-06']);
    expect(await find('?search=004711')).toEqual(['E-06']);
    expect(await find('?search=%25')).toEqual([]);
  });

  test('filters and sorts, with paging', async () => {
    expect(await find('?area=office')).toEqual(['E-05']);
    expect(await find('?consent=given')).toEqual([]);
    expect((await find('?consent=missing')).length).toBe(6);
    expect((await find('?biometrics=none')).length).toBe(6);
    expect(await find('?biometrics=some')).toEqual([]);
    expect(await find('?sort=name')).toEqual(['E-01', 'E-02', 'E-03', 'E-04', 'E-05', 'E-06']);
    expect(await find('?sort=-created_at')).toEqual(['E-06', 'E-05', 'E-04', 'E-03', 'E-02', 'E-01']);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { results: { employee: string }[]; next_cursor: string | null } } = await server.admin.get(
        `/enrollees/?sort=name&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...res.body.results.map((e) => e.employee));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['E-01', 'E-02', 'E-03', 'E-04', 'E-05', 'E-06']);
    expect((await server.admin.get('/enrollees/?sort=pin&cursor=bad')).status).toBe(400);
  });

  test('by ids: exactly those people, in one request; the days of several people, or of those not active now', async () => {
    const ids = ['E-02', 'E-05', 'E-01'].map((e) => people[e]!.id);
    // An id nobody has (deleted since) is simply not listed.
    expect(await find(`?ids=${ids.join(',')},00000000-0000-4000-8000-000000000000&sort=name`)).toEqual(['E-01', 'E-02', 'E-05']);
    expect((await server.admin.get(`/enrollees/?ids=${Array.from({ length: 101 }, (_, i) => `id-${i}`).join(',')}`)).status).toBe(400);
    const days = async (query: string) => {
      const res = await server.admin.get(`/attendance-days/?from=${MONDAY}&to=${MONDAY}&limit=1000${query}`);
      expect(res.status).toBe(200);
      return (res.body.results as { employee: string }[]).map((d) => d.employee).sort();
    };
    const everyone = await days('');
    expect(everyone).toContain('E-01');
    expect(await days(`&enrollee=${ids.join(',')}`)).toEqual(everyone.filter((e) => ['E-01', 'E-02', 'E-05'].includes(e)));
    expect(await days('&inactive=true')).toEqual([]);
    expect((await server.admin.patch(`/enrollees/${people['E-01']!.id}/`, { active: false })).status).toBe(200);
    try {
      expect(await days('&inactive=true')).toEqual(['E-01']);
    } finally {
      expect((await server.admin.patch(`/enrollees/${people['E-01']!.id}/`, { active: true })).status).toBe(200);
    }
  });

  test('a terminal’s users are listed in numeric PIN order', async () => {
    const users = ['10020', '2', '11', '1', '10'].map(
      (pin) => `USER PIN=${pin}\tName=Menu ${pin}\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`,
    );
    expect((await terminal.post('cdata', { table: 'OPERLOG', Stamp: '20' }, users.join(''))).body).toBe('OK:5');
    const list = await server.admin.get('/devices/GATE01/users/');
    const pins = (Array.isArray(list.body) ? list.body : list.body.results).map((u: { pin: string }) => u.pin);
    const own = pins.filter((p: string) => ['1', '2', '10', '11', '10020'].includes(p));
    expect(own).toEqual(['1', '2', '10', '11', '10020']);
    const numbers = pins.map(Number);
    expect([...numbers].sort((a: number, b: number) => a - b)).toEqual(numbers);
  });

  test('a correction carries its reason: a manual punch, a void', async () => {
    const manual = await server.admin.post('/punches/manual/', { enrollee: people['E-03']!.id, at: `${MONDAY} 18:00`, reason: 'forgot to clock in' });
    expect(manual.status).toBe(201);
    expect(manual.body).toMatchObject({ source: 'manual', correction_reason: 'forgot to clock in' });
    const voided = await server.admin.post(`/punches/${manual.body.id}/void/`, { reason: 'entered for the wrong person' });
    expect(voided.body).toMatchObject({ voided: true, correction_reason: 'forgot to clock in', void_reason: 'entered for the wrong person' });
    const listed = await server.admin.get(`/punches/?employee=E-03&from=${MONDAY}&to=${MONDAY}`);
    expect(listed.body.results.map((p: { correction_reason: string | null; void_reason: string | null }) => [p.correction_reason, p.void_reason])).toEqual([
      ['forgot to clock in', 'entered for the wrong person'],
    ]);
  });
});
