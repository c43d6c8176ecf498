/**
 * The console in a real browser (headless Chromium), against the real server and simulated
 * terminals: sign in by the link, approve a terminal, add a person and record consent, enroll
 * them remotely on the terminal, watch their punch arrive live, correct a day and export the
 * month (once the payroll endpoints are served), refuse a change without the CSRF token, sign
 * out, and end on an expired session. Each main page is photographed (see test/support/browser.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { consoleContext, goTo, launchBrowser, screenshotDir, signInByLink, watchErrors } from '../support/browser';
import { runningClock } from '../support/clock';
import { consoleLink, linkToken } from '../support/console';
import { startTestServer, type TestServer } from '../support/harness';
import { fetchFrom, SECOND_ADDRESS } from '../support/source-address';
import { receiver, waitFor } from '../support/webhook-receiver';

let server: TestServer;
let browser: Browser;
let page: Page;
// The server, its terminal and the browser on one clock from noon UTC (13:00 or 14:00 in ZONE):
// today's clock-in, clock-out and board stay on one date whenever the test runs.
const clock = runningClock();
const shots = screenshotDir();
let terminal: SimulatedTerminal;
/** Console pages run in this zone; the test's expectations of local times use it too. */
const ZONE = 'Europe/Berlin';
const errors: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

function go(hash: string, heading: string): Promise<void> {
  return goTo(page, hash, heading);
}

/** Today's local midnight in ZONE, as an instant. */
function localMidnight(at: number): number {
  const wall = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(at);
  const [h, m, sec] = wall.split(':').map(Number);
  return at - ((h! * 60 + m!) * 60 + sec!) * 1000 - (at % 1000);
}
const NOW = clock.now();
const CLOCK_IN = Math.max(localMidnight(NOW) + 60_000, NOW - 10 * 60_000);
const CLOCK_OUT = Math.max(CLOCK_IN + 2 * 60_000, NOW - 60_000);
const wallTime = (at: number) => new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ TIME_ZONE: ZONE, ADMS_POLL_DELAY: '1s', WEBHOOK_ALLOW_PRIVATE_NETWORKS: true }, { clock }),
    launchBrowser(),
  ]);
  const context = await consoleContext(browser, { viewport: { width: 1100, height: 800 } });
  await context.clock.install({ time: clock.now() });
  page = await context.newPage();
  watchErrors(page, errors);
  terminal = new SimulatedTerminal({ url: server.url, sn: 'FRONTDOOR1', timeZone: ZONE, now: clock.now });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the console in a browser', () => {
  test('signs in by the one-time link; the link then no longer works', async () => {
    const link = await consoleLink(server, 'hr.officer@example.com');
    const token = linkToken(link);
    // What the browser sends while the link is open: never the token (it rides after `#`), nor a Referer naming the page.
    const sent: string[] = [];
    const origins: Promise<string>[] = [];
    page.on('request', (r) => {
      sent.push(`${r.method()} ${r.url()} referer=${r.headers().referer ?? ''} ${r.postData() ?? ''}`);
      if (r.method() === 'POST') origins.push(r.allHeaders().then((h) => h.origin ?? 'none'));
    });
    await page.goto(link);
    await page.getByText('This link signs you in as hr.officer@example.com. It works once.').waitFor();
    await shot('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: /^Today/ }).waitFor();
    expect(await page.getByText('Signed in as hr.officer@example.com').isVisible()).toBe(true);
    // The spent link left the address bar.
    expect(page.url()).not.toContain(token);
    const withToken = sent.filter((line) => line.includes(token));
    // Only the page's own posts carry it, in their bodies: the check, then the sign-in.
    expect(withToken.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      `POST ${server.url}/console/sign-in/check`,
      `POST ${server.url}/console/sign-in`,
    ]);
    // The posts still say where they come from (the page is no-referrer, which alone would make that `null`).
    expect(await Promise.all(origins)).toEqual([server.url, server.url]);
    // The link page's stylesheet and script were asked for with no Referer at all.
    expect(sent.filter((line) => line.includes('referer=') && /referer=\S*sign-in/.test(line))).toEqual([]);
    expect(sent.some((line) => /\/console\/assets\/sign-in-link-\w+\.js referer= /.test(line))).toBe(true);

    const other = await page.context().newPage();
    await other.goto(link);
    await other.getByText('This sign-in link is no longer valid').waitFor();
    await other.close();
  });

  test('a new terminal waits for approval; the administrator approves it', async () => {
    await terminal.handshake();
    await terminal.postOptions();
    await go('#/terminals', 'Terminals');
    const row = page.getByRole('row', { name: /FRONTDOOR1/ });
    expect(await row.getByText('Waiting for approval').isVisible()).toBe(true);
    await shot('terminals');
    await row.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /FRONTDOOR1/ }).waitFor();
    // Until it is approved, commands would only wait: none is offered, and the page says why.
    for (const name of ['Send', 'Resync', 'Full resync']) expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
    expect(await page.getByText('Commands and resyncs can be sent once it is approved.', { exact: false }).count()).toBe(2);
    // No area is ticked for it: its areas are chosen here.
    await page.getByRole('region', { name: 'Approve this terminal' }).getByRole('checkbox', { name: 'default' }).check();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText(/approved: the people of its areas are being sent/).waitFor();
    // The page is drawn again once the approval is done: the terminal, just heard from, is online.
    // (Its status beside the heading, not in it: the heading is the terminal's name alone.)
    await page.locator('.page-title').getByText('Online').waitFor();
    // The terminal is served now.
    await terminal.poll();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /FRONTDOOR1/ }).waitFor();
    // Its punches were never compared with its count yet: no verdict ("Nothing missing") to give.
    await page.getByText('Not checked yet').waitFor();
    // Its queue names the query of its users sent on approval, answered, in words (its kind is
    // `query_users`), with when it finished.
    const query = page.getByRole('row', { name: /^List its users/ });
    await query.getByText('Done').waitFor();
    expect(await query.getByRole('cell').nth(4).textContent()).not.toBe('—');
    for (const name of ['Send', 'Resync', 'Full resync']) await page.getByRole('button', { name, exact: true }).waitFor();
    await shot('terminal');
    // A tablet held upright: everything is still reachable, nothing overflows the page sideways.
    await page.setViewportSize({ width: 768, height: 1024 });
    const overflowing = await page.evaluate(() =>
      Array.from(document.querySelectorAll('body *'))
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.table-wrap'))
        .map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`),
    );
    expect(overflowing).toEqual([]);
    await shot('terminal-tablet');
    await page.setViewportSize({ width: 1100, height: 800 });
  });

  test('is usable from the keyboard: skip link, navigation, focus on the new page', async () => {
    await go('#/overview', 'Overview');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Terminals');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Terminals' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  });

  test('adds a person, records consent, gives her card number and enrolls a finger on the terminal', async () => {
    await go('#/people', 'People');
    await page.getByLabel('Employee ID').fill('E-001');
    await page.getByLabel('Name').fill('Ada Obi');
    await page.getByRole('button', { name: 'Add person' }).click();
    await page.getByRole('heading', { level: 1, name: /Ada Obi/ }).waitFor();
    // Consent is required here (the default): no enrollment can start before it is on record.
    expect(await page.getByRole('button', { name: 'Start enrollment' }).isDisabled()).toBe(true);
    await page.getByText('Record consent first (above): until then enrollment cannot start.').waitFor();
    await page.getByLabel('Consent text version').fill('2026-01');
    await page.getByRole('button', { name: 'Record consent' }).click();
    await page.getByText('Consent recorded.').waitFor();
    // Her badge: the card number goes to the terminals with her user record.
    await page.getByLabel('Card number').fill('4011223344');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await server.admin.get('/enrollees/')).body.results[0].card).toBe('4011223344');
    await page.getByLabel('Where').selectOption({ label: 'At terminal FRONTDOOR1' });
    expect(await page.getByText('Record consent first').count()).toBe(0);
    await page.getByRole('button', { name: 'Start enrollment' }).click();
    await page.getByText(/Enrollment started/).waitFor();
    // The person places their finger: the terminal runs add_user, then ENROLL_FP, and uploads the template.
    for (let i = 0; i < 4; i++) await terminal.poll();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /Ada Obi/ }).waitFor();
    await page.getByRole('region', { name: 'Biometrics' }).getByRole('cell', { name: 'Right index' }).waitFor();
    // Where it is, in words of its own ("Present" is an attendance status).
    await page.getByRole('region', { name: 'Biometrics' }).getByText('On the terminal').first().waitFor();
    expect(await page.getByText('Completed').first().isVisible()).toBe(true);
    await shot('person');
  });

  test('a punch at the terminal appears live', async () => {
    await go('#/punches', 'Punches');
    await page.getByText('Live: new punches appear here').waitFor();
    const pin = (await server.admin.get('/enrollees/')).body.results[0].device_pin as string;
    // Clocked in a few minutes ago (never before today's midnight in the zone); the clock-out is forgotten.
    await terminal.punch([{ pin, at: new Date(CLOCK_IN) }]);
    await page.locator('#live-punches').getByRole('cell', { name: 'Ada Obi' }).waitFor({ timeout: 5000 });
    // The list below was shown before the punch: it says so, and shows it when asked.
    const found = page.getByRole('region', { name: 'Find punches' });
    await found.getByText('A new punch has arrived since this list was shown.').waitFor();
    const adas = found.getByRole('cell', { name: 'Ada Obi' });
    const before = await adas.count();
    await found.getByRole('button', { name: 'Show again' }).click();
    await adas.nth(before).waitFor();
    expect(await found.getByText('arrived since this list was shown').isVisible()).toBe(false);
    await shot('punches');
  });

  test('a change without the CSRF token is refused; with it (as the console sends it) it is done', async () => {
    const status = await page.evaluate(async () => {
      const res = await fetch('/api/fingerprint/v1/areas/', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'sneaky' }),
      });
      return res.status;
    });
    expect(status).toBe(403);
    expect((await server.admin.get('/areas/sneaky/')).status).toBe(404);
  });

  test('attendance: the month’s grid, a forgotten clock-out corrected, the month exported', async () => {
    // Yesterday she came in and never clocked out: that day misses a punch.
    const adaId = (await server.admin.get('/enrollees/?employee=E-001')).body.results[0].id;
    const yesterdayNine = localMidnight(NOW) - 15 * 3_600_000;
    expect(
      (await server.admin.post('/punches/manual/', { enrollee: adaId, at: new Date(yesterdayNine).toISOString(), reason: 'badge at the door' })).status,
    ).toBe(201);
    const yesterday = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(yesterdayNine);
    await go('#/attendance', 'Attendance');
    await page.locator('#attendance-grid').waitFor();
    const period = page.getByRole('region', { name: 'Period', exact: true });
    await period.getByLabel('From', { exact: true }).fill(yesterday);
    await period.getByRole('button', { name: 'Show', exact: true }).click();
    const grid = page.locator('#attendance-grid');
    await grid.getByRole('button', { name: /Ada Obi, .*: Missing punch/ }).waitFor();
    // Her total says that a day missing a punch is left out of it.
    const ada = grid.getByRole('row', { name: /Ada Obi/ });
    expect(await ada.locator('td.total').textContent()).toMatch(/ \*$/);
    // Today she is still in: not (yet) a missing punch.
    await grid
      .getByRole('button', { name: /Ada Obi, .*: still in \(no out yet\)/ })
      .first()
      .click();
    await page.getByRole('heading', { level: 2, name: /Ada Obi,/ }).waitFor();
    await page.getByLabel('Time').fill(wallTime(CLOCK_OUT));
    await page.getByLabel('Reason').fill('forgot to clock out');
    await page.getByRole('button', { name: 'Add punch' }).click();
    await page.getByText('Manual punch added.').waitFor();
    // Voiding asks for a reason, and Cancel voids nothing.
    await page.getByRole('button', { name: /^Void/ }).first().click();
    const why = page.getByRole('dialog');
    await why.getByLabel('Reason').waitFor();
    await why.getByRole('button', { name: 'Cancel' }).click();
    await why.waitFor({ state: 'detached' });
    await grid.getByRole('button', { name: /Ada Obi, .*: Present/ }).waitFor();
    // Yesterday's day still misses its out.
    expect(await ada.locator('td.total').textContent()).toMatch(/ \*$/);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download CSV' }).click();
    const csv = await (await download).path();
    expect(await Bun.file(csv).text()).toContain('E-001');
    await shot('attendance');
  });

  test('attendance: someone deleted since keeps their row of days, as in the reports and the export', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-GONE', name: 'Gone Person' })).status).toBe(201);
    const gone = (await server.admin.post('/enrollees/', { employee: 'E-GONE' })).body as { id: string };
    const yesterdayNine = localMidnight(NOW) - 15 * 3_600_000;
    for (const at of [yesterdayNine, yesterdayNine + 8 * 3_600_000])
      expect((await server.admin.post('/punches/manual/', { enrollee: gone.id, at: new Date(at).toISOString(), reason: 'paper sheet' })).status).toBe(201);
    expect((await server.admin.delete(`/enrollees/${gone.id}/`)).status).toBeLessThan(300);
    const yesterday = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(yesterdayNine);
    await go('#/attendance', 'Attendance');
    const period = page.getByRole('region', { name: 'Period', exact: true });
    await period.getByLabel('From', { exact: true }).fill(yesterday);
    await period.getByRole('button', { name: 'Show', exact: true }).click();
    const row = page.locator('#attendance-grid').getByRole('row', { name: /E-GONE \(deleted\)/ });
    await row.waitFor();
    expect(await row.locator('td.total').textContent()).toBe('8:00');
    expect(await row.getByRole('link').count()).toBe(0);
    // Their day opens, without a form to add punches to someone deleted.
    await row.getByRole('button', { name: /E-GONE \(deleted\), .*: Present/ }).click();
    await page.getByRole('heading', { level: 2, name: /E-GONE \(deleted\),/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Add punch' }).count()).toBe(0);
  });

  test('integrations and operations: a webhook endpoint for chosen events, tested; an agent key is shown once; a job runs now; the audit log names the console user', async () => {
    await go('#/integrations', 'Integrations');
    const rx = receiver();
    try {
      await page.getByLabel('Receiver URL').fill(rx.url);
      await page.getByLabel('Punch voided').check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('Give it to the receiver now to verify signatures').waitFor();
      const row = page.getByRole('row', { name: new RegExp(rx.url) });
      expect(await row.getByRole('cell', { name: 'Punch received, Punch voided' }).isVisible()).toBe(true);
      await row.getByRole('button', { name: /Send a test/ }).click();
      await page.getByText('The receiver answered HTTP 200.').waitFor();
      // Recovering asks first: cancelled, nothing happens; confirmed, it says what was queued.
      await row.getByRole('button', { name: /Recover/ }).click();
      const ask = page.getByRole('dialog', { name: /Send again everything not delivered/ });
      await ask.getByRole('button', { name: 'Cancel' }).click();
      await ask.waitFor({ state: 'detached' });
      await row.getByRole('button', { name: /Recover/ }).click();
      await ask.getByRole('button', { name: 'Recover' }).click();
      await page.getByText(/messages? queued again\./).waitFor();
      await waitFor(() => rx.calls.some((c) => JSON.parse(c.body).type === 'webhook_test'), 'the test event at the receiver');
    } finally {
      rx.stop();
    }
    await page.getByLabel('Name').fill('Front desk PC');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByText('Enter it in the desktop agent now').waitFor();
    await shot('integrations');
    await go('#/operations', 'Operations');
    // Jobs in plain words (issue 26): no setting names, no `key=value` results.
    expect(await page.getByText('DEVICE_OFFLINE_AFTER').count()).toBe(0);
    await page.getByRole('button', { name: 'Run now: Check terminals' }).click();
    await page.getByText(/^Check terminals: done/).waitFor();
    const audit = page.getByRole('region', { name: 'Audit log' });
    await audit.getByRole('cell', { name: 'hr.officer@example.com' }).first().waitFor();
    const actors = await audit.getByRole('cell', { name: 'hr.officer@example.com' }).count();
    expect(actors).toBeGreaterThan(2);
    // A terminal that did something (stored a fingerprint enrolled at it) is named as a terminal.
    await audit.getByRole('cell', { name: 'Terminal FRONTDOOR1', exact: true }).first().waitFor();
    // Actions read as the events do ("Terminal approved", not "Device approved"); the code is on hover.
    expect(await audit.getByRole('cell', { name: 'Terminal approved', exact: true }).first().locator('span').getAttribute('title')).toBe('device.approved');
    expect(await audit.getByRole('cell', { name: 'Device approved', exact: true }).count()).toBe(0);
    // The filter is chosen by those words and sends the code.
    await audit.getByLabel('Action').selectOption({ label: 'Terminal approved' });
    await audit.getByRole('button', { name: 'Filter' }).click();
    await audit.getByRole('cell', { name: 'Console signed in' }).first().waitFor({ state: 'detached' });
    expect(await audit.getByRole('cell', { name: 'Terminal approved', exact: true }).count()).toBeGreaterThan(0);
    await audit.getByLabel('Action').selectOption({ label: 'Any action' });
    await audit.getByRole('button', { name: 'Filter' }).click();
    await audit.getByRole('cell', { name: 'Console signed in' }).first().waitFor();
    // Events in the same words as Integrations' list of them ("Terminal approved", not "Device approved").
    const events = page.getByRole('region', { name: 'Recent events' });
    await events.getByRole('cell', { name: 'Terminal approved', exact: true }).first().waitFor();
    expect(await events.getByRole('cell', { name: 'Device approved', exact: true }).count()).toBe(0);
    await shot('operations');
    // The overview once the day has begun: a terminal online, a punch, the jobs run.
    await go('#/overview', 'Overview');
    // The clock-in at the terminal and the clock-out entered by hand.
    expect(await page.getByRole('link', { name: /Punches today/ }).textContent()).toContain('2');
    await shot('overview');
  });

  test('a terminal heard from a new address: the console asks, and confirming it trusts the terminal there', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'BACKDOOR1', name: 'Back door' })).status).toBe(201);
    const atHome = new SimulatedTerminal({ url: server.url, sn: 'BACKDOOR1', timeZone: ZONE, now: clock.now });
    await atHome.handshake();
    await atHome.poll();
    // The same serial from another address: nothing is sent there until an administrator confirms.
    const moved = new SimulatedTerminal({ url: server.url, sn: 'BACKDOOR1', timeZone: ZONE, fetch: fetchFrom(SECOND_ADDRESS), now: clock.now });
    await moved.handshake();
    await moved.poll();
    await go('#/terminals', 'Terminals');
    await page
      .getByRole('row', { name: /Back door/ })
      .getByRole('link')
      .click();
    await page.getByRole('heading', { level: 1, name: /Back door/ }).waitFor();
    await shot('terminal-new-address');
    // While the page is open, a request for its serial from yet another address: the address shown is not confirmed.
    const stranger = '127.0.0.3';
    expect((await fetchFrom(stranger)(`${server.url}/iclock/ping?SN=BACKDOOR1`)).status).toBe(200);
    await page.getByRole('button', { name: `Confirm address ${SECOND_ADDRESS}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm address' }).click();
    await page.getByText(`Not confirmed: requests for Back door (BACKDOOR1) now come from ${stranger}, not ${SECOND_ADDRESS}`).waitFor();
    expect((await server.admin.get('/devices/BACKDOOR1/')).body).toMatchObject({ pinned_address: '127.0.0.1', unconfirmed_address: stranger });
    // The terminal polls again from where it is; the page, shown again, offers that address.
    await moved.poll();
    await go('#/terminals', 'Terminals');
    await page
      .getByRole('row', { name: /Back door/ })
      .getByRole('link')
      .click();
    await page.getByRole('button', { name: `Confirm address ${SECOND_ADDRESS}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm address' }).click();
    await page.getByText(`is now trusted at ${SECOND_ADDRESS}`).waitFor();
    expect(await page.getByRole('button', { name: /Confirm address/ }).count()).toBe(0);
    expect((await server.admin.get('/devices/BACKDOOR1/')).body).toMatchObject({ pinned_address: SECOND_ADDRESS, unconfirmed_address: null });
  });

  test('signs out; the session no longer works', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are not signed in, or your session has ended.').waitFor();
    const status = await page.evaluate(async () => (await fetch('/api/fingerprint/v1/devices/')).status);
    expect(status).toBe(401);
  });

  test('an idle session ends: the next page shows the sign-in notice', async () => {
    await signInByLink(page, server, 'night.shift@example.com', /^Today/);
    clock.advance(31 * 60_000);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Terminals' }).click();
    await page.getByText('You are not signed in, or your session has ended.').waitFor();
  });

  test('no script errors and no policy violations on the way', () => {
    expect(errors).toEqual([]);
  });
});
