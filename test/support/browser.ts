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
import { type Browser, chromium as playwright } from 'playwright-core';

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
