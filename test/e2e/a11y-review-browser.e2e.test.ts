/**
 * Findings of an accessibility review of the console (playwright and axe), in a real browser
 * (headless Chromium): what a screen reader is told of a search's results (a short status, not
 * the whole table again), where focus goes after an import, what the buttons of a day's punches
 * are called, and the smaller things (scrolling tables reachable by keyboard, headers of action
 * columns, badges kept out of headings, errors tied to their field, the sign-in's focus).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { consoleContext, focused, goTo, launchBrowser, signedInPage, watchErrors } from '../support/browser';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';

const clock = runningClock();
let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const ids: Record<string, string> = {};

async function ok(res: Promise<{ status: number; body: unknown }>, status = 201) {
  const got = await res;
  expect(got.status).toBe(status);
  return got.body as { id: string };
}

async function enroll(employee: string, name: string): Promise<void> {
  await ok(server.admin.post('/employees/', { id: employee, name }));
  ids[employee] = (await ok(server.admin.post('/enrollees/', { employee }))).id;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({}, { clock }), launchBrowser()]);
  await enroll('P1', 'Pia Picker');
  await enroll('P2', 'Piet Picker');
  await enroll('P3', 'Paul Punch');
  // In the directory, nobody enrolled for them yet.
  await ok(server.admin.post('/employees/', { id: 'N1', name: 'Nora Newcomer' }));
  await server.fpa.service.inviteUser({ username: 'ulla', name: 'Ulla User', role: 'hr' }, { consoleBase: server.url });
  page = await signedInPage(browser, server, errors);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('what a screen reader is told', () => {
  test('a people search says how many it found in a short status, not the whole table again', async () => {
    await goTo(page, '#/people', 'People');
    const results = page.locator('#people-results');
    await results.getByRole('link', { name: 'Paul Punch' }).waitFor();
    // Neither list is (inside) a live region: a redraw would be read out whole.
    for (const list of ['#people-results', '#not-enrolled'])
      expect({ list, live: await page.locator(list).evaluate((el) => el.closest('[aria-live]')?.outerHTML.slice(0, 80) ?? null) }).toEqual({
        list,
        live: null,
      });
    const status = page.getByRole('region', { name: 'People', exact: true }).getByRole('status');
    await page.getByLabel('Search', { exact: true }).fill('picker');
    await results.getByRole('link', { name: 'Paul Punch' }).waitFor({ state: 'detached' });
    expect(await status.textContent()).toBe('2 people found.');
    await page.getByLabel('Search', { exact: true }).fill('nobody-here');
    await page.getByText('Nobody matches “nobody-here”.').waitFor();
    expect(await status.textContent()).toBe('No one found.');
    await page.getByLabel('Search', { exact: true }).fill('pia');
    await results.getByRole('link', { name: 'Pia Picker' }).waitFor();
    expect(await status.textContent()).toBe('1 person found.');
  });
});

describe('names of buttons', () => {
  test('the Void buttons of a day’s punches say which punch each voids', async () => {
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    for (const at of ['08:00', '11:00']) await ok(server.admin.post('/punches/manual/', { enrollee: ids.P1, at: `${today} ${at}`, reason: 'forgot the card' }));
    await goTo(page, '#/attendance', 'Attendance');
    await page
      .getByRole('button', { name: /^Pia Picker, / })
      .last()
      .click();
    const detail = page.getByRole('region', { name: /^Pia Picker, / });
    await detail.getByRole('table').waitFor();
    const names = await detail
      .getByRole('button', { name: /^Void/ })
      .evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent));
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^Void the punch of Pia Picker at .*(08:00|11:00)$/);
    expect(new Set(names).size).toBe(2);
  });
});

describe('focus', () => {
  test('after Import (which goes away once done) focus is on the heading of its section, not on <body>', async () => {
    await goTo(page, '#/people/import', 'Import people');
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from('id,name,areas,card\nQ1,Quinn Query,,\n') });
    await page.getByRole('button', { name: 'Check the file' }).click();
    const importNow = page.getByRole('button', { name: 'Import', exact: true });
    await importNow.waitFor();
    await importNow.focus();
    await page.keyboard.press('Enter');
    await page.locator('#status').getByText('1 person was added').waitFor();
    await importNow.waitFor({ state: 'hidden' });
    expect(await focused(page)).toBe('H2:Choose the file');
  });

  test('a field used while the rest of the page still loads keeps the focus; untouched, the new page’s heading takes it', async () => {
    await goTo(page, '#/people', 'People');
    // The punch list answers late, as on a loaded server: the page's top is drawn, the list not yet.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const list = (url: URL) => url.pathname === '/api/fingerprint/v1/punches/' && url.searchParams.get('limit') === '200';
    await page.route(list, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await goTo(page, '#/punches', 'Punches');
      const who = page.getByRole('region', { name: 'Find punches' }).getByRole('combobox', { name: 'Person' });
      await who.fill('pia');
      await page
        .getByRole('listbox')
        .getByRole('option', { name: /Pia Picker/ })
        .waitFor();
      const answered = page.waitForResponse((response) => list(new URL(response.url())));
      release();
      await answered;
      // The router's last step, once the page is drawn whole: the window's title.
      await page.waitForFunction(() => document.title.startsWith('Punches'));
      // The page finished loading after the person went into it: the heading did not take the focus.
      expect(await who.evaluate((el) => el === document.activeElement)).toBe(true);
      await who.fill('piet');
      await page
        .getByRole('listbox')
        .getByRole('option', { name: /Piet Picker/ })
        .waitFor();
    } finally {
      release();
      await page.unroute(list);
    }
    await goTo(page, '#/people', 'People');
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    expect(await focused(page)).toBe('H1:People');
  });
});

describe('smaller things', () => {
  test('a table wider than a phone is a named region a keyboard can scroll; one that fits is no tab stop', async () => {
    const p = await signedInPage(browser, server, errors, { context: { viewport: { width: 390, height: 844 }, isMobile: true } });
    try {
      await goTo(p, '#/people', 'People');
      const wrap = p.locator('#people-results .table-wrap');
      await wrap.locator('table').waitFor();
      await p.waitForFunction(() => document.querySelector('#people-results .table-wrap')?.getAttribute('tabindex') === '0');
      expect({ role: await wrap.getAttribute('role'), label: await wrap.getAttribute('aria-label') }).toEqual({ role: 'region', label: 'People' });
      await wrap.focus();
      await p.keyboard.press('ArrowRight');
      await p.waitForFunction(() => (document.querySelector('#people-results .table-wrap') as HTMLElement).scrollLeft > 0);
      // On a desktop the same table fits: no tab stop, no region.
      await p.setViewportSize({ width: 1400, height: 900 });
      await p.waitForFunction(() => !document.querySelector('#people-results .table-wrap')?.hasAttribute('tabindex'));
      expect(await wrap.getAttribute('role')).toBeNull();
    } finally {
      await p.context().close();
    }
  });

  test('a column of buttons is headed “Actions” for screen readers; no header is empty', async () => {
    await goTo(page, '#/users', 'Users');
    const heads = page.getByRole('region', { name: 'People who sign in' }).getByRole('columnheader');
    await heads.first().waitFor();
    const names = await heads.evaluateAll((ths) => ths.map((th) => th.textContent?.trim() ?? ''));
    expect(names.at(-1)).toBe('Actions');
    expect(names.filter((n) => n === '')).toEqual([]);
    // On screen it is not there.
    expect(
      await page
        .getByRole('columnheader', { name: 'Actions' })
        .first()
        .locator('span')
        .evaluate((s) => s.className),
    ).toBe('visually-hidden');
  });

  test('a person’s status badge is beside the heading, not in its name nor in the tab’s title', async () => {
    await goTo(page, `#/people/${ids.P3}`, /Paul Punch/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Paul Punch');
    expect(await page.title()).toBe('Paul Punch: Attendance console');
    expect(await page.locator('.page-title .badge').textContent()).toBe('Active');
  });

  test('“Add a person” with an ID nobody has: said beside the Employee ID field, with the next step', async () => {
    await goTo(page, '#/people', 'People');
    const add = page.getByRole('region', { name: 'Add a person' });
    const id = add.getByLabel('Employee ID');
    await id.fill('NOBODY-1');
    await add.getByRole('button', { name: 'Add person' }).click();
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true');
    expect(await id.getAttribute('aria-invalid')).toBe('true');
    const said = await id.evaluate((el) => (el.getAttribute('aria-describedby') ?? '').split(' ').map((x) => document.getElementById(x)?.textContent));
    expect(said).toContain('No employee has this ID in the employee directory. To add a new employee, type their name under Name too.');
    expect(await id.evaluate((el) => el === document.activeElement)).toBe(true);
    // With a name, the same ID adds the employee and enrolls them.
    await add.getByLabel('Name', { exact: true }).fill('Nadia Nobody');
    await add.getByRole('button', { name: 'Add person' }).click();
    await page.getByRole('heading', { level: 1, name: 'Nadia Nobody' }).waitFor();
  });

  test('the Today board and the punch form say which time zone their times are in', async () => {
    await goTo(page, '#/', /^Today/);
    expect(await page.locator('p.as-of').textContent()).toEndWith('Times in UTC.');
    await goTo(page, '#/punches', 'Punches');
    const time = page.getByRole('region', { name: 'Add a missing punch' }).getByLabel('Time', { exact: true });
    const hint = await time.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent);
    expect(hint).toBe('In the attendance time zone, UTC.');
  });
});

describe('signing in', () => {
  test('after choosing a password, and after signing in, focus is on the first page’s heading; an earlier error goes at the next attempt', async () => {
    const invited = await server.fpa.service.inviteUser({ username: 'sam', name: 'Sam Signer', role: 'hr' }, { consoleBase: server.url });
    const context = await consoleContext(browser);
    const p = await context.newPage();
    watchErrors(p, errors);
    try {
      await p.goto(invited.invite_url);
      await p.getByLabel('New password', { exact: true }).fill('a long enough password');
      await p.getByLabel('New password again').fill('a long enough password');
      await p.getByRole('button', { name: 'Set password and sign in' }).click();
      await p.getByRole('heading', { level: 1, name: /^Today/ }).waitFor();
      await p.waitForFunction(() => document.activeElement?.tagName === 'H1');
      // Signed out, back with why single sign-on failed; a wrong password then says only that.
      await p.getByRole('button', { name: 'Sign out' }).click();
      await p.goto(`${server.url}/console/?sso_error=failed#/`);
      await p.getByText('Signing in with your company account did not finish. Try again.').waitFor();
      await p.getByLabel('Username').fill('sam');
      await p.getByLabel('Password', { exact: true }).fill('not the password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByText('Wrong username or password.').waitFor();
      expect(await p.getByRole('alert').allTextContents()).toEqual(['Wrong username or password.']);
      await p.getByLabel('Password', { exact: true }).fill('a long enough password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('heading', { level: 1, name: /^Today/ }).waitFor();
      await p.waitForFunction(() => document.activeElement?.tagName === 'H1');
      expect(await focused(p)).toMatch(/^H1:Today/);
    } finally {
      await context.close();
    }
  });
});

test('no script errors', () => {
  expect(errors).toEqual([]);
});
