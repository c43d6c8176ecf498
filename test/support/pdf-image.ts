/**
 * A page of a PDF as a PNG, drawn by pdf.js (the build unpdf ships) in the tests' headless
 * Chromium: no system package, no native canvas. The README's timesheet picture is made so.
 */
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';

const PDFJS = readFileSync(Bun.fileURLToPath(import.meta.resolve('unpdf/pdfjs')));
const ORIGIN = 'http://pdf.invalid';

export async function pdfPageImage(browser: Browser, pdf: Uint8Array, options: { page?: number; scale?: number } = {}): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    await page.route(`${ORIGIN}/**`, async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/pdf.mjs') return route.fulfill({ body: PDFJS, contentType: 'text/javascript' });
      if (path === '/file.pdf') return route.fulfill({ body: Buffer.from(pdf), contentType: 'application/pdf' });
      return route.fulfill({ body: '<!doctype html><body style="margin:0;background:#888"><canvas id="c"></canvas></body>', contentType: 'text/html' });
    });
    await page.goto(`${ORIGIN}/`);
    await page.evaluate(
      async ({ number, scale }) => {
        const pdfjs = await import('/pdf.mjs' as string);
        const doc = await pdfjs.getDocument({ url: '/file.pdf' }).promise;
        const p = await doc.getPage(number);
        const viewport = p.getViewport({ scale });
        const canvas = document.getElementById('c') as HTMLCanvasElement;
        canvas.width = viewport.width;
        canvas.height = viewport.height;
        await p.render({ canvasContext: canvas.getContext('2d'), canvas, viewport }).promise;
      },
      { number: options.page ?? 1, scale: options.scale ?? 1.5 },
    );
    return await page.locator('#c').screenshot();
  } finally {
    await page.close();
  }
}
