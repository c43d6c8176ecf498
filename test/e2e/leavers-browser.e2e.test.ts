/**
 * A small shop's leaver in the console, in a real browser against the real server: Greta was
 * imported (`S07,Greta Hoffmann-Bäcker,,`) and leaves. Deleting her person says, in the dialog,
 * that her employee ID goes inactive in the employee directory, and does it: People no longer
 * offers her under "Employees not enrolled yet" (it did, for good, with no way to remove her),
 * and lists her under "Inactive employees", where she is reactivated or erased. An employee who
 * left before being enrolled is deactivated from "not enrolled yet" itself.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { goTo, launchBrowser, signedInPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

async function importCsv(csv: string): Promise<void> {
  const res = await fetch(`${server.admin.base}/employees/import/`, {
    method: 'POST',
    headers: { ...server.admin.headers, 'content-type': 'text/csv' },
    body: csv,
  });
  expect(((await res.json()) as { errors: unknown[] }).errors).toEqual([]);
}

const region = (name: string) => page.getByRole('region', { name });

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await importCsv('id,name,areas,card\r\nS01,Anton Ofenmeister,,\r\nS07,Greta Hoffmann-Bäcker,,\r\n');
  expect((await server.admin.post('/employees/', { id: 'S09', name: 'Ines Never-Started' })).status).toBe(201);
  page = await signedInPage(browser, server, errors);
});
afterAll(async () => {
  await page?.context().close();
  await browser?.close();
  await server?.close();
  expect(errors).toEqual([]);
});

describe('a leaver in the console', () => {
  test('deleting Greta says her employee ID goes inactive, and People no longer offers her', async () => {
    await goTo(page, '#/people', 'People');
    await region('People').getByRole('link', { name: 'Greta Hoffmann-Bäcker' }).click();
    await page.getByRole('heading', { level: 1, name: /Greta Hoffmann-Bäcker/ }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('Their employee ID S07 is made inactive in the employee directory: no longer offered for enrollment');
    await dialog.getByRole('textbox').fill('S07');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Their employee ID is inactive in the employee directory.').first().waitFor();

    await goTo(page, '#/people', 'People');
    await region('Inactive employees').getByRole('cell', { name: 'S07' }).waitFor();
    const notEnrolled = await region('Employees not enrolled yet').textContent();
    expect(notEnrolled).toContain('S09');
    expect(notEnrolled).not.toContain('S07');
    expect(notEnrolled).not.toContain('Greta');
    expect((await server.admin.get('/employees/S07/')).body).toMatchObject({ active: false });
    expect((await server.admin.get('/audit-log/?target=S07')).body.results.map((e: { action: string }) => e.action)).toEqual(['employee.deactivated']);
  });

  test('someone who never started is deactivated from "not enrolled yet"; the last one gone, the section goes', async () => {
    await region('Employees not enrolled yet').getByRole('button', { name: 'Deactivate Ines Never-Started' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await region('Inactive employees').getByRole('cell', { name: 'S09' }).waitFor();
    expect(await region('Employees not enrolled yet').count()).toBe(0);
  });

  test('Greta comes back: reactivated, she is offered again; erased, her name leaves the directory', async () => {
    await region('Inactive employees').getByRole('button', { name: 'Reactivate Greta Hoffmann-Bäcker' }).click();
    await region('Employees not enrolled yet').getByRole('cell', { name: 'S07' }).waitFor();
    expect((await server.admin.get('/employees/S07/')).body).toMatchObject({ active: true });

    await region('Inactive employees').getByRole('button', { name: 'Erase Ines Never-Started' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('The reports of the dates they worked still name them until the retention period ends.');
    await dialog.getByRole('textbox').fill('S09');
    await dialog.getByRole('button', { name: 'Erase' }).click();
    await page.getByText('S09 erased from the employee directory.').first().waitFor();
    expect(await region('Inactive employees').count()).toBe(0);
    expect((await server.admin.get('/employees/S09/')).status).toBe(404);
  });
});
