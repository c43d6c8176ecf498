/**
 * One headless Chromium for the browser tests, from the npm registry: `@sparticuz/chromium`
 * ships the binary (and its fonts) inside the package, so a fresh machine needs nothing but
 * `npm install`. `CHROMIUM_PATH` overrides it (a CI with Debian's chromium); /usr/bin/chromium
 * is used when the package's binary cannot be unpacked. Launch once per test file and reuse.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import chromium from '@sparticuz/chromium';
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page, chromium as playwright } from 'playwright-core';
import { consoleLink } from './console';
import type { TestServer } from './harness';

async function executable(): Promise<string> {
  const override = process.env.CHROMIUM_PATH;
  if (override) return override;
  try {
    return await chromium.executablePath();
  } catch (error) {
    if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
    throw error;
  }
}

export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({
    executablePath: await executable(),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-sync'],
    headless: true,
  });
}

/**
 * Where screenshots go: a temporary folder, or FPA_SCREENSHOTS (e.g. `docs/screenshots`, to
 * refresh the README's pictures).
 */
export function screenshotDir(): string {
  const dir = process.env.FPA_SCREENSHOTS ? resolve(process.env.FPA_SCREENSHOTS) : join(tmpdir(), 'fpa-console-screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A context as the browser tests open one (a British English desktop in UTC unless `options` say
 * otherwise): a step that does not happen fails in seconds, not after Playwright's 30.
 */
export async function consoleContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, timezoneId: 'UTC', locale: 'en-GB', ...options });
  context.setDefaultTimeout(8000);
  return context;
}

/**
 * Collects what the page's scripts throw or log as errors into `errors`, for the test to expect
 * none. Statuses the tests provoke (401, 403) and endpoints a server may not serve (404) are the
 * browser's network notes ("Failed to load resource"), not script errors.
 */
export function watchErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
}

/** Signs in as `actor` by a one-time link, as a person following it would, and waits for the first page. */
export async function signInByLink(page: Page, server: TestServer, actor: string, firstPage: RegExp | string = /^(Today|Overview)/): Promise<void> {
  await page.goto(await consoleLink(server, actor));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: firstPage }).waitFor();
}

/**
 * The page most browser tests start from: a console context (its clock fixed at `now` when
 * given), the page's script errors collected into `errors`, signed in as `actor` by a link.
 */
export async function signedInPage(
  browser: Browser,
  server: TestServer,
  errors: string[],
  options: { context?: BrowserContextOptions; now?: number; actor?: string } = {},
): Promise<Page> {
  const context = await consoleContext(browser, options.context);
  if (options.now !== undefined) await context.clock.setFixedTime(options.now);
  const page = await context.newPage();
  watchErrors(page, errors);
  await signInByLink(page, server, options.actor ?? 'hr.officer@example.com');
  return page;
}

/** Runs `work` on a signed-in page (signedInPage) and closes its context after, whatever happens. */
export async function onSignedInPage(browser: Browser, server: TestServer, errors: string[], work: (page: Page) => Promise<void>): Promise<void> {
  const page = await signedInPage(browser, server, errors);
  try {
    await work(page);
  } finally {
    await page.context().close();
  }
}

/** Opens a console page by its address (`#/people`) and waits for its heading. */
export async function goTo(page: Page, hash: string, heading: string | RegExp): Promise<void> {
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** A date as the console writes it (en-GB, the tests' browser): `27 Nov 2026`. */
/** What has focus, as a test can compare it: its tag, then its accessible name (aria-label) or its text; `BODY` when nothing has. */
export function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'BODY';
    return `${el.tagName}:${el.getAttribute('aria-label') ?? el.textContent?.trim() ?? ''}`;
  });
}

export function consoleDate(date: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(`${date}T12:00:00Z`));
}
