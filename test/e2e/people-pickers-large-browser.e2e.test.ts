/**
 * The person pickers and the attendance grid of a company past the API's page of 1,000 people:
 * 1,050 test people whose names sort first ("Aaron Test 0001…", seeded straight into the schema:
 * fast), then the real staff (imported).
 * Each picker finds a person as it is typed (the server's search), so someone past the first
 * 1,000 can be chosen: a missing punch added, their punches found, their timesheet previewed by
 * employee id, name or "Name (id)"; the grid shows them as a person, never as someone deleted.
 * On the Shifts page a leave and a schedule are given to people past the first 1,000 (the people
 * chooser adds several, as typed), and the lists name them; the People page's "not enrolled yet"
 * is the server's answer, not a comparison of two first pages.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { goTo, launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { seedPeople } from '../support/people';

const FILLER = 1050;
const STAFF: [string, string][] = [
  ['N1', 'Anna Albers'],
  ['N2', 'Bruno Berg'],
  ['N3', 'Carla Díaz'],
  ['N4', 'Dario Dietz'],
  ['N5', 'Eva Ernst'],
  ['N6', 'Felix Falk'],
  ['N7', 'Greta Graf'],
  ['N8', 'Hanna Horn'],
  ['N9', 'Ivo Imhof'],
  ['N10', 'Jonas Jung'],
];
const MONDAY = '2031-03-03';
let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  const now = Date.parse(`${MONDAY}T10:00:00Z`);
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => now } }), launchBrowser()]);
  // The test people straight into the schema (fast); the real staff through the import, as HR adds people.
  const number = (i: number) => String(i + 1).padStart(4, '0');
  await seedPeople(
    server,
    Array.from({ length: FILLER }, (_, i) => ({ employee: `T-${number(i)}`, name: `Aaron Test ${number(i)}` })),
  );
  const imported = await fetch(`${server.admin.base}/employees/import/`, {
    method: 'POST',
    headers: { authorization: server.admin.headers.authorization!, 'content-type': 'text/csv' },
    body: ['id,name,areas', ...STAFF.map(([id, name]) => `${id},${name},`)].join('\r\n'),
  });
  expect(((await imported.json()) as { created: number }).created).toBe(STAFF.length);
  expect((await server.admin.get('/enrollees/?limit=1000')).body.next_cursor).not.toBeNull();
  page = await signedInPage(browser, server, errors, { context: { viewport: { width: 1100, height: 800 } }, now });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

function go(hash: string, heading: string): Promise<void> {
  return goTo(page, hash, heading);
}

/** Types into a person picker (or the people chooser's field) and chooses the suggestion `label` from the keyboard. */
async function choose(picker: Locator, typed: string, label: string): Promise<void> {
  await picker.fill(typed);
  const option = page.locator(`#${await picker.getAttribute('aria-controls')}`).getByRole('option', { name: label, exact: true });
  await option.waitFor();
  while ((await option.getAttribute('aria-selected')) !== 'true') await picker.press('ArrowDown');
  await picker.press('Enter');
  expect(await picker.getAttribute('aria-expanded')).toBe('false');
}

/** Chooses a person in a person picker: the field then reads "Name (id)". */
async function pick(picker: Locator, typed: string, label: string): Promise<void> {
  await choose(picker, typed, label);
  expect(await picker.inputValue()).toBe(label);
}

test('punches: a missing punch added for people past the first 1,000, chosen or typed; their punches found', async () => {
  await go('#/punches', 'Punches');
  const add = page.getByRole('region', { name: 'Add a missing punch' });
  const who = add.getByRole('combobox', { name: 'Person' });
  await pick(who, 'dietz', 'Dario Dietz (N4)');
  await add.getByLabel('Time').fill('09:00');
  await add.getByLabel('Reason').fill('forgot to clock in');
  await add.getByRole('button', { name: 'Add punch' }).click();
  await add.getByText(/^Punch added at/).waitFor();
  // An employee id typed, not chosen, names the person too.
  await who.fill('N10');
  await add.getByLabel('Time').fill('08:30');
  await add.getByLabel('Reason').fill('paper sheet');
  await add.getByRole('button', { name: 'Add punch' }).click();
  await add.getByText(/^Punch added at/).waitFor();
  const punches = (await server.admin.get('/punches/?limit=10')).body.results as { employee: string }[];
  expect(punches.map((p) => p.employee).sort()).toEqual(['N10', 'N4']);

  const find = page.getByRole('region', { name: 'Find punches' });
  await pick(find.getByRole('combobox', { name: 'Person' }), 'Jonas', 'Jonas Jung (N10)');
  await find.getByRole('button', { name: 'Show', exact: true }).click();
  const rows = find.locator('tbody tr');
  await rows.filter({ hasText: 'Jonas Jung' }).waitFor();
  // The list shown before (everyone's punches, his among them) may still be there: its answer first.
  for (const deadline = Date.now() + 8000; (await rows.count()) !== 1 && Date.now() < deadline; ) await Bun.sleep(50);
  expect(await rows.count()).toBe(1);
  // The list names the people of its punches (asked for by id), past the first 1,000 too.
  await find.getByRole('combobox', { name: 'Person' }).fill('');
  await find.getByRole('button', { name: 'Show', exact: true }).click();
  await rows.filter({ hasText: 'Dario Dietz' }).waitFor();
  expect(await rows.filter({ hasText: 'Jonas Jung' }).count()).toBe(1);
});

test('timesheet: a person past the first 1,000 found by employee id, name, or "Name (id)"', async () => {
  await go('#/reports/timesheet', 'Reports');
  await page.getByRole('button', { name: 'This month' }).click();
  const person = page.getByRole('combobox', { name: 'Person' });
  const preview = page.locator('#report-preview');
  for (const [typed, shown] of [
    ['N1', 'Anna Albers'],
    ['Anna', 'Anna Albers'],
    ['Anna Albers (N1)', 'Anna Albers'],
    ['ivo', 'Ivo Imhof'],
    ['Jonas Jung (N10)', 'Jonas Jung'],
    ['diaz', 'Carla Díaz'],
  ]) {
    await person.fill(typed!);
    await page.getByRole('button', { name: 'Preview' }).click();
    await preview.getByRole('heading', { level: 3, name: new RegExp(shown!) }).waitFor();
    expect(await page.getByText('No one by that name or employee id.').count()).toBe(0);
  }
  // Chosen from the suggestions as typed.
  await pick(person, 'hann', 'Hanna Horn (N8)');
  await page.getByRole('button', { name: 'Preview' }).click();
  await preview.getByRole('heading', { level: 3, name: /Hanna Horn/ }).waitFor();
});

test('attendance grid: pages of people by name, a real person found and shown as a person, with the form to add a punch', async () => {
  await go('#/attendance', 'Attendance');
  const grid = page.locator('#attendance-grid');
  await grid.getByRole('row', { name: /Aaron Test 0001/ }).waitFor();
  expect(await grid.locator('tbody tr').count()).toBe(50);
  await page.getByRole('button', { name: 'Next people' }).waitFor();
  const period = page.getByRole('region', { name: 'Period', exact: true });
  await period.getByLabel('People').fill('Dario');
  await period.getByRole('button', { name: 'Show', exact: true }).click();
  const dario = grid.getByRole('row', { name: /Dario Dietz/ });
  await dario.getByRole('link', { name: 'Dario Dietz' }).waitFor();
  expect(await grid.locator('tbody tr').count()).toBe(1);
  expect(await grid.getByText(/deleted/).count()).toBe(0);
  await dario.getByRole('button', { name: /Dario Dietz, .*: still in/ }).click();
  await page.getByRole('heading', { level: 2, name: /^Dario Dietz,/ }).waitFor();
  const form = page.getByRole('region', { name: 'Add a missing punch' });
  expect(await form.getByRole('combobox', { name: 'Person' }).inputValue()).toBe('Dario Dietz (N4)');
  await form.getByLabel('Time').fill('09:45');
  await form.getByLabel('Reason').fill('forgot to clock out');
  await form.getByRole('button', { name: 'Add punch' }).click();
  await dario.getByRole('button', { name: /Dario Dietz, .*: Present/ }).waitFor();
  expect(errors).toEqual([]);
});

test('shifts: a leave and a schedule given to people past the first 1,000, found as typed; the lists name them', async () => {
  expect((await server.admin.post('/work-schedules/', { name: 'Late', start: '14:00', end: '22:00' })).status).toBe(201);
  const idOf = async (employee: string): Promise<string> => (await server.admin.get(`/enrollees/?employee=${employee}`)).body.results[0].id;
  await go('#/shifts', 'Shifts and calendar');
  const leave = page.getByRole('region', { name: 'Leave' });
  await pick(leave.getByRole('combobox', { name: 'Person' }), 'graf', 'Greta Graf (N7)');
  await leave.getByLabel('From').fill('2031-03-10');
  await leave.getByLabel('To').fill('2031-03-12');
  await leave.getByLabel('Kind').fill('sick');
  await leave.getByRole('button', { name: 'Add leave' }).click();
  await leave.getByRole('row', { name: /Greta Graf/ }).waitFor();
  expect((await server.admin.get(`/leaves/?enrollee=${await idOf('N7')}`)).body.results).toMatchObject([
    { from: '2031-03-10', to: '2031-03-12', kind: 'sick' },
  ]);

  const assign = page.getByRole('region', { name: 'Who works which schedule' });
  await assign.getByLabel('Schedule').selectOption({ label: 'Late' });
  await assign.getByLabel('Assign to').selectOption({ label: 'Chosen people' });
  const people = assign.getByRole('group', { name: 'People' });
  const field = people.getByRole('combobox', { name: 'Add a person' });
  const chosen = people.getByRole('list', { name: 'People chosen' });
  // Chosen from the suggestions; an employee id typed and Enter (the form is not sent); one removed again.
  await choose(field, 'hann', 'Hanna Horn (N8)');
  expect(await field.inputValue()).toBe('');
  await field.fill('N9');
  await field.press('Enter');
  await chosen.getByText('Ivo Imhof (N9)').waitFor();
  await choose(field, 'falk', 'Felix Falk (N6)');
  expect(await chosen.getByRole('listitem').allTextContents()).toEqual(['Hanna Horn (N8)Remove', 'Ivo Imhof (N9)Remove', 'Felix Falk (N6)Remove']);
  await people.getByRole('button', { name: 'Remove Felix Falk (N6)' }).press('Enter');
  expect(await chosen.getByRole('listitem').count()).toBe(2);
  expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
  // Another change redraws the page: the people being chosen stay.
  const periods = page.getByRole('region', { name: 'Pay periods' });
  await periods.getByLabel('From').fill('2031-03-01');
  await periods.getByLabel('To').fill('2031-03-31');
  await periods.getByRole('button', { name: 'Add pay period' }).click();
  await periods.getByRole('cell', { name: 'Open' }).waitFor();
  expect(await chosen.getByRole('listitem').count()).toBe(2);
  await assign.getByLabel('From').fill(MONDAY);
  await assign.getByRole('button', { name: 'Assign' }).click();
  await page.getByText('Late assigned to 2 people.').waitFor();
  for (const [employee, name] of [
    ['N8', 'Hanna Horn'],
    ['N9', 'Ivo Imhof'],
  ] as const) {
    expect((await server.admin.get(`/shift-assignments/?enrollee=${await idOf(employee)}`)).body.results).toMatchObject([{ schedule: 'Late', from: MONDAY }]);
    await assign.getByRole('row', { name: new RegExp(name) }).waitFor();
  }
  // Sent: nobody is chosen any more.
  expect(await chosen.getByRole('listitem').count()).toBe(0);
  expect((await server.admin.get(`/shift-assignments/?enrollee=${await idOf('N6')}`)).body.results).toEqual([]);
  expect(errors).toEqual([]);
});

test('people: the employees not enrolled yet are the server’s answer, one past the first 1,000 of each list too', async () => {
  expect((await server.admin.post('/employees/', { id: 'Z-LATE', name: 'Zora Late' })).status).toBe(201);
  await go('#/people', 'People');
  const notEnrolled = page.getByRole('region', { name: 'Employees not enrolled yet' });
  await notEnrolled.getByRole('row', { name: /Z-LATE/ }).waitFor();
  // Only her: none of the 1,060 people enrolled is taken for one not enrolled.
  expect(await notEnrolled.locator('tbody tr').count()).toBe(1);
  await notEnrolled.getByText('1 employee', { exact: true }).waitFor();
  expect(errors).toEqual([]);
});
