/**
 * The console's accessibility, in a real browser (headless Chromium), from a tester's report:
 * focus comes back to the button that opened a confirmation and stays on a control a redraw
 * replaces (after an action, or the 15 s refresh of Terminals and Overview); buttons that share
 * a word are named by what they act on; a dialog's explanation is read with it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page, Route } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { consoleContext, focused, goTo, launchBrowser, signedInPage, signInByLink, watchErrors } from '../support/browser';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';
import { seedPeople } from '../support/people';

/** The server's clock: real time until the last test moves it a day on. */
const clock = runningClock(Date.now());
let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

function go(p: Page, hash: string, heading: string | RegExp): Promise<void> {
  return goTo(p, hash, heading);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({}, { clock }), launchBrowser()]);
  for (const [username, name] of [
    ['dora', 'Dora Disabled'],
    ['erin', 'Erin Else'],
  ] as const)
    await server.fpa.service.inviteUser({ username, name, role: 'hr' }, { consoleBase: server.url });
  page = await signedInPage(browser, server, errors);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('focus and names in the console', () => {
  test('Escape or Cancel in a confirmation gives focus back to the button that opened it', async () => {
    await go(page, '#/users', 'Users');
    const disable = page.getByRole('button', { name: 'Disable dora' });
    await disable.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Disable Dora Disabled?' });
    await dialog.waitFor();
    expect(await focused(page)).toBe('BUTTON:Cancel');
    // The dialog's explanation is its description, read with its name.
    const described = await dialog.evaluate((d) => document.getElementById(d.getAttribute('aria-describedby') ?? '')?.textContent);
    expect(described).toBe('Their sessions end and their API keys are revoked now.');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(page)).toBe('BUTTON:Disable dora');
    // Enter on the button it came back to opens the dialog again. In full runs on a loaded machine
    // Chromium twice dropped a key press sent right after the dialog closed (never when run alone):
    // when the first press opened nothing within 2 s, the button is asked again.
    await page.keyboard.press('Enter');
    if (
      !(await dialog.waitFor({ timeout: 2000 }).then(
        () => true,
        () => false,
      ))
    ) {
      expect(await focused(page)).toBe('BUTTON:Disable dora');
      await page.keyboard.press('Enter');
    }
    await dialog.waitFor();
    await page.keyboard.press('Enter'); // Cancel has focus
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(page)).toBe('BUTTON:Disable dora');
  });

  test('after the action the page is redrawn: focus goes to the section, and the result is said', async () => {
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Disable Dora Disabled?' });
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').getByText('dora disabled.').waitFor();
    // "Disable dora" became "Enable dora": focus is on the heading of the section it was in.
    expect(await focused(page)).toBe('H2:People who sign in');
    // A control still there after a redraw keeps focus (Enable needs no confirmation).
    await page.getByRole('button', { name: 'Enable dora' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('dora enabled.').waitFor();
    expect(await focused(page)).toBe('H2:People who sign in');
    await page.getByRole('button', { name: 'Reset erin' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Reset Erin Else’s sign-in?' }).getByRole('button', { name: 'Reset' }).click();
    await page.getByText('Give this link to Erin Else').waitFor();
    expect(await focused(page)).toBe('BUTTON:Reset erin');
    expect(errors).toEqual([]);
  });

  test('the 15 s refresh of Terminals and Overview keeps focus on the same link or button', async () => {
    const context = await consoleContext(browser);
    await context.clock.install({ time: Date.now() });
    const p = await context.newPage();
    watchErrors(p, errors);
    await signInByLink(p, server, 'hr.officer@example.com');
    for (const [hash, heading, control] of [
      ['#/terminals', 'Terminals', p.getByRole('button', { name: 'Refresh' })],
      ['#/overview', 'Overview', p.getByRole('link', { name: /Punches today/ })],
    ] as const) {
      await go(p, hash, heading);
      await control.focus();
      const before = await focused(p);
      // The page is drawn anew (its heading a new element), not merely left alone.
      await p.evaluate(() => document.querySelector('h1')?.setAttribute('data-old', ''));
      await p.clock.runFor(15_500);
      await p.waitForFunction(() => !document.querySelector('h1[data-old]') && document.querySelector('h1'), undefined, { polling: 50 });
      expect(await focused(p)).toBe(before);
    }
    // A tile whose count changes meanwhile (a new terminal knocks) is still the one focused.
    const waiting = p.getByRole('link', { name: /Waiting for approval/ });
    await waiting.focus();
    const was = await waiting.textContent();
    await new SimulatedTerminal({ url: server.url, sn: 'KNOCKER01' }).handshake();
    await p.clock.runFor(15_500);
    await p.waitForFunction((text) => document.activeElement?.textContent !== text, was, { polling: 50 });
    expect(await focused(p)).toMatch(/^A:\d+Waiting for approval$/);
    await context.close();
    expect(errors).toEqual([]);
  });

  test('the Delete buttons of the shifts page say what each deletes', async () => {
    expect((await server.admin.post('/work-schedules/', { name: 'Early', start: '06:00', end: '14:00' })).status).toBe(201);
    expect((await server.admin.post('/work-schedules/', { name: 'Late', start: '14:00', end: '22:00' })).status).toBe(201);
    expect((await server.admin.post('/holidays/', { date: '2031-12-25', name: 'Christmas Day' })).status).toBe(201);
    await go(page, '#/shifts', 'Shifts and calendar');
    for (const name of ['Delete schedule Early', 'Delete schedule Late', 'Delete holiday Christmas Day'])
      expect(await page.getByRole('button', { name, exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Delete', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Delete schedule Late' }).click();
    await page.getByRole('dialog', { name: 'Delete schedule Late?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').getByText('Schedule Late deleted.').waitFor();
    expect(errors).toEqual([]);
  });

  test('in a person picker, ↓ opens the suggestions again after Escape or on coming back', async () => {
    await seedPeople(server, [
      { employee: 'P1', name: 'Pia Picker' },
      { employee: 'P2', name: 'Piet Picker' },
    ]);
    await go(page, '#/shifts', 'Shifts and calendar');
    const who = page.getByRole('region', { name: 'Leave' }).getByRole('combobox', { name: 'Person' });
    await who.fill('Picker');
    const list = page.getByRole('listbox');
    await list.getByRole('option').first().waitFor();
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'hidden' });
    await page.keyboard.press('ArrowDown');
    await list.getByRole('option', { name: 'Pia Picker (P1)', selected: true }).waitFor();
    expect(await who.getAttribute('aria-expanded')).toBe('true');
    // Away and back: the list is closed, ↓ opens it.
    await page.keyboard.press('Tab');
    await list.waitFor({ state: 'hidden' });
    await who.focus();
    await page.keyboard.press('ArrowDown');
    await list.getByRole('option', { name: 'Pia Picker (P1)', selected: true }).waitFor();
  });

  test('a person is renamed on their page', async () => {
    const [pia] = (await server.admin.get('/enrollees/?search=Pia')).body.results as { id: string }[];
    await go(page, `#/people/${pia?.id}`, /Pia Picker/);
    await page.getByLabel('Name', { exact: true }).fill('Pia Pickering');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: /Pia Pickering/ }).waitFor();
    expect((await server.admin.get(`/enrollees/${pia?.id}/`)).body.display_name).toBe('Pia Pickering');
    expect(errors).toEqual([]);
  });

  test('on the invite page, passwords that differ are said beside the second field', async () => {
    const invited = await server.fpa.service.inviteUser({ username: 'ivy', name: 'Ivy Invited', role: 'hr' }, { consoleBase: server.url });
    const context = await consoleContext(browser);
    const p = await context.newPage();
    watchErrors(p, errors);
    await p.goto(invited.invite_url);
    expect(await p.title()).toBe('Choose a password: Attendance console');
    await p.getByLabel('New password', { exact: true }).fill('a long enough password');
    const again = p.getByLabel('New password again');
    await again.fill('a long enough passw0rd');
    await p.getByRole('button', { name: 'Set password and sign in' }).click();
    await p.getByText('The two passwords differ.').waitFor();
    expect(await again.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await again.getAttribute('aria-describedby')) ?? '';
    const said = await p.evaluate((ids) => ids.split(' ').map((id) => document.getElementById(id)?.textContent), describedBy);
    expect(said).toContain('The two passwords differ.');
    expect(await p.evaluate(() => document.activeElement?.getAttribute('aria-invalid'))).toBe('true');
    await context.close();
  });

  test('when the session ends, the sign-in form is what the tab is titled', async () => {
    const context = await consoleContext(browser);
    const p = await context.newPage();
    watchErrors(p, errors);
    await signInByLink(p, server, 'hr.officer@example.com');
    await go(p, '#/users', 'Users');
    expect(await p.title()).toBe('Users: Attendance console');
    await context.clearCookies();
    await p.evaluate(() => {
      location.hash = '#/api-keys';
    });
    await p.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await p.title()).toBe('Sign in: Attendance console');
    await context.close();
    expect(errors).toEqual([]);
  });

  test('errors are said in plain words with what to do', async () => {
    const api = `${server.url}/api/fingerprint/v1/users/?*`;
    const cases: [string, (route: Route) => Promise<void>, string, string][] = [
      ['network', (r) => r.abort('failed'), 'No connection', 'The server could not be reached. Check your connection and try again.'],
      [
        '502',
        (r) => r.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad Gateway</h1>' }),
        'Something went wrong',
        'The server had a problem and did not do this. Try again; if it keeps happening, tell your administrator.',
      ],
      [
        '500',
        (r) => r.fulfill({ status: 500, json: { error: { code: 'internal_error', message: 'an internal error occurred', details: {} } } }),
        'Something went wrong',
        'The server had a problem and did not do this. Try again; if it keeps happening, tell your administrator.',
      ],
      [
        '403',
        (r) =>
          r.fulfill({
            status: 403,
            json: { error: { code: 'forbidden', message: 'the role hr may not GET users/', details: { role: 'hr', action: 'GET users/' } } },
          }),
        'Not allowed',
        'Your role does not allow this; it may have changed since you signed in. Reload the page to see what you may do now, or ask an administrator.',
      ],
    ];
    for (const [, answer, heading, message] of cases) {
      await go(page, '#/', /^(Today|Overview)/);
      await page.route(api, answer);
      await go(page, '#/users', heading);
      expect(await page.getByRole('alert').textContent()).toBe(message);
      await page.unroute(api);
    }
    // A record that is not there (or not in the caller's areas): the server's own 404.
    await go(page, '#/people/no-such-person', 'Not found');
    expect(await page.getByRole('alert').textContent()).toBe(
      'This person does not exist (it may have been deleted), or is not in your areas. Go back to the list and look for it there.',
    );
  });

  test('on a phone (390 px) no page scrolls sideways', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'PHONE0001' })).status).toBe(201);
    const context = await consoleContext(browser, { viewport: { width: 390, height: 844 }, isMobile: true });
    const p = await context.newPage();
    watchErrors(p, errors);
    await signInByLink(p, server, 'hr.officer@example.com');
    for (const [hash, heading] of [
      ['#/users', 'Users'],
      ['#/api-keys', 'API keys'],
      ['#/integrations', 'Integrations'],
      ['#/people/import', /^Import/],
      ['#/punches/import', /^Import/],
      ['#/terminals/PHONE0001', /PHONE0001/],
    ] as const) {
      await go(p, hash, heading);
      const wide = await p.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));
      expect(`${hash}: ${wide}`).toBe(`${hash}: 390`);
    }
    await context.close();
    expect(errors).toEqual([]);
  });

  test('the focus ring stands out 3:1 from the page, the cards and the dark header', async () => {
    await go(page, '#/users', 'Users');
    const ring = async (locator: ReturnType<Page['locator']>) => {
      await locator.focus();
      return locator.evaluate((el) => (el.matches(':focus-visible') ? getComputedStyle(el).outlineColor : 'no ring'));
    };
    // Keyboard focus (what :focus-visible draws the ring for): a key press first.
    await page.keyboard.press('Shift');
    const inPage = await ring(page.getByRole('button', { name: 'Reset erin' }));
    const inHeader = await ring(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }));
    for (const [ringColour, ground] of [
      [inPage, 'rgb(255, 255, 255)'],
      [inPage, 'rgb(244, 246, 248)'],
      [inHeader, 'rgb(19, 32, 51)'],
    ])
      expect(contrast(ringColour ?? '', ground ?? '')).toBeGreaterThanOrEqual(3);
  });

  // Last: the server's clock moves a day on (sessions signed in before may end).
  test("a diagnostic says its time once, in the console's form", async () => {
    const terminal = new SimulatedTerminal({ url: server.url, sn: 'SILENT01', now: clock.now });
    await terminal.handshake();
    await terminal.postOptions();
    expect((await server.admin.post('/devices/SILENT01/approve/', {})).status).toBe(200);
    clock.advance(24 * 3600_000 + 60_000);
    expect((await server.admin.post('/jobs/check-devices/run/')).status).toBe(200);
    const api = (await server.admin.get('/diagnostics/')).body.results.find(
      (d: { kind: string; device: string }) => d.kind === 'offline' && d.device === 'SILENT01',
    );
    // The API's message says when on its own.
    expect(api.message).toMatch(/since \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\)\.$/);
    const context = await consoleContext(browser);
    await context.clock.setFixedTime(clock.now());
    const p = await context.newPage();
    watchErrors(p, errors);
    await signInByLink(p, server, 'hr.officer@example.com');
    await go(p, '#/overview', 'Overview');
    const said = (await p.locator('li.diagnostic[data-kind=offline]', { hasText: 'SILENT01' }).textContent()) ?? '';
    expect(said).toContain('has not contacted the server since');
    expect(said).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(said.match(/since/g)?.length).toBe(1);
    await context.close();
    expect(errors).toEqual([]);
  });
});

/** WCAG contrast of two `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, bl] = (rgb.match(/\d+/g) ?? []).slice(0, 3).map((x) => {
      const c = Number(x) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (bl ?? 0);
  };
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return ((x ?? 0) + 0.05) / ((y ?? 0) + 0.05);
}
