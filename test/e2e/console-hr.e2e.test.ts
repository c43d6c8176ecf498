/**
 * The HR officer's console of issue 26 in a real browser, with the product's default (an unknown
 * area is refused): an area created from the picker, a terminal approved into an area, an error
 * shown beside its field in plain words, people imported from a CSV after a dry run, a schedule
 * assigned to an area and seen in the calendar, and a manual punch on a locked day that says it
 * was not applied. Screenshots in /tmp/shots-hrconsole (or FPA_SCREENSHOTS).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { consoleDate, goTo, launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
let page: Page;
const shots = process.env.FPA_SCREENSHOTS ?? '/tmp/shots-hrconsole';
mkdirSync(shots, { recursive: true });
const ZONE = 'Europe/Berlin';
const errors: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

function go(hash: string, heading: string | RegExp): Promise<void> {
  return goTo(page, hash, heading);
}

/** The Monday of this week in the zone, `YYYY-MM-DD`. */
function thisMonday(): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
  const d = new Date(`${today}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: ZONE, AREAS_CREATED_ON_USE: false }), launchBrowser()]);
  page = await signedInPage(browser, server, errors);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('HR at a glance in the console', () => {
  test('an area is created from the picker while adding a person; a typo cannot create one', async () => {
    await go('#/people', 'People');
    // Nobody yet: the list says what to do rather than that nobody matches.
    await page.getByText('No one yet: add a person above, or import a file (People › Import).').waitFor();
    await page.getByRole('button', { name: 'Create new area…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New area' });
    await dialog.getByLabel('Area name').fill('Head Office');
    await dialog.getByLabel('Description').fill('Main building');
    await shot('area-picker-create');
    await dialog.getByRole('button', { name: 'Create area' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByRole('checkbox', { name: 'Head Office' }).isChecked()).toBe(true);
    await page.getByLabel('Employee ID').fill('E-100');
    await page.getByLabel('Name', { exact: true }).fill('Ada Obi');
    await page.getByRole('button', { name: 'Add person' }).click();
    await page.getByRole('heading', { level: 1, name: /Ada Obi/ }).waitFor();
    expect((await server.admin.get('/enrollees/?employee=E-100')).body.results[0].areas).toEqual(['Head Office']);
    // The same name again is refused beside the field, in plain words.
    await go('#/areas', 'Areas');
    await page.getByRole('button', { name: 'Create an area' }).click();
    await page.getByRole('dialog').getByLabel('Area name').fill('Head Office');
    await page.getByRole('dialog').getByRole('button', { name: 'Create area' }).click();
    await page.getByRole('dialog').getByText('An area with this name exists.').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await go('#/areas/Head%20Office', 'Head Office');
    await page.getByRole('link', { name: 'Ada Obi' }).waitFor();
    await shot('area');
  });

  test('a terminal is approved into the areas chosen', async () => {
    const terminal = new SimulatedTerminal({ url: server.url, sn: 'HRDOOR01', timeZone: ZONE });
    await terminal.handshake();
    await go('#/terminals/HRDOOR01', /HRDOOR01/);
    const approve = page.getByRole('region', { name: 'Approve this terminal' });
    // One place chooses its areas until it is approved (Settings has none that could disagree).
    expect(await page.getByRole('checkbox', { name: 'Head Office' }).count()).toBe(1);
    // Nothing is ticked for it: the area it registered in (default) is not chosen unless ticked.
    expect(await approve.getByRole('checkbox', { name: 'default' }).isChecked()).toBe(false);
    await approve.getByRole('checkbox', { name: 'Head Office' }).check();
    await shot('terminal-approve');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText(/approved: the people of its areas are being sent/).waitFor();
    expect((await server.admin.get('/devices/HRDOOR01/')).body).toMatchObject({ status: 'approved', areas: ['Head Office'] });
    // Approved, its areas are changed in Settings.
    await page.getByRole('region', { name: 'Settings' }).getByRole('checkbox', { name: 'Head Office' }).waitFor();
    // Its waiting commands are listed first: Ada is being sent to it.
    await page.getByRole('heading', { level: 3, name: /Waiting \(\d+\)/ }).waitFor();
  });

  test('an error is shown beside its field, in plain words', async () => {
    const ada = (await server.admin.get('/enrollees/?employee=E-100')).body.results[0];
    await go(`#/people/${ada.id}`, /Ada Obi/);
    await page.getByLabel('Card number').fill('12ab');
    await page.getByRole('button', { name: 'Save' }).click();
    const card = page.getByLabel('Card number');
    // The server's answer marks the field: wait for it rather than read at once.
    await card.and(page.locator('[aria-invalid="true"]')).waitFor();
    await expect(card.getAttribute('aria-invalid')).resolves.toBe('true');
    const describedBy = (await card.getAttribute('aria-describedby')) ?? '';
    const note = page.locator(`[id="${describedBy.split(' ').pop()}"]`);
    expect(await note.textContent()).toBe('A card number is the digits printed on the badge (1 to 4294967295).');
    // Beside the field (just under it, past its hint), not in a banner at the top of the page.
    const [fieldBox, noteBox] = await Promise.all([card.boundingBox(), note.boundingBox()]);
    const below = (noteBox?.y ?? 0) - (fieldBox?.y ?? 0);
    expect(below).toBeGreaterThan(0);
    expect(below).toBeLessThan(120);
    expect(await page.locator('#status').textContent()).toBe('');
    await shot('error-beside-field');
    // The remote-enrollment form offers only terminals of her areas.
    const where = page.getByLabel('Where');
    expect(await where.locator('option').allTextContents()).toEqual(['At terminal HRDOOR01']);
  });

  test('people are imported from a CSV after a dry run that shows what will change', async () => {
    await go('#/people/import', 'Import people');
    const csv = [
      'id,name,areas,card',
      'E-101,Ben Lee,Head Office,5001',
      'E-102,Cleo Diaz,Head Office,',
      'E-103,Dan Typo,Head office,',
      'E-100,Ada Obi-Okafor,,',
    ].join('\n');
    await page.getByLabel('CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.getByText('2 people would be added, 1 person would be changed, 0 lines already up to date, 1 line cannot be used.').waitFor();
    await page.getByRole('cell', { name: /there is no area named "Head office" \(did you mean "Head Office"\?\)/i }).waitFor();
    expect((await server.admin.get('/enrollees/?employee=E-101')).body.results).toEqual([]);
    await shot('import-dry-run');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('status').getByText('2 people were added, 1 person was changed', { exact: false }).first().waitFor();
    expect((await server.admin.get('/enrollees/?employee=E-101')).body.results[0]).toMatchObject({ display_name: 'Ben Lee', card: '5001' });
    expect((await server.admin.get('/enrollees/?employee=E-100')).body.results[0].display_name).toBe('Ada Obi-Okafor');
    expect((await server.admin.get('/enrollees/?employee=E-103')).body.results).toEqual([]);
    await shot('import-done');
  });

  test('punches are imported from a CSV after a dry run that says what will be added', async () => {
    await go('#/punches', 'Punches');
    await page.getByRole('link', { name: 'import a CSV file' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import punches' }).waitFor();
    // The example names the zone the times are read in (the person's: their area's, else this one).
    await page.getByText(`their area’s, else ${ZONE}`, { exact: false }).waitFor();
    const csv = ['employee,at,state', 'E-101,2026-11-02 08:01,0', 'E-101,2026-11-02 17:05,1', 'E-101,2026-11-02 17:05,1', 'E-999,2026-11-02 08:00,0'].join(
      '\n',
    );
    await page.getByLabel('CSV file').setInputFiles({ name: 'punches.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.getByText('2 punches would be added, 1 already here or repeated in the file, 1 line cannot be used.').waitFor();
    await page.getByRole('cell', { name: 'No person has this employee ID.' }).waitFor();
    expect((await server.admin.get('/punches/?employee=E-101')).body.results).toEqual([]);
    await shot('punch-import-dry-run');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('status').getByText('2 punches added, 1 already here or repeated in the file', { exact: false }).first().waitFor();
    const stored = (await server.admin.get('/punches/?employee=E-101')).body.results as { local_time: string; source: string }[];
    expect(stored.map((p) => [p.local_time, p.source]).sort()).toEqual([
      ['2026-11-02 08:01:00', 'import'],
      ['2026-11-02 17:05:00', 'import'],
    ]);
  });

  test('a schedule with days and a break is assigned to an area and shows in who works when', async () => {
    await go('#/shifts', 'Shifts and calendar');
    const schedules = page.getByRole('region', { name: 'Work schedules' });
    await schedules.getByLabel('Name').fill('Early');
    await schedules.getByLabel('Starts').fill('06:00');
    await schedules.getByLabel('Ends').fill('14:00');
    await schedules.getByLabel('Break').fill('30m');
    await schedules.getByRole('button', { name: 'Add schedule' }).click();
    await schedules.getByRole('cell', { name: 'Mon Tue Wed Thu Fri' }).waitFor();
    // What makes 06:08 on time is on the list (the form's grace, 10 minutes by default).
    await schedules.getByRole('cell', { name: '10m past the start' }).waitFor();
    const assign = page.getByRole('region', { name: 'Who works which schedule' });
    await assign.getByLabel('Schedule').selectOption({ label: 'Early' });
    await assign.getByLabel('Assign to').selectOption({ label: 'Everyone in an area' });
    await assign.getByLabel('Area').selectOption({ label: 'Head Office' });
    await assign.getByLabel('From').fill(thisMonday());
    await assign.getByRole('button', { name: 'Assign' }).click();
    await page.getByText('Early assigned to everyone in Head Office.').waitFor();
    const roster = page.getByRole('region', { name: 'Who works when' });
    await roster.getByLabel('Area').selectOption({ label: 'Head Office' });
    const ben = roster.getByRole('row', { name: /Ben Lee/ });
    // Choosing the area reads the roster again: its week shows once that read is drawn.
    await ben.getByText('Early').nth(4).waitFor();
    expect(await ben.getByText('Early').count()).toBe(5);
    expect(await ben.getByText('06:00–14:00').count()).toBe(5);
    expect(await ben.getByText('Day off').count()).toBe(2);
    await shot('shifts-roster');
  });

  test('a schedule in use is changed in place, and the days of the people who work it follow', async () => {
    await go('#/shifts', 'Shifts and calendar');
    const schedules = page.getByRole('region', { name: 'Work schedules' });
    await schedules.getByRole('button', { name: 'Change Early' }).click();
    // The form holds the schedule as it is, so only what changes is typed.
    expect(await schedules.getByLabel('Name').inputValue()).toBe('Early');
    expect(await schedules.getByLabel('Break').inputValue()).toBe('30m');
    await schedules.getByLabel('Starts').fill('07:00');
    await schedules.getByLabel('Ends').fill('15:00');
    await schedules.getByLabel('Sat').check();
    await schedules.getByRole('button', { name: 'Save Early' }).click();
    await page.getByText('Early saved; the days of the people who work it follow.').waitFor();
    // The message in the window's corner may sit over a button: its close button puts it away.
    await page.getByRole('button', { name: 'Close the message' }).click();
    expect(await page.locator('#status').textContent()).toBe('');
    await schedules.getByRole('cell', { name: 'Mon Tue Wed Thu Fri Sat' }).waitFor();
    const early = (await server.admin.get('/work-schedules/Early/')).body;
    expect(early).toMatchObject({ start: '07:00', end: '15:00', break: '30m', weekdays: [1, 2, 3, 4, 5, 6] });
    // Still the one schedule, still assigned: the form is back to adding a new one.
    expect((await server.admin.get('/work-schedules/')).body.results.filter((s: { name: string }) => s.name === 'Early')).toHaveLength(1);
    await schedules.getByRole('button', { name: 'Add schedule' }).waitFor();
    const roster = page.getByRole('region', { name: 'Who works when' });
    await roster.getByLabel('Area').selectOption({ label: 'Head Office' });
    const ben = roster.getByRole('row', { name: /Ben Lee/ });
    await ben.getByText('07:00–15:00').first().waitFor();
    expect(await ben.getByText('07:00–15:00').count()).toBe(6);
    expect(await ben.getByText('Day off').count()).toBe(1);
  });

  test('changing a schedule can be called off, and the schedule stays as it was', async () => {
    await go('#/shifts', 'Shifts and calendar');
    const schedules = page.getByRole('region', { name: 'Work schedules' });
    await schedules.getByRole('button', { name: 'Change Early' }).click();
    await schedules.getByLabel('Starts').fill('05:00');
    await schedules.getByRole('button', { name: 'Cancel' }).click();
    expect(await schedules.getByLabel('Name').inputValue()).toBe('');
    await schedules.getByRole('button', { name: 'Add schedule' }).waitFor();
    expect((await server.admin.get('/work-schedules/Early/')).body.start).toBe('07:00');
  });

  test('a schedule that follows the areas’ weekends keeps following them when its grace is changed', async () => {
    expect((await server.admin.post('/work-schedules/', { name: 'Flexi', start: '10:00', end: '18:00' })).status).toBe(201);
    // Added behind the page's back: drawn again from elsewhere.
    await go('#/areas', 'Areas');
    await go('#/shifts', 'Shifts and calendar');
    const schedules = page.getByRole('region', { name: 'Work schedules' });
    await schedules.getByRole('cell', { name: 'Every day but the weekend' }).waitFor();
    await schedules.getByRole('button', { name: 'Change Flexi' }).click();
    await schedules.getByLabel('Late after').fill('15m');
    await schedules.getByRole('button', { name: 'Save Flexi' }).click();
    await page.getByText('Flexi saved; the days of the people who work it follow.').waitFor();
    // And Escape, from the keyboard.
    await page.keyboard.press('Escape');
    expect(await page.locator('#status').textContent()).toBe('');
    expect((await server.admin.get('/work-schedules/Flexi/')).body).toMatchObject({ grace_in: '15m', weekdays: null });
    // Ticking a day fixes its days.
    await schedules.getByRole('button', { name: 'Change Flexi' }).click();
    await schedules.getByLabel('Sat').check();
    await schedules.getByRole('button', { name: 'Save Flexi' }).click();
    // Flexi's own row (Early works Mon–Sat too: the list's first such cell passed before the save was drawn).
    await schedules.getByRole('row', { name: /Flexi/ }).getByRole('cell', { name: 'Mon Tue Wed Thu Fri Sat' }).waitFor();
    expect((await server.admin.get('/work-schedules/Flexi/')).body.weekdays).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('a leave is recorded with a kind picked from the usual ones or typed', async () => {
    await go('#/areas', 'Areas');
    await go('#/shifts', 'Shifts and calendar');
    const leave = page.getByRole('region', { name: 'Leave' });
    await leave.getByRole('combobox', { name: 'Person' }).fill('Ben Lee');
    await leave.getByLabel('From').fill('2031-06-02');
    await leave.getByLabel('To').fill('2031-06-04');
    // The usual kinds are offered (a datalist); any word is taken.
    expect(await leave.locator('datalist option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value))).toEqual(
      expect.arrayContaining(['vacation', 'sick', 'unpaid']),
    );
    await leave.getByLabel('Kind').fill('sick');
    await leave.getByRole('button', { name: 'Add leave' }).click();
    await page.getByText('Leave added.').waitFor();
    const ben = (await server.admin.get('/enrollees/?employee=E-101')).body.results[0].id;
    expect((await server.admin.get('/leaves/')).body.results.find((l: { enrollee: string }) => l.enrollee === ben)).toMatchObject({
      from: '2031-06-02',
      to: '2031-06-04',
      kind: 'sick',
    });
  });

  test('what is typed in one form stays while another change redraws the page; the form sent starts afresh', async () => {
    await go('#/areas', 'Areas');
    await go('#/shifts', 'Shifts and calendar');
    const holidays = page.getByRole('region', { name: 'Holidays' });
    await holidays.getByLabel('Date').fill('2031-12-24');
    await holidays.getByLabel('Name').fill('Christmas Eve');
    const leave = page.getByRole('region', { name: 'Leave' });
    await leave.getByRole('combobox', { name: 'Person' }).fill('Ben Lee');
    await leave.getByLabel('From').fill('2031-07-01');
    await leave.getByLabel('To').fill('2031-07-02');
    await leave.getByRole('button', { name: 'Add leave' }).click();
    await page.getByText('Leave added.').waitFor();
    // Redrawn: the leave's form is blank again; the holiday half-typed above is still there.
    expect(await leave.getByLabel('From').inputValue()).toBe('');
    expect(await holidays.getByLabel('Name').inputValue()).toBe('Christmas Eve');
    expect(await holidays.getByLabel('Date').inputValue()).toBe('2031-12-24');
    await holidays.getByRole('button', { name: 'Add holiday' }).click();
    await holidays.getByRole('cell', { name: 'Christmas Eve', exact: true }).waitFor();
    expect(await holidays.getByLabel('Name').inputValue()).toBe('');
    // The roster stays on the area chosen there (it is read again for it).
    const roster = page.getByRole('region', { name: 'Who works when' });
    await roster.getByLabel('Area').selectOption('default');
    await roster.getByText('Nobody is in default.').waitFor();
    await holidays.getByLabel('Date').fill('2031-12-26');
    await holidays.getByLabel('Name').fill('Boxing Day');
    await holidays.getByRole('button', { name: 'Add holiday' }).click();
    await holidays.getByRole('cell', { name: 'Boxing Day', exact: true }).waitFor();
    await roster.getByText('Nobody is in default.').waitFor();
    expect(await roster.getByLabel('Area').inputValue()).toBe('default');
    // A schedule being changed is not kept across another change: it would come back as a new one.
    const schedules = page.getByRole('region', { name: 'Work schedules' });
    await schedules.getByRole('button', { name: 'Change Early' }).click();
    await schedules.getByLabel('Name').fill('Early (renamed)');
    await holidays.getByLabel('Date').fill('2031-12-31');
    await holidays.getByLabel('Name').fill('New Year’s Eve');
    await holidays.getByRole('button', { name: 'Add holiday' }).click();
    await holidays.getByRole('cell', { name: 'New Year’s Eve', exact: true }).waitFor();
    expect(await schedules.getByLabel('Name').inputValue()).toBe('');
    expect(await schedules.getByRole('button', { name: 'Add schedule' }).isVisible()).toBe(true);
  });

  // A holiday of one person read "Everyone" in the table.
  test('the holidays say whom each is for: one person by name, some areas, or everyone', async () => {
    const ben = (await server.admin.get('/enrollees/?employee=E-101')).body.results[0];
    expect((await server.admin.post('/holidays/', { date: '2031-08-01', name: 'Moving day', enrollee: ben.id })).status).toBe(201);
    await go('#/areas', 'Areas');
    await go('#/shifts', 'Shifts and calendar');
    const holidays = page.getByRole('region', { name: 'Holidays' });
    expect(
      await holidays
        .getByRole('row', { name: /Moving day/ })
        .getByRole('cell')
        .allInnerTexts(),
    ).toContain('Only Ben Lee');
    expect(
      await holidays
        .getByRole('row', { name: /Christmas Eve/ })
        .getByRole('cell')
        .allInnerTexts(),
    ).toContain('Everyone');
  });

  test('a pay period not over yet is not locked: the refusal says, in words, from when it can be', async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
    const period = await server.admin.post('/pay-periods/', { from: today, to: today });
    expect(period.status).toBe(201);
    await go('#/areas', 'Areas');
    await go('#/shifts', 'Shifts and calendar');
    const periods = page.getByRole('region', { name: 'Pay periods' });
    await periods.getByRole('button', { name: 'Lock' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Lock' }).click();
    const day = consoleDate;
    const next = new Date(Date.parse(`${today}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await page
      .getByRole('status')
      .getByText(`This pay period ends on ${day(today)}, which is not over yet: it can be locked from ${day(next)} on.`)
      .waitFor();
    expect(await periods.getByText('Open').count()).toBe(1);
    expect((await server.admin.get(`/pay-periods/${period.body.id}/`)).body.locked).toBe(false);
  });

  test('a manual punch on a locked day says it was not applied', async () => {
    const period = await server.admin.post('/pay-periods/', { from: '2026-01-01', to: '2026-01-31' });
    expect((await server.admin.post(`/pay-periods/${period.body.id}/lock/`)).status).toBe(200);
    await go('#/punches', 'Punches');
    const form = page.getByRole('region', { name: 'Add a missing punch' });
    // The person is found as it is typed, and chosen among the suggestions.
    await form.getByRole('combobox', { name: 'Person' }).fill('ben');
    await form.getByRole('option', { name: 'Ben Lee (E-101)' }).click();
    await form.getByLabel('Date').fill('2026-01-15');
    await form.getByLabel('Time').fill('17:00');
    await form.getByLabel('Reason').fill('forgot to clock out');
    await form.getByRole('button', { name: 'Add punch' }).click();
    const kept = form.getByText('Punch kept, not applied: 15 Jan 2026 is in a locked pay period, so the day does not change.', { exact: false });
    await kept.waitFor();
    // A warning, not an error: the punch was saved, and typing it again would only add it twice.
    expect(await kept.getAttribute('class')).toBe('form-warn');
    expect(await page.getByText('Manual punch added.').count()).toBe(0);
    // It arrives in the live list with its day: it is not one of today's punches.
    await page.locator('#live-punches tbody tr').first().getByText('15 Jan 2026').waitFor();
    await shot('locked-day-punch');
    // The message does not follow the officer to the next page.
    await go('#/areas', 'Areas');
    expect(await page.locator('#status').textContent()).toBe('');
  });

  test('a manual punch in the hour Berlin repeats is read as the server reads any wall time: the earlier, flagged', async () => {
    await go('#/punches', 'Punches');
    const form = page.getByRole('region', { name: 'Add a missing punch' });
    await form.getByRole('combobox', { name: 'Person' }).fill('ben');
    await form.getByRole('option', { name: 'Ben Lee (E-101)' }).click();
    await form.getByLabel('Date').fill('2026-10-25');
    await form.getByLabel('Time').fill('02:30');
    await form.getByLabel('Reason').fill('night shift, reader down');
    await form.getByRole('button', { name: 'Add punch' }).click();
    await form.getByText('Punch added at', { exact: false }).waitFor();
    const listed = await server.admin.get('/punches/?employee=E-101&from=2026-10-25&to=2026-10-25');
    // 02:30 happened twice (+02:00, then +01:00): the earlier, as for a terminal's punch.
    expect(listed.body.results.map((p: { punched_at: string; flags: string[] }) => [p.punched_at, p.flags])).toEqual([
      ['2026-10-25T00:30:00.000Z', ['dst_overlap']],
    ]);
  });

  test('no script errors on the way', () => {
    expect(errors).toEqual([]);
  });
});
