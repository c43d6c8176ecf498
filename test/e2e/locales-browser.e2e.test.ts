/**
 * The console in other languages than the tests' British English, in a real browser (headless
 * Chromium), from an accessibility and internationalisation review: times of day are the
 * browser's own (`5:15 PM` in en-US, never `05:15` with its PM cut off), dates and weekdays too;
 * a name written right to left keeps its employee id on its own side; one very long name leaves
 * the grid's and the roster's days in view.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { consoleContext, goTo, launchBrowser, screenshotDir, signInByLink, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

const ZONE = 'Europe/Berlin';
/** A Monday to come (sessions are checked against the real clock: the test's runs ahead of it). */
const MONDAY = '2031-03-03';
const berlin = (date: string, time: string) => Date.parse(`${date}T${time}:00+01:00`);
let now = berlin('2031-02-24', '12:00');
let server: TestServer;
let browser: Browser;
const shots = screenshotDir();
const errors: string[] = [];
const ids: Record<string, string> = {};
/** 110 characters: a name as long as an HR system lets one be. */
/** A name written right to left, with an employee id of digits. */
const SARA = 'سارة محمد';
const LONG_NAME = 'Maximiliane Wilhelmina Theodora Konstanze Friederike von und zu Hohenlohe-Waldenburg-Schillingsfürst-Bartenstein';

async function ok(res: Promise<{ status: number; body: unknown }>, status = 201) {
  const got = await res;
  expect(got.status).toBe(status);
  return got.body as { id: string };
}

async function enroll(employee: string, name: string, area = 'plant'): Promise<void> {
  await ok(server.admin.post('/employees/', { id: employee, name }));
  ids[employee] = (await ok(server.admin.post('/enrollees/', { employee, areas: [area] }))).id;
}

async function manualPunch(employee: string, at: string): Promise<void> {
  await ok(server.admin.post('/punches/manual/', { enrollee: ids[employee], at: `${MONDAY} ${at}`, reason: 'forgot the card' }));
}

/** A signed-in page in a browser of `locale`, its clock the server's. */
async function pageIn(locale: string, viewport = { width: 1200, height: 900 }): Promise<Page> {
  const context = await consoleContext(browser, { locale, timezoneId: ZONE, viewport });
  await context.clock.setFixedTime(now);
  const page = await context.newPage();
  watchErrors(page, errors);
  await signInByLink(page, server, 'hr.officer@example.com', /^Today/);
  return page;
}

/** What the browser's own Intl says for this local time in the attendance zone (hour and minute). */
function intlTime(page: Page, at: string): Promise<string> {
  return page.evaluate(
    ([instant, zone]) => new Intl.DateTimeFormat(undefined, { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(new Date(instant!)),
    [new Date(berlin(MONDAY, at)).toISOString(), ZONE],
  );
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ TIME_ZONE: ZONE }, { clock: { now: () => now } }), launchBrowser()]);
  await ok(server.admin.post('/work-schedules/', { name: 'Day', start: '08:00', end: '17:00', break: '30m' }));
  await ok(server.admin.post('/shift-assignments/', { schedule: 'Day', area: 'plant', from: '2031-03-01' }));
  await enroll('E1', 'Ada Lovelace');
  await enroll('E2', LONG_NAME);
  await enroll('1001', SARA);
  await enroll('E3', 'Zoë Zimmer');
  await enroll('E4', 'Ångström Anders');
  now = berlin(MONDAY, '18:00');
  await manualPunch('E1', '07:55');
  await manualPunch('E1', '17:15');
  await manualPunch('1001', '07:30');
  await new SimulatedTerminal({ url: server.url, sn: 'LOCALE01', timeZone: ZONE }).handshake();
  await ok(server.admin.post('/devices/LOCALE01/approve/', { areas: ['plant'] }), 200);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('times and dates in the browser’s language', () => {
  for (const locale of ['en-US', 'ko-KR', 'ar-EG']) {
    test(`the Today board's times in ${locale}: hour and minute as Intl writes them, nothing cut off`, async () => {
      const page = await pageIn(locale);
      try {
        await goTo(page, '#/?show=present', /^Today/);
        const row = page.locator('#board-list').getByRole('row', { name: /Ada Lovelace/ });
        const cells = await row.getByRole('cell').allTextContents();
        const [start, firstIn, left] = await Promise.all(['08:00', '07:55', '17:15'].map((t) => intlTime(page, t)));
        expect({ start: cells[3], firstIn: cells[4], left: cells[6] }).toEqual({ start, firstIn, left: `Left ${left}` });
        const asOf = await page.locator('p.as-of').textContent();
        expect(asOf).toBe(`As of ${await intlTime(page, '18:00')}; updates as people punch. Times in ${ZONE}.`);
        if (locale === 'en-US') expect(left).toMatch(/^5:15\sPM$/);
        if (locale === 'ko-KR') expect(left).toMatch(/5:15$/);
        await page.screenshot({ path: join(shots, `locale-today-${locale}.png`), fullPage: true });
      } finally {
        await page.context().close();
      }
    });
  }
});

describe('dates in the browser’s language (German)', () => {
  /** A local date as Intl writes it in the page's language: `options` as format.ts gives them. */
  function intlDate(page: Page, options: Intl.DateTimeFormatOptions, date: string, to?: string): Promise<string> {
    return page.evaluate(
      ([o, a, b]) => {
        const f = new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', ...(o as Intl.DateTimeFormatOptions) });
        const at = (d: string) => new Date(`${d}T12:00:00Z`);
        return b ? f.formatRange(at(a as string), at(b as string)) : f.format(at(a as string));
      },
      [options, date, to ?? null] as const,
    );
  }
  const DAY: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', year: 'numeric' };

  test('the grid’s weekdays, a terminal’s completeness and a report’s preview use the one formatter, not English or ISO dates', async () => {
    const page = await pageIn('de-DE');
    try {
      await goTo(page, '#/attendance', 'Attendance');
      await page.locator('#attendance-grid th.date').nth(2).waitFor();
      const weekdays = await page.locator('#attendance-grid th.date abbr').allTextContents();
      expect(weekdays).toEqual(await Promise.all(['2031-03-01', '2031-03-02', '2031-03-03'].map((d) => intlDate(page, { weekday: 'short' }, d))));
      expect(weekdays[1]).not.toBe('Su');

      await goTo(page, '#/terminals/LOCALE01', /LOCALE01/);
      const calendar = page.locator('#completeness-calendar');
      await calendar.waitFor();
      const [first, last] = await calendar.evaluate((t) => {
        const dates = Array.from(t.querySelectorAll<HTMLElement>('td[data-date]')).map((td) => td.dataset.date ?? '');
        return [dates[0]!, dates.at(-1)!];
      });
      expect(await calendar.locator('caption').textContent()).toBe(`Dates ${await intlDate(page, DAY, first!, last!)}, the terminal’s own calendar`);
      expect(await calendar.locator('thead th').allTextContents()).toEqual(
        await Promise.all(
          ['2031-03-03', '2031-03-04', '2031-03-05', '2031-03-06', '2031-03-07', '2031-03-08', '2031-03-09'].map((d) =>
            intlDate(page, { weekday: 'short' }, d),
          ),
        ),
      );

      await goTo(page, '#/reports/timesheet', 'Reports');
      await page.getByLabel('From').fill('2031-03-01');
      await page.getByLabel('To', { exact: true }).fill('2031-03-03');
      await page.getByLabel('Person').fill('Ada');
      await page.getByRole('button', { name: 'Preview' }).click();
      const preview = page.locator('#report-preview');
      await preview.locator('h3').waitFor();
      expect(await preview.locator('h3').textContent()).toBe(
        `Timesheet, ${await intlDate(page, DAY, '2031-03-01', '2031-03-03')} — Employee: Ada Lovelace (E1)`,
      );
      const firstRow = await preview.locator('tbody tr').first().getByRole('cell').allTextContents();
      expect(firstRow.slice(0, 2)).toEqual([await intlDate(page, DAY, '2031-03-01'), await intlDate(page, { weekday: 'short' }, '2031-03-01')]);
      await page.screenshot({ path: join(shots, 'locale-report-preview-de.png'), fullPage: true });

      // Figures are grouped as the language groups them, as the dates are written: not `1,000` in German.
      await goTo(page, '#/shifts', 'Shifts and calendar');
      const grouped = await page.evaluate(() => new Intl.NumberFormat().format(1000));
      expect(grouped).toBe('1.000');
      await page.getByLabel('Assign to').selectOption('people');
      await page.getByText(`Up to ${grouped} people at once`).first().waitFor();
    } finally {
      await page.context().close();
    }
  });
});

describe('one very long name', () => {
  /** The long name's row header: its width, the viewport's, and how many of the days are in view beside it. */
  async function nameColumn(page: Page, table: string, header: string) {
    return page.locator(table).evaluate((t, selector) => {
      const wrap = t.closest('.table-wrap') as HTMLElement;
      const name = Array.from(t.querySelectorAll<HTMLElement>(selector)).find((th) => (th.textContent ?? '').startsWith('Maximiliane'))!;
      const right = Math.min(wrap.getBoundingClientRect().right, window.innerWidth);
      const nameBox = name.getBoundingClientRect();
      // The days' cells of its row wholly in view right of the (sticky) name.
      const days = Array.from(name.parentElement!.querySelectorAll('td')).filter((td) => {
        const r = td.getBoundingClientRect();
        return r.left >= nameBox.right - 1 && r.right <= right + 1;
      }).length;
      const link = name.querySelector('a');
      return { width: Math.round(nameBox.width), days, text: link?.textContent, title: link?.getAttribute('title') };
    }, header);
  }

  for (const [device, viewport] of [
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1200, height: 900 }],
  ] as const) {
    test(`on a ${device}, the attendance grid and the roster show days beside it; the whole name is still its link's`, async () => {
      const page = await pageIn('en-GB', viewport);
      try {
        await goTo(page, '#/attendance', 'Attendance');
        const period = page.getByRole('region', { name: 'Period', exact: true });
        await period.getByLabel('From', { exact: true }).fill('2031-02-01');
        await period.getByRole('button', { name: 'Show', exact: true }).click();
        await page.locator('#attendance-grid th.date').nth(20).waitFor();
        const grid = await nameColumn(page, '#attendance-grid', 'th.who');
        // Under half a phone's width, and three weeks of days beside it on a desktop.
        expect(grid.width).toBeLessThanOrEqual(viewport.width * 0.45);
        expect(grid.days).toBeGreaterThanOrEqual(device === 'phone' ? 3 : 20);
        expect({ text: grid.text, title: grid.title }).toEqual({ text: LONG_NAME, title: LONG_NAME });
        await page.locator('#attendance-grid').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shots, `long-name-grid-${device}.png`) });
        await goTo(page, '#/shifts', 'Shifts and calendar');
        const roster = page.locator('table.roster-table');
        await roster.getByRole('link', { name: LONG_NAME }).waitFor();
        const week = await nameColumn(page, 'table.roster-table', 'th[scope=row]');
        expect(week.width).toBeLessThanOrEqual(viewport.width * 0.45);
        expect(week.days).toBeGreaterThanOrEqual(device === 'phone' ? 1 : 7);
        expect({ text: week.text, title: week.title }).toEqual({ text: LONG_NAME, title: LONG_NAME });
        // A 24-hour clock keeps its two-digit hours (en-GB).
        expect(await roster.locator('.shift.on').first().textContent()).toBe('Day08:00–17:00');
        // A shift's hours are never cut: each cell's text fits inside it.
        const cut = await roster
          .locator('.shift.on')
          .evaluateAll(
            (shifts) =>
              shifts.filter(
                (s) =>
                  s.scrollWidth > s.clientWidth + 1 || s.getBoundingClientRect().right > (s.parentElement as HTMLElement).getBoundingClientRect().right + 1,
              ).length,
          );
        expect(cut).toBe(0);
        await roster.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shots, `long-name-roster-${device}.png`) });
      } finally {
        await page.context().close();
      }
    });
  }
});

describe('the order by name', () => {
  test('the attendance grid, the roster and the Today board put Ångström under A, as the server’s lists do', async () => {
    const page = await pageIn('en-GB');
    try {
      const expected = ['Ada Lovelace', 'Ångström Anders', LONG_NAME, 'Zoë Zimmer', SARA];
      await goTo(page, '#/attendance', 'Attendance');
      await page.locator('#attendance-grid th.who').nth(4).waitFor();
      expect(await page.locator('#attendance-grid th.who').allTextContents()).toEqual(expected);
      await goTo(page, '#/shifts', 'Shifts and calendar');
      await page.locator('table.roster-table th[scope=row]').nth(4).waitFor();
      expect(await page.locator('table.roster-table th[scope=row]').allTextContents()).toEqual(expected);
      await goTo(page, '#/?show=expected', /^Today/);
      await page.locator('#board-list tbody tr').nth(4).waitFor();
      expect(await page.locator('#board-list tbody tr td:first-child').allTextContents()).toEqual(expected);
    } finally {
      await page.context().close();
    }
  });
});

describe('a name written right to left', () => {
  /**
   * Where two parts of an element's text are drawn: `before` must end left of where `after`
   * starts, as they are read in the console's left-to-right lines.
   */
  async function drawnInOrder(locator: ReturnType<Page['locator']>, before: string, after: string): Promise<boolean> {
    return locator.evaluate(
      (el, [a, b]) => {
        const rectOf = (needle: string) => {
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = (node.textContent ?? '').indexOf(needle);
            if (at < 0) continue;
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + needle.length);
            return range.getBoundingClientRect();
          }
          throw new Error(`no ${needle} in ${el.textContent}`);
        };
        return rectOf(a!).right <= rectOf(b!).left + 1;
      },
      [before, after],
    );
  }

  test('keeps its employee id, and an event’s date, on their own side: in the person picker, the people chooser and the events', async () => {
    const page = await pageIn('en-GB');
    try {
      await goTo(page, '#/punches', 'Punches');
      const who = page.getByRole('region', { name: 'Find punches' }).getByRole('combobox', { name: 'Person' });
      await who.fill('سارة');
      const option = page.getByRole('listbox').getByRole('option').first();
      await option.waitFor();
      expect(await drawnInOrder(option, SARA, '(1001)')).toBe(true);
      await goTo(page, '#/shifts', 'Shifts and calendar');
      const assign = page.getByRole('region', { name: 'Who works which schedule' });
      await assign.getByLabel('Assign to').selectOption({ label: 'Chosen people' });
      const field = assign.getByRole('combobox', { name: 'Add a person' });
      await field.fill('1001');
      await field.press('Enter');
      const chosen = assign.getByRole('list', { name: 'People chosen' }).getByRole('listitem').first();
      await chosen.waitFor();
      expect(await drawnInOrder(chosen, SARA, '(1001)')).toBe(true);
      await goTo(page, '#/operations', 'Operations');
      // Her punch's event: whose, then when.
      const event = page
        .getByRole('row', { name: /Punch received/ })
        .filter({ hasText: 'سارة' })
        .getByRole('cell')
        .last();
      await event.waitFor();
      expect(await drawnInOrder(event, SARA, '3 Mar 2031')).toBe(true);
      await event.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(shots, 'locale-rtl-events.png') });
    } finally {
      await page.context().close();
    }
  });
});

test('no script errors', () => {
  expect(errors).toEqual([]);
});
