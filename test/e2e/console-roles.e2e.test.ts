/**
 * The console shows only what the signed-in role may do (the session lists the policy's allowed
 * actions, src/platform/http/policy.ts): a viewer sees no button or form that changes anything,
 * and a manager of one area sees only its people and punches, and no page it may not use. No
 * request the console makes answers 403. The browser carries a role's administrator JWT (the
 * way an integrator's tool or a host's sign-in would); a console session of a user with that
 * role behaves the same, as the session endpoint answers the same role and actions.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { linesAt, terminal, upload } from '../support/attendance';
import { consoleContext, goTo, launchBrowser } from '../support/browser';
import { runningClock } from '../support/clock';
import { adminToken, startTestServer, type TestServer } from '../support/harness';

const SHOTS = '/tmp/shots-roles';
let server: TestServer;
let browser: Browser;
let northId = '';
let southId = '';
// The server's clock from noon UTC: today is still today when the board is read.
const clock = runningClock();
const TODAY = new Date(clock.now()).toISOString().slice(0, 10);

/** Words on buttons (and submit buttons of forms) that change something. */
const CHANGES =
  /^(Approve|Enable again|Disable|Remove|Delete|Void|Add punch|Register|Save|Save .*|Change|Add person|Record consent|Withdraw consent|Resync|Full resync|Send|Lock|Run now|Deactivate|Reactivate|Start enrollment|Issue a key|Revoke|Adopt|Add .*|Create agent|Assign|Confirm address.*)$/;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: 'UTC' }, { clock }), launchBrowser()]);
  const zone = server.fpa.settings.ATTENDANCE_TIME_ZONE;
  for (const [employee, area] of [
    ['E-NORTH', 'north'],
    ['E-SOUTH', 'south'],
  ] as const) {
    expect((await server.admin.post('/employees/', { id: employee, name: `Ada ${area}` })).status).toBe(201);
    const r = await server.admin.post('/enrollees/', { employee, areas: [area] });
    expect(r.status).toBe(201);
    if (area === 'north') northId = r.body.id;
    else southId = r.body.id;
  }
  const people = (await server.admin.get('/enrollees/')).body.results as { id: string; device_pin: string }[];
  const pin = (id: string) => people.find((p) => p.id === id)!.device_pin;
  // A schedule, so that its list has rows whose buttons a viewer must not see.
  expect((await server.admin.post('/work-schedules/', { name: 'Day', start: '09:00', end: '17:00' })).status).toBe(201);
  const tn = await terminal(server, 'TNORTH01', ['north']);
  const ts = await terminal(server, 'TSOUTH01', ['south']);
  await upload(server, tn, linesAt(zone, pin(northId), `${TODAY} 00:01:00`));
  await upload(server, ts, linesAt(zone, pin(southId), `${TODAY} 00:02:00`));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A browser context whose every request carries a token of this role and areas; it records every 403 the console meets. */
async function consoleAs(role: string, areas: string[]): Promise<{ context: BrowserContext; page: Page; refused: string[]; errors: string[] }> {
  const token = await adminToken({ sub: `${role}@example.com`, role, areas });
  const context = await consoleContext(browser, { viewport: { width: 1100, height: 800 }, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  const page = await context.newPage();
  const refused: string[] = [];
  const errors: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 403) refused.push(`${response.request().method()} ${response.url()}`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}/console/`);
  // Each role's home page: the board, or the overview for a role that reads no attendance.
  await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
  return { context, page, refused, errors };
}

async function go(page: Page, hash: string, heading: string | RegExp): Promise<void> {
  await goTo(page, hash, heading);
  await page.waitForLoadState('networkidle');
}

async function changeButtons(page: Page): Promise<string[]> {
  const names = await page.locator('main button').allInnerTexts();
  return names.map((n) => n.trim()).filter((n) => CHANGES.test(n));
}

async function navLinks(page: Page): Promise<string[]> {
  return (await page.locator('nav a').allInnerTexts()).map((n) => n.trim());
}

describe('a viewer', () => {
  test('reads every page it has and finds no button that changes anything', async () => {
    const { context, page, refused, errors } = await consoleAs('viewer', []);
    expect(await page.locator('.who').textContent()).toContain('Signed in as viewer@example.com');
    expect(await page.locator('.who').textContent()).toContain('Viewer');
    expect(await navLinks(page)).toEqual([
      'Today',
      'Overview',
      'Terminals',
      'People',
      'Areas',
      'Shifts',
      'Punches',
      'Attendance',
      'Anomalies',
      'Reports',
      'Operations',
    ]);
    await page.screenshot({ path: `${SHOTS}/viewer-overview.png`, fullPage: true });
    const pages: [string, string | RegExp][] = [
      ['#/', /^Today/],
      ['#/overview', 'Overview'],
      ['#/terminals', 'Terminals'],
      ['#/terminals/TNORTH01', /TNORTH01/],
      ['#/people', 'People'],
      [`#/people/${northId}`, /Ada north/],
      ['#/shifts', 'Shifts and calendar'],
      ['#/punches', 'Punches'],
      ['#/attendance', 'Attendance'],
      ['#/anomalies', 'Anomalies'],
      ['#/reports', 'Reports'],
      ['#/operations', 'Operations'],
    ];
    for (const [hash, heading] of pages) {
      await go(page, hash, heading);
      expect({ hash, buttons: await changeButtons(page) }).toEqual({ hash, buttons: [] });
      // The reports' form only chooses what to download.
      const reading = hash === '#/reports' ? 'main form:not([role=search]):has(button[type=submit])' : 'main form:not([role=search])';
      expect({ hash, forms: await page.locator(reading).count() }).toEqual({ hash, forms: 0 });
      // Plain words for people who do not run the server: no setting's name (TRAVEL_MINUTES).
      const text = (await page.locator('main').textContent()) ?? '';
      expect({ hash, settings: text.match(/\b[A-Z]{2,}(?:_[A-Z]+)+\b/g) ?? [] }).toEqual({ hash, settings: [] });
      // Nor the API's paths (they are for whoever connects other systems).
      expect({ hash, api: text.includes('/api/fingerprint/') }).toEqual({ hash, api: false });
      await page.screenshot({ path: `${SHOTS}/viewer-${hash.replace(/[#/]+/g, '-').replace(/^-|-$/g, '') || 'home'}.png`, fullPage: true });
    }
    // Who works when opens on an area with people, not on an empty one.
    await go(page, '#/shifts', 'Shifts and calendar');
    expect(await page.getByRole('region', { name: 'Who works when' }).getByLabel('Area').inputValue()).toBe('north');
    // Nobody here has a schedule: who came in is not "On time" (there is no start to be on time for).
    // The people who came in: on a weekend nobody is expected, and the board opens on the expected.
    await go(page, '#/?show=present', /^Today/);
    await page.locator('#board-list').getByText('Came in (no shift)').first().waitFor();
    expect(await page.locator('#board-list').getByText('On time').count()).toBe(0);
    // Nor is anyone without a shift on a workday to come: a Monday ahead counts them "Not due
    // yet", and each of their rows says so too, with why.
    const monday = new Date(Date.now() + 7 * 86_400_000);
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
    await go(page, `#/?date=${monday.toISOString().slice(0, 10)}&show=scheduled`, /^Mon/);
    await page.locator('#board-list').getByText('Not due yet (no shift)').first().waitFor();
    expect(await page.locator('#board-list tbody tr').count()).toBe(await page.locator('#board-list').getByText('Not due yet (no shift)').count());
    // A page it may not use is not drawn (its requests would be refused).
    await go(page, '#/integrations', 'Not available');
    // Nor an import form reached by its address: the People and Punches pages are the viewer's,
    // their imports are hr's (the form drew, and "Check the file" answered 403).
    for (const hash of ['#/people/import', '#/punches/import']) {
      await go(page, hash, 'Not available');
      expect({ hash, forms: await page.locator('main form').count(), file: await page.locator('main input[type=file]').count() }).toEqual({
        hash,
        forms: 0,
        file: 0,
      });
      expect(await page.getByText('Your role does not include this page.').isVisible()).toBe(true);
    }
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('a manager of north', () => {
  test('sees only north’s people and punches, adds corrections, and no page it may not use', async () => {
    const { context, page, refused, errors } = await consoleAs('manager', ['north']);
    expect(await page.locator('.who').textContent()).toContain('Signed in as manager@example.com');
    expect(await page.locator('.who').textContent()).toContain('in north');
    expect(await navLinks(page)).toEqual(['Today', 'Overview', 'People', 'Areas', 'Shifts', 'Punches', 'Attendance', 'Anomalies', 'Reports']);
    await page.screenshot({ path: `${SHOTS}/manager-overview.png`, fullPage: true });

    await go(page, '#/people', 'People');
    expect(await page.getByRole('link', { name: 'Ada north' }).isVisible()).toBe(true);
    expect(await page.getByText('Ada south').count()).toBe(0);
    expect(await changeButtons(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/manager-people.png`, fullPage: true });

    await go(page, `#/people/${northId}`, /Ada north/);
    // A correction is a manager's: a missing punch added on the person's page; nothing else changes.
    expect(await changeButtons(page)).toEqual(['Add punch']);
    // Another area's person is not found, and the page says that this may be why.
    await go(page, `#/people/${southId}`, 'Not found');
    expect(await page.getByRole('alert').textContent()).toContain('or is not in your areas');

    await go(page, '#/punches', 'Punches');
    await page
      .getByRole('row', { name: /Ada north/ })
      .first()
      .waitFor();
    expect(await page.getByText('Ada south').count()).toBe(0);
    expect(await page.getByText('TSOUTH01').count()).toBe(0);
    // Corrections are a manager's: the manual punch form and Void are there.
    expect(await page.getByRole('button', { name: 'Add punch' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: /^Void/ }).count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${SHOTS}/manager-punches.png`, fullPage: true });

    await go(page, '#/attendance', 'Attendance');
    expect(await page.getByText('Ada south').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/manager-attendance.png`, fullPage: true });

    await go(page, '#/terminals', 'Not available');
    // Corrections are a manager's, imports are not: neither import form by its address.
    await go(page, '#/people/import', 'Not available');
    await go(page, '#/punches/import', 'Not available');
    expect(await page.locator('main input[type=file]').count()).toBe(0);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('an HR officer of north and the areas', () => {
  test('no area control that would answer 403, and forms say that no area chosen means north', async () => {
    const { context, page, refused, errors } = await consoleAs('hr', ['north']);
    await go(page, '#/areas', 'Areas');
    expect(await page.getByRole('button', { name: 'Create an area' }).count()).toBe(0);
    await go(page, '#/areas/north', 'north');
    expect(await page.getByRole('region', { name: 'Name, description and time zone' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete area' }).count()).toBe(0);
    await go(page, '#/shifts', 'Shifts and calendar');
    expect(await page.getByText('None chosen: your areas (north).').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Create new area…' }).count()).toBe(0);
    expect(await page.locator('option', { hasText: 'Create new area…' }).count()).toBe(0);
    await go(page, '#/people', 'People');
    expect(await page.getByText(/none chosen: your areas \(north\)/).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Create new area…' }).count()).toBe(0);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('desktop agents by area', () => {
  test('an HR officer of north creates agents for north, sees the shared ones, revokes only those wholly north; a person is offered only agents of their areas', async () => {
    const made: Record<string, string> = {};
    for (const [name, areas] of [
      ['Head office', []],
      ['South desk', ['south']],
      ['Both desks', ['north', 'south']],
    ] as const) {
      const r = await server.admin.post('/enrollment-agents/', { name, algorithm_version: '10', areas });
      expect(r.status).toBe(201);
      made[name] = r.body.id;
    }
    const { context, page, refused, errors } = await consoleAs('hr', ['north']);
    await go(page, '#/integrations', 'Integrations');
    const agents = page.getByRole('region', { name: 'Desktop enrollment agents' });
    await agents.getByRole('row', { name: /Both desks/ }).waitFor();
    expect(await agents.getByText('South desk').count()).toBe(0);
    // Shared with south, or with everyone: their administrators revoke those, so no button here would answer 403.
    for (const shared of [/Both desks/, /Head office/])
      expect(
        await agents
          .getByRole('row', { name: shared })
          .getByRole('button', { name: /Revoke/ })
          .count(),
      ).toBe(0);
    expect(
      await agents
        .getByRole('row', { name: /Head office/ })
        .getByRole('cell', { name: 'All areas' })
        .count(),
    ).toBe(1);
    const form = page.getByRole('form', { name: 'Create a desktop agent' });
    expect(await form.getByLabel('north').isChecked()).toBe(true);
    expect(await form.getByLabel('south').count()).toBe(0);
    await form.getByLabel('Name').fill('North kiosk');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await page.locator('#agent-key code').waitFor();
    const row = agents.getByRole('row', { name: /North kiosk/ });
    expect(await row.getByRole('cell', { name: 'north', exact: true }).count()).toBe(1);
    expect(await row.getByRole('button', { name: 'Revoke agent North kiosk' }).count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}/hr-north-integrations.png`, fullPage: true });
    // A person of north is offered the agents that may enroll them, the new one among them.
    await go(page, `#/people/${northId}`, /Ada north/);
    const offeredNorth = (await page.getByLabel('Where').locator('option').allTextContents()).filter((o) => o.startsWith('At desktop agent'));
    expect(offeredNorth.sort()).toEqual(['At desktop agent Both desks', 'At desktop agent Head office', 'At desktop agent North kiosk']);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();

    // An administrator of every area is offered, for a person of south, the agents that may enroll them.
    const owner = await consoleAs('owner', []);
    await go(owner.page, `#/people/${southId}`, /Ada south/);
    const where = owner.page.getByLabel('Where');
    const offered = (await where.locator('option').allTextContents()).filter((o) => o.startsWith('At desktop agent'));
    expect(offered.sort()).toEqual(['At desktop agent Both desks', 'At desktop agent Head office', 'At desktop agent South desk']);
    expect(owner.errors).toEqual([]);
    await owner.context.close();
  });
});

describe('a person and a terminal shared with another area', () => {
  test('an HR officer and an installer of north are offered no deactivate, delete, disable, remove or wipe that would answer 403; they are told who may', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-BOTH', name: 'Bo Both' })).status).toBe(201);
    const both = await server.admin.post('/enrollees/', { employee: 'E-BOTH', areas: ['north', 'south'] });
    expect(both.status).toBe(201);
    await terminal(server, 'TBOTH001', ['north', 'south']);

    const hr = await consoleAs('hr', ['north']);
    await go(hr.page, `#/people/${both.body.id}`, /Bo Both/);
    for (const name of ['Deactivate', 'Delete']) expect(await hr.page.getByRole('button', { name, exact: true }).count()).toBe(0);
    expect(await hr.page.getByText('Also in south: deactivated or deleted by an administrator of those areas.').count()).toBe(1);
    // South is kept, shown and cannot be unticked; north is theirs to change.
    const south = hr.page.getByLabel('south (not yours: kept)');
    expect(await south.isChecked()).toBe(true);
    expect(await south.isDisabled()).toBe(true);
    expect(await hr.page.getByLabel('north', { exact: true }).isDisabled()).toBe(false);
    // Saving their card leaves south alone: the form sent the kept south along, and the API
    // answered 403 "you may only use your own areas".
    await hr.page.getByLabel('Card number', { exact: true }).fill('7001');
    await hr.page.getByRole('button', { name: 'Save', exact: true }).click();
    await hr.page.getByText('Saved.').first().waitFor();
    const person = (await server.admin.get(`/enrollees/${both.body.id}/`)).body;
    expect([person.card, person.areas]).toEqual(['7001', ['north', 'south']]);
    // A person wholly of north keeps the buttons.
    await go(hr.page, `#/people/${northId}`, /Ada north/);
    expect(await hr.page.getByRole('button', { name: 'Deactivate', exact: true }).count()).toBe(1);
    expect(hr.refused).toEqual([]);
    expect(hr.errors).toEqual([]);
    await hr.context.close();

    const installer = await consoleAs('installer', ['north']);
    await go(installer.page, '#/terminals/TBOTH001', /TBOTH001/);
    for (const name of ['Disable', 'Remove']) expect(await installer.page.getByRole('button', { name, exact: true }).count()).toBe(0);
    expect(await installer.page.getByText('Also in south: disabled or removed by an administrator of those areas.').count()).toBe(1);
    // How a shared terminal's punches are read is not north's alone: the zone is shown, fixed,
    // with why. A save of the name leaves the zone and south alone: the settings sent south,
    // kept and unticked-not, and the API answered 403 "you may only use your own areas".
    const zone = installer.page.getByLabel('Time zone', { exact: true });
    expect(await zone.getAttribute('readonly')).not.toBeNull();
    expect(await installer.page.getByText('Also in south: changed by an administrator of every area it serves.').count()).toBe(1);
    await installer.page.getByLabel('Name', { exact: true }).fill('Both door');
    await installer.page.getByRole('button', { name: 'Save', exact: true }).click();
    await installer.page.getByText('Saved.').first().waitFor();
    const terminalSaved = (await server.admin.get('/devices/TBOTH001/')).body;
    expect([terminalSaved.name, terminalSaved.areas]).toEqual(['Both door', ['north', 'south']]);
    const kinds = await installer.page.getByLabel('Command').locator('option').allTextContents();
    expect(kinds).toContain('Restart');
    expect(kinds).not.toContain('Delete all its data');
    expect(kinds).not.toContain('Delete its punches');
    await go(installer.page, '#/terminals/TNORTH01', /TNORTH01/);
    expect(await installer.page.getByLabel('Time zone', { exact: true }).getAttribute('readonly')).toBeNull();
    expect(await installer.page.getByRole('button', { name: 'Disable', exact: true }).count()).toBe(1);
    expect(await installer.page.getByLabel('Command').locator('option').allTextContents()).toContain('Delete all its data');
    expect(installer.refused).toEqual([]);
    expect(installer.errors).toEqual([]);
    await installer.context.close();
  });
});

describe('what belongs to every area', () => {
  test('an installer of north finds the enrollment station fixed, with why, and saves the rest of the settings', async () => {
    const installer = await consoleAs('installer', ['north']);
    await go(installer.page, '#/terminals/TNORTH01', /TNORTH01/);
    const station = installer.page.getByLabel('Enrollment station (accepts anyone’s fingerprints)');
    expect(await station.isDisabled()).toBe(true);
    expect(await station.getAttribute('aria-describedby')).not.toBeNull();
    expect(await installer.page.getByText('Only an administrator of every area turns this on or off').count()).toBe(1);
    await installer.page.getByLabel('Name', { exact: true }).fill('North door');
    await installer.page.getByRole('button', { name: 'Save', exact: true }).click();
    await installer.page.getByText('Saved.').waitFor();
    expect((await server.admin.get('/devices/TNORTH01/')).body).toMatchObject({ name: 'North door', enrollment_station: false });
    expect(installer.refused).toEqual([]);
    expect(installer.errors).toEqual([]);
    await installer.context.close();
    // A caller of every area has the switch.
    const admin = await consoleAs('admin', []);
    await go(admin.page, '#/terminals/TNORTH01', /North door/);
    expect(await admin.page.getByLabel('Enrollment station (accepts anyone’s fingerprints)').isDisabled()).toBe(false);
    await admin.context.close();
  });

  test('an HR officer of north is offered no change or delete of a schedule south works, nor a delete of a holiday reaching beyond north', async () => {
    expect((await server.admin.post('/work-schedules/', { name: 'South late', start: '12:00', end: '20:00' })).status).toBe(201);
    expect((await server.admin.post('/shift-assignments/', { schedule: 'South late', area: 'south', from: '2025-01-01' })).status).toBe(201);
    expect((await server.admin.post('/holidays/', { date: '2025-05-01', name: 'Labour Day' })).status).toBe(201);
    expect((await server.admin.post('/holidays/', { date: '2025-06-02', name: 'North fair', areas: ['north'] })).status).toBe(201);
    const hr = await consoleAs('hr', ['north']);
    await go(hr.page, '#/shifts', 'Shifts and calendar');
    const schedules = hr.page.getByRole('region', { name: 'Work schedules' });
    const southRow = schedules.getByRole('row', { name: /South late/ });
    expect(await southRow.getByRole('button').count()).toBe(0);
    expect(await southRow.getByText('Also worked outside your areas').count()).toBe(1);
    const dayRow = schedules.getByRole('row', { name: /^Day/ });
    expect(await dayRow.getByRole('button', { name: 'Change Day' }).count()).toBe(1);
    expect(await dayRow.getByRole('button', { name: 'Delete schedule Day' }).count()).toBe(1);
    expect(await hr.page.getByRole('button', { name: 'Delete holiday Labour Day' }).count()).toBe(0);
    expect(await hr.page.getByRole('button', { name: 'Delete holiday North fair' }).count()).toBe(1);
    expect(hr.refused).toEqual([]);
    expect(hr.errors).toEqual([]);
    await hr.context.close();
  });
});
