/**
 * The console on a phone (390 × 844, touch), in a real browser (headless Chromium) against the
 * real server: a small company (two areas, a terminal with punches, a terminal waiting for
 * approval and so a diagnostic, people in, late, not in yet and on leave, a schedule, a pay period,
 * a webhook) is visited page by page, as the owner and as a manager limited to one area. On every
 * route of the console (a person's and a terminal's page too; the sign-in and an invite's page):
 * the page itself does not scroll sideways (a wide table scrolls in its own box, a named region a
 * keyboard reaches), every control is at least 24 × 24 CSS px (WCAG 2.2's target size, without
 * its exception for spaced-out targets), a field's text is at least 16 px (a phone zooms in on
 * less), nothing is cut off or drawn over its neighbour, and every page of the role's navigation
 * is a tap away. The Today board's counts are in the first screen. Then the everyday tasks by
 * touch, without zooming: a missing punch added from the page of someone the board says is not
 * in yet, a day of the attendance grid (a void asked in a dialog that fits, a punch added), a leave
 * entered, a report previewed and downloaded, a terminal's removal asked, a waiting terminal
 * approved. Screenshots of every page are taken (`FPA_SCREENSHOTS`, else a temporary folder),
 * named `phone-…`: look at them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { makeUser } from '../support/accounts';
import { consoleContext, launchBrowser, screenshotDir, signInByLink, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';
import { receiver } from '../support/webhook-receiver';

const ZONE = 'Europe/Berlin';
/** A Monday to come (the streams check a session's expiry against the real clock: the test's clock runs ahead of it). */
const MONDAY = '2031-03-03';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, timezoneId: ZONE };
let now = berlin('2031-02-26', '12:00');
let server: TestServer;
let browser: Browser;
let terminal: SimulatedTerminal;
const hooks = receiver();
const shots = screenshotDir();
const errors: string[] = [];
const ids: Record<string, string> = {};
const pins: Record<string, string> = {};
let webhookId = '';
let managerCookie = '';

const PEOPLE: [string, string, string][] = [
  ['E-01', 'Anna Schmidt', 'north'],
  ['E-02', 'Bruno Keller', 'north'],
  ['E-03', 'Carla Díaz-Villanueva de la Fuente', 'north'],
  ['E-04', 'Dieter Braun', 'north'],
  ['E-05', 'Eva Lind', 'south'],
  ['E-06', 'Felix Roth', 'south'],
];

async function created(path: string, body: unknown) {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status }).toEqual({ path, status: 201 });
  return res.body;
}

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer({ TIME_ZONE: ZONE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true }, { clock: { now: () => now } }),
    launchBrowser(),
  ]);
  for (const area of ['north', 'south']) await created('/areas/', { name: area });
  for (const [employee, name, area] of PEOPLE) {
    await created('/employees/', { id: employee, name });
    const e = await created('/enrollees/', { employee, areas: [area] });
    ids[employee] = e.id;
    pins[employee] = e.device_pin;
  }
  terminal = new SimulatedTerminal({ url: server.url, sn: 'GATE01', timeZone: ZONE });
  await terminal.handshake();
  expect((await server.admin.post('/devices/GATE01/approve/', { areas: ['north', 'south'] })).status).toBe(200);
  expect((await server.admin.patch('/devices/GATE01/', { name: 'Front gate' })).status).toBe(200);
  await created('/work-schedules/', { name: 'Day shift', start: '08:00', end: '16:30', grace_in: '5m', grace_out: '5m', break: '30m' });
  for (const area of ['north', 'south']) await created('/shift-assignments/', { schedule: 'Day shift', area, from: '2031-02-01' });
  await created('/leaves/', { enrollee: ids['E-04'], from: MONDAY, to: '2031-03-07', kind: 'annual' });
  await created('/pay-periods/', { from: '2031-02-01', to: '2031-02-28' });
  webhookId = (await created('/webhooks/', { url: hooks.url })).id;
  // Last week's days, and this morning's: on time, late, in without an out.
  for (const day of ['2031-02-24', '2031-02-25', '2031-02-26']) {
    now = berlin(day, '18:00');
    for (const [employee, time] of [
      ['E-01', '07:58'],
      ['E-02', '08:20'],
      ['E-05', '07:50'],
    ] as const)
      expect(
        (
          await terminal.punch([
            { pin: pins[employee]!, localTime: `${day} ${time}:00` },
            { pin: pins[employee]!, localTime: `${day} 16:40:00` },
          ])
        ).status,
      ).toBe(200);
  }
  now = berlin(MONDAY, '10:10');
  for (const [employee, time] of [
    ['E-01', '07:58'],
    ['E-02', '08:25'],
    ['E-05', '07:55'],
  ] as const)
    expect((await terminal.punch([{ pin: pins[employee]!, localTime: `${MONDAY} ${time}:00` }])).status).toBe(200);
  // A terminal nobody has approved yet: a diagnostic, and the installer's task.
  await new SimulatedTerminal({ url: server.url, sn: 'WAIT01', timeZone: ZONE }).handshake();
  const manager = await makeUser(server, 'mara', 'manager', { areas: ['north'] });
  managerCookie = manager.session.cookie;
});
afterAll(async () => {
  hooks.stop();
  await browser?.close();
  await server?.close();
});

async function phonePage(): Promise<Page> {
  const context = await consoleContext(browser, PHONE);
  await context.clock.setFixedTime(now);
  const page = await context.newPage();
  watchErrors(page, errors);
  return page;
}

async function asOwner(): Promise<Page> {
  const page = await phonePage();
  await signInByLink(page, server, 'owner@example.com');
  return page;
}

async function asManager(): Promise<Page> {
  const page = await phonePage();
  const [name, value] = managerCookie.split('=') as [string, string];
  await page.context().addCookies([{ name, value, url: server.url }]);
  await page.goto(`${server.url}/console/#/`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  return page;
}

/** Opens `hash` and waits until the page is drawn (its heading, nothing left loading). */
async function open(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await page.waitForFunction(() => document.querySelector('main h1') && !document.querySelector('main .loading'));
  await page.waitForTimeout(300);
}

/**
 * A box that scrolls is made a region once it has been laid out (a resize observer): given a
 * moment, or the findings say which one is not. A part drawn just now (a day's panel) too.
 */
async function scrollingBoxesMarked(page: Page): Promise<void> {
  await page
    .waitForFunction(
      () => Array.from(document.querySelectorAll<HTMLElement>('.table-wrap')).every((w) => w.scrollWidth <= w.clientWidth + 1 || w.hasAttribute('tabindex')),
      undefined,
      { timeout: 2000 },
    )
    .catch(() => undefined);
}

interface Findings {
  page: string;
  /** Links of the main navigation on the page, each in the screen's width: every page is a tap away. */
  nav: number;
  scrollsSideways: number;
  small: string[];
  clipped: string[];
  spilling: string[];
  unreachable: string[];
}

/** What is wrong with the page on screen, for a phone. */
async function findings(page: Page, name: string): Promise<Findings> {
  await scrollingBoxesMarked(page);
  return page.evaluate((pageName) => {
    const TARGETS = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex="0"], [role=button]';
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && r.right > 0 && style.visibility !== 'hidden' && !el.closest('.visually-hidden');
    };
    const describe = (el: Element) => {
      const r = el.getBoundingClientRect();
      const text = (el.getAttribute('aria-label') ?? el.textContent ?? (el as HTMLInputElement).name ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      return `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ')[0]}` : ''} "${text}" ${Math.round(r.width)}×${Math.round(r.height)}`;
    };
    const targets = Array.from(document.querySelectorAll(TARGETS)).filter(visible);
    // At least 24 × 24 CSS px (WCAG 2.2's target size, without its exception for spaced-out
    // targets: a thumb is not a mouse); a link inside a sentence is exempt, as WCAG has it.
    const isSmall = (r: DOMRect) => r.width < 23.5 || r.height < 23.5;
    const inSentence = (el: Element) =>
      el.tagName === 'A' &&
      getComputedStyle(el).display === 'inline' &&
      Array.from(el.parentElement?.childNodes ?? []).some((n) => n !== el && n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
    const small = targets.filter((el) => isSmall(el.getBoundingClientRect()) && !inSentence(el)).map(describe);
    const all = Array.from(document.querySelectorAll('body *')).filter(visible);
    const clipped = all
      .filter((el) => {
        const style = getComputedStyle(el);
        if (!['hidden', 'clip'].includes(style.overflowX) && !['hidden', 'clip'].includes(style.overflowY)) return false;
        if (style.textOverflow === 'ellipsis' && el.closest('[title]')) return false;
        // A field scrolls its own text.
        if (['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) return false;
        return el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
      })
      .map(describe);
    // A hint in an empty field cut off at its edge ("Name, employee ID, PI").
    const measure = document.createElement('canvas').getContext('2d');
    for (const field of Array.from(document.querySelectorAll<HTMLInputElement>('input[placeholder]')).filter(visible)) {
      if (!measure || field.value !== '') continue;
      const style = getComputedStyle(field);
      measure.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = field.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
      if (measure.measureText(field.placeholder).width > room + 1) clipped.push(`${describe(field)} placeholder "${field.placeholder}"`);
    }
    // A field's text under 16 px: a phone's browser (Safari) zooms the page in when it takes focus.
    for (const field of Array.from(document.querySelectorAll('input:not([type=checkbox]):not([type=radio]):not([type=file]), select, textarea')).filter(
      visible,
    ))
      if (Number.parseFloat(getComputedStyle(field).fontSize) < 16)
        small.push(`${describe(field)} text ${getComputedStyle(field).fontSize}: zooms in on focus`);
    // A table's caption runs past the box the table scrolls in: its end is out of view.
    for (const caption of Array.from(document.querySelectorAll('.table-wrap caption')).filter(visible)) {
      const range = document.createRange();
      range.selectNodeContents(caption);
      const wrap = caption.closest('.table-wrap')!.getBoundingClientRect();
      if (range.getBoundingClientRect().right > wrap.right + 1) clipped.push(`caption "${caption.textContent}" past its box`);
    }
    // Content wider than its box, drawn over what is beside it (a badge wider than its cell).
    const spilling = all
      .filter((el) => {
        const style = getComputedStyle(el);
        if (style.display === 'inline' || style.overflowX !== 'visible' || el.closest('.visually-hidden, .skip, .skip-grid')) return false;
        if (['TABLE', 'THEAD', 'TBODY', 'TR'].includes(el.tagName)) return false;
        return el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0;
      })
      .map(describe);
    const unreachable = all
      .filter((el) => {
        const style = getComputedStyle(el);
        if (!['auto', 'scroll'].includes(style.overflowX) || el.scrollWidth <= el.clientWidth + 1) return false;
        return el.getAttribute('tabindex') !== '0' || !el.getAttribute('aria-label');
      })
      .map(describe);
    // A table's buttons (its column of actions) in view without scrolling its box (a column that
    // holds a form, Operations' jobs with Record absences' dates, is scrolled to as its fields
    // are); the attendance grid's days scroll by design, its names staying.
    const tablesOfActions = '.table-wrap:not(.grid) table:not(:has(td:last-child > form))';
    for (const button of Array.from(document.querySelectorAll(`${tablesOfActions} :is(td > button, td > .actions button)`)).filter(visible)) {
      const r = button.getBoundingClientRect();
      const box = button.closest('.table-wrap')!.getBoundingClientRect();
      if (r.right > box.right + 1 || r.left < box.left - 1) unreachable.push(`${describe(button)} out of its box's view`);
    }
    const nav = Array.from(document.querySelectorAll('nav[aria-label="Main"] a')).filter((a) => {
      const r = a.getBoundingClientRect();
      return visible(a) && r.left >= 0 && r.right <= innerWidth;
    }).length;
    return { page: pageName, nav, scrollsSideways: document.documentElement.scrollWidth - innerWidth, small, clipped, spilling, unreachable };
  }, name);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `phone-${name}.png`), fullPage: true });
}

function routes(): [string, string][] {
  return [
    ['today', '#/'],
    ['overview', '#/overview'],
    ['terminals', '#/terminals'],
    ['terminal', '#/terminals/GATE01'],
    ['terminal-waiting', '#/terminals/WAIT01'],
    ['people', '#/people'],
    ['people-import', '#/people/import'],
    ['person', `#/people/${ids['E-02']}`],
    ['areas', '#/areas'],
    ['area', '#/areas/north'],
    ['shifts', '#/shifts'],
    ['punches', '#/punches'],
    ['punches-import', '#/punches/import'],
    ['attendance', '#/attendance'],
    ['anomalies', '#/anomalies'],
    ['reports', '#/reports'],
    ['reports-timesheet', '#/reports/timesheet'],
    ['reports-summary', '#/reports/summary'],
    ['reports-exceptions', '#/reports/exceptions'],
    ['integrations', '#/integrations'],
    ['integrations-endpoint', `#/integrations/${webhookId}`],
    ['operations', '#/operations'],
    ['users', '#/users'],
    ['api-keys', '#/api-keys'],
    ['profile', '#/profile'],
  ];
}

describe('every page on a phone', () => {
  // The owner has every page of the navigation; a manager, those of attendance (no terminals, integrations, operations, users or keys).
  for (const [who, signIn, pages] of [
    ['owner', asOwner, 14],
    ['manager', asManager, 9],
  ] as const)
    test(`as the ${who}: nothing scrolls sideways, every control is big enough, nothing is cut off`, async () => {
      const page = await signIn();
      const found: Findings[] = [];
      try {
        for (const [name, hash] of routes()) {
          await open(page, hash);
          found.push(await findings(page, name));
          await shot(page, `${who}-${name}`);
        }
      } finally {
        await page.context().close();
      }
      expect(
        found.filter((f) => f.nav !== pages || f.scrollsSideways > 1 || f.small.length || f.clipped.length || f.spilling.length || f.unreachable.length),
      ).toEqual([]);
      expect(errors).toEqual([]);
    }, 120_000);
});

/** Taps a link of the main navigation (every page has it, at the top). */
async function tapNav(page: Page, label: string, heading: string | RegExp): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).tap();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

describe('before signing in', () => {
  test('the sign-in form fits a phone', async () => {
    const page = await phonePage();
    try {
      await page.goto(`${server.url}/console/`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await findings(page, 'sign-in')).toMatchObject({ scrollsSideways: 0, small: [], clipped: [], spilling: [], unreachable: [] });
      // Its card stands clear of the screen's edges (it ran to them).
      const card = await page.locator('main.signin').boundingBox();
      expect(card && card.x >= 8 && card.x + card.width <= 390 - 8).toBe(true);
      await shot(page, 'sign-in');
    } finally {
      await page.context().close();
    }
  });
});

describe('an invite on a phone', () => {
  test('the page of an invite link fits a phone', async () => {
    const invited = await server.admin.post('/users/', { name: 'Nils New', username: 'nils', role: 'hr', areas: [] });
    expect(invited.status).toBe(201);
    const page = await phonePage();
    try {
      await page.goto(invited.body.invite_url);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByRole('button').first().waitFor();
      expect(await findings(page, 'invite')).toMatchObject({ scrollsSideways: 0, small: [], clipped: [], spilling: [], unreachable: [] });
      await shot(page, 'invite');
    } finally {
      await page.context().close();
    }
  });
});

describe('the Today board on a phone', () => {
  test('its counts are all in the first screen, each one tap away (a manager; the owner, whose menu is longer)', async () => {
    for (const signIn of [asManager, asOwner]) await countsInFirstScreen(await signIn());
  });
});

async function countsInFirstScreen(page: Page): Promise<void> {
  try {
    await page.getByRole('heading', { level: 1, name: 'Today, Mon 3 Mar' }).waitFor();
    const tiles = await page
      .getByRole('group', { name: 'Counts' })
      .getByRole('button')
      .evaluateAll((buttons) =>
        buttons.map((b) => ({ bottom: Math.round(b.getBoundingClientRect().bottom), width: Math.round(b.getBoundingClientRect().width) })),
      );
    expect(tiles).toHaveLength(11);
    // Two a row, the last ended at 1,130 px: a scroll down before the first name.
    expect(Math.max(...tiles.map((t) => t.bottom))).toBeLessThanOrEqual(844);
    await shot(page, 'today-first-screen');
  } finally {
    await page.context().close();
  }
}

describe('the Today board on a phone, its list', () => {
  test('under the tiles and out of view, it keeps the room of its rows, not of a hundred', async () => {
    const page = await asOwner();
    try {
      await page.getByRole('heading', { level: 1, name: 'Today, Mon 3 Mar' }).waitFor();
      const list = await page.locator('#board-list table').evaluate((t) => ({
        rows: t.querySelectorAll('tbody tr').length,
        height: Math.round(t.getBoundingClientRect().height),
        page: document.documentElement.scrollHeight,
      }));
      expect(list.rows).toBe(5);
      // The rows and their header, about 40 px each: before, 3,800 px of blank (the page five screens long).
      expect(list.height).toBeLessThan(60 * (list.rows + 1));
      expect(list.page).toBeLessThan(3 * 844);
      // Scrolled to, its rows are drawn.
      await page.locator('#board-list tbody tr').last().scrollIntoViewIfNeeded();
      await page.locator('#board-list').getByRole('link', { name: 'Anna Schmidt' }).waitFor();
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      await page.screenshot({ path: join(shots, 'phone-today-list.png') });
    } finally {
      await page.context().close();
    }
  });
});

describe('the everyday tasks on a phone, without zooming', () => {
  test('a branch manager sees who is not in yet, opens her page from the board, and adds there the punch she missed, with a reason', async () => {
    const page = await asManager();
    try {
      await page.getByRole('heading', { level: 1, name: 'Today, Mon 3 Mar' }).waitFor();
      await page.getByRole('button', { name: /^1\s*Not in yet$/ }).tap();
      await page.getByRole('heading', { level: 2, name: 'Not in yet: 1' }).waitFor();
      await page.locator('#board-list').getByRole('link', { name: PEOPLE[2]![1] }).tap();
      await page.getByRole('heading', { level: 1, name: PEOPLE[2]![1] }).waitFor();
      // On her page, the punch she missed, for her already.
      const form = page.getByRole('region', { name: 'Add a missing punch' });
      expect(await form.getByRole('combobox', { name: 'Person' }).inputValue()).toContain('Carla');
      await form.getByLabel('Time').fill('08:03');
      await form.getByLabel('Reason').fill('forgot her card');
      await form.getByRole('button', { name: 'Add punch' }).tap();
      await form.getByText(/^Punch added at/).waitFor();
      await page.locator('#status').getByText('Manual punch added.').waitFor();
      expect(await findings(page, 'punch added')).toMatchObject({ scrollsSideways: 0, small: [], clipped: [], spilling: [] });
      await shot(page, 'task-punch-added');
      // Back on the board, she is in.
      await tapNav(page, 'Today', /^Today/);
      await page.getByRole('button', { name: /^0\s*Not in yet$/ }).waitFor();
    } finally {
      await page.context().close();
    }
    expect(errors).toEqual([]);
  });

  test('a branch manager opens a day on the attendance grid: its punches, a void asked with a reason in a dialog that fits, a punch added there', async () => {
    const page = await asManager();
    try {
      await tapNav(page, 'Attendance', 'Attendance');
      await page.getByRole('button', { name: /^Bruno Keller, .*3 Mar/ }).tap();
      const day = page.getByRole('region', { name: /^Bruno Keller, / });
      await day.getByRole('table').waitFor();
      expect(await findings(page, 'day')).toMatchObject({ scrollsSideways: 0, small: [], clipped: [], spilling: [], unreachable: [] });
      await shot(page, 'task-day');
      await day.getByRole('button', { name: /^Void the punch of Bruno Keller/ }).tap();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Reason').waitFor();
      const box = await dialog.boundingBox();
      expect(box && box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844).toBe(true);
      expect(await findings(page, 'void dialog')).toMatchObject({ small: [], clipped: [], spilling: [] });
      await shot(page, 'task-void-dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).tap();
      const form = page.getByRole('region', { name: 'Add a missing punch' });
      expect(await form.getByRole('combobox', { name: 'Person' }).inputValue()).toContain('Bruno Keller');
      await form.getByLabel('Time').fill('09:50');
      await form.getByLabel('Reason').fill('went out to the bank, no card');
      await form.getByRole('button', { name: 'Add punch' }).tap();
      await page.locator('#status').getByText('Manual punch added.').waitFor();
      await day.getByRole('row', { name: /09:50/ }).waitFor();
    } finally {
      await page.context().close();
    }
    expect(errors).toEqual([]);
  });

  test('an HR officer enters a leave; the dialog to delete one fits the screen', async () => {
    const page = await asOwner();
    try {
      await tapNav(page, 'Shifts', 'Shifts and calendar');
      const leave = page.getByRole('region', { name: 'Leave' });
      await leave.getByRole('combobox', { name: 'Person' }).fill('Anna');
      await page.getByRole('option', { name: /Anna Schmidt/ }).tap();
      await leave.getByLabel('From').fill('2031-03-10');
      await leave.getByLabel('To').fill('2031-03-12');
      await leave.getByLabel('Kind').fill('sick');
      await leave.getByRole('button', { name: 'Add leave' }).tap();
      await leave.getByRole('row', { name: /Anna Schmidt/ }).waitFor();
      await leave
        .getByRole('row', { name: /Anna Schmidt/ })
        .getByRole('button', { name: 'Delete' })
        .tap();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      const box = await dialog.boundingBox();
      expect(box && box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844).toBe(true);
      expect(await findings(page, 'dialog')).toMatchObject({ small: [], clipped: [], spilling: [] });
      await shot(page, 'task-leave-dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).tap();
      await leave.getByRole('row', { name: /Anna Schmidt/ }).waitFor();
    } finally {
      await page.context().close();
    }
    expect(errors).toEqual([]);
  });

  test('a report is previewed and downloaded', async () => {
    const page = await asOwner();
    try {
      await tapNav(page, 'Reports', 'Reports');
      await page
        .getByRole('tab', { name: 'Summary' })
        .or(page.getByRole('link', { name: 'Summary', exact: true }))
        .tap();
      await page.getByRole('heading', { level: 2, name: 'Summary report' }).waitFor();
      await page.getByLabel('From').fill('2031-02-01');
      await page.getByLabel('To', { exact: true }).fill('2031-02-28');
      await page.getByRole('button', { name: 'Preview' }).tap();
      await page.locator('#report-preview').getByRole('cell', { name: 'Bruno Keller' }).waitFor();
      // Wider than the phone, it scrolls in its box, a region named after the report.
      await page.locator('#report-preview').getByRole('region', { name: 'Summary report' }).waitFor();
      expect(await findings(page, 'report preview')).toMatchObject({ scrollsSideways: 0, small: [], clipped: [], spilling: [], unreachable: [] });
      await shot(page, 'task-report-preview');
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download CSV' }).tap();
      expect((await download).suggestedFilename()).toMatch(/\.csv$/);
    } finally {
      await page.context().close();
    }
    expect(errors).toEqual([]);
  });

  test('removing a terminal asks for its serial, in a dialog that fits the screen', async () => {
    const page = await asOwner();
    try {
      await tapNav(page, 'Terminals', 'Terminals');
      await page
        .getByRole('link', { name: /Front gate/ })
        .first()
        .tap();
      await page.getByRole('heading', { level: 1, name: /Front gate/ }).waitFor();
      await page.getByRole('button', { name: 'Remove', exact: true }).tap();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Type GATE01 to confirm').waitFor();
      const box = await dialog.boundingBox();
      expect(box && box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844).toBe(true);
      expect(await findings(page, 'remove dialog')).toMatchObject({ small: [], clipped: [], spilling: [] });
      await shot(page, 'task-remove-dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).tap();
      await dialog.waitFor({ state: 'hidden' });
    } finally {
      await page.context().close();
    }
    expect(errors).toEqual([]);
  });

  test('the installer approves the terminal waiting in the car park', async () => {
    const page = await asOwner();
    try {
      await tapNav(page, 'Terminals', 'Terminals');
      await page.getByRole('link', { name: 'WAIT01' }).first().tap();
      await page.getByRole('heading', { level: 1, name: 'WAIT01' }).waitFor();
      const approve = page.getByRole('region', { name: 'Approve this terminal' });
      await approve.getByRole('checkbox', { name: 'north' }).tap();
      await approve.getByRole('button', { name: 'Approve' }).tap();
      await page.getByText('Approved', { exact: true }).first().waitFor();
    } finally {
      await page.context().close();
    }
    expect(errors).toEqual([]);
  });
});
