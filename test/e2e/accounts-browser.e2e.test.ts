/**
 * People who sign in, in a real browser (headless Chromium): the first owner completes the invite
 * printed by `fpa:create-user` and is signed in; signs out and back in with the password; wrong
 * passwords are refused until 429; the Users page invites someone, whose link (shown once) lets
 * them choose a password and sign in with the role given; an API key made on the API keys page
 * works against the API and stops when revoked there; the profile page changes the password.
 * Pages are photographed into /tmp/shots-accounts/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { completeInvite, PASSWORD } from '../support/accounts';
import { consoleContext, goTo, launchBrowser, watchErrors } from '../support/browser';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const shots = process.env.FPA_SCREENSHOTS || '/tmp/shots-accounts';
const errors: string[] = [];
let inviteeLink = '';

async function shot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const ctx = await consoleContext(browser, { viewport: { width: 1200, height: 800 } });
  const p = await ctx.newPage();
  watchErrors(p, errors);
  return { context: ctx, page: p };
}

function go(p: Page, hash: string, heading: string): Promise<void> {
  return goTo(p, hash, heading);
}

async function signIn(p: Page, username: string, password: string): Promise<void> {
  await p.getByLabel('Username').fill(username);
  await p.getByLabel('Password', { exact: true }).fill(password);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  [server, browser] = await Promise.all([startTestServer({ CONSOLE_SIGN_IN_LIMIT: '3/10m' }), launchBrowser()]);
  expect((await server.admin.post('/areas/', { name: 'north' })).status).toBe(201);
  expect((await server.admin.post('/areas/', { name: 'south' })).status).toBe(201);
  ({ context, page } = await newPage());
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('people who sign in, in a browser', () => {
  test('the first owner opens the invite link, chooses a password and is signed in', async () => {
    const invited = await server.fpa.service.inviteUser({ username: 'olive', name: 'Olive Owner', role: 'owner' }, { consoleBase: server.url });
    await page.goto(invited.invite_url);
    await page.getByText('Welcome, Olive Owner').waitFor();
    await shot(page, 'invite');
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('New password again').fill('short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByText('at least 12 characters').first().waitFor();
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('New password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    expect(await page.getByText('Signed in as Olive Owner').isVisible()).toBe(true);
    expect(await page.locator('.who .role').textContent()).toBe('Owner');
    // The spent token left the address bar.
    expect(page.url()).not.toContain('fpi_');
    await shot(page, 'overview-signed-in');
  });

  test('signs out, then in with the password; a wrong one is refused, then 429 after too many', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await shot(page, 'sign-in-form');
    await signIn(page, 'olive', 'not the password at all');
    await page.getByText('Wrong username or password.').waitFor();
    await signIn(page, 'Olive', PASSWORD);
    await page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();

    // Someone else tries Tim's account (limited per username: Olive is not locked out by it).
    const tim = await server.fpa.service.inviteUser({ username: 'tim', name: 'Tim', role: 'viewer' }, { consoleBase: server.url });
    await completeInvite(server, tim.invite_url);
    const other = await newPage();
    await other.page.goto(`${server.url}/console/`);
    for (let i = 0; i < 3; i++) {
      await signIn(other.page, 'tim', `wrong password ${i}!!`);
      await other.page.getByText('Wrong username or password.').waitFor();
      await other.page.getByText('Wrong username or password.').evaluate((el) => {
        el.textContent = '';
      });
    }
    await signIn(other.page, 'tim', PASSWORD);
    await other.page.getByText(/Too many failed sign-ins\. Try again in (1 minute|\d+ minutes)\.$/).waitFor();
    await shot(other.page, 'sign-in-429');
    await other.context.close();
  });

  test('the Users page invites someone; the invitee chooses a password and signs in with their role', async () => {
    await go(page, '#/users', 'Users');
    await page.getByLabel('Name', { exact: true }).fill('Hana Hr');
    await page.getByLabel('Username').fill('hana');
    await page.getByLabel('Role', { exact: true }).selectOption('hr');
    await page
      .getByRole('group', { name: /^Areas/ })
      .getByLabel('north')
      .check();
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const link = page.locator('#invite-url');
    await link.waitFor();
    inviteeLink = (await link.textContent()) ?? '';
    expect(inviteeLink).toContain('/console/#/invite/fpi_');
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    await page.getByRole('row', { name: /hana/ }).getByText('Invited').waitFor();
    await shot(page, 'users-invited');

    const invitee = await newPage();
    await invitee.page.goto(inviteeLink);
    await invitee.page.getByLabel('New password', { exact: true }).fill('hana has a long password');
    await invitee.page.getByLabel('New password again').fill('hana has a long password');
    await invitee.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await invitee.page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    expect(await invitee.page.locator('.who .role').textContent()).toBe('HR officer in north');
    await invitee.page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(invitee.page, 'hana', 'hana has a long password');
    await invitee.page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    await go(invitee.page, '#/profile', 'Your profile');
    expect(await invitee.page.getByText('north', { exact: true }).isVisible()).toBe(true);
    await invitee.context.close();

    // The owner changes her role and areas, and the row shows it.
    await go(page, '#/users', 'Users');
    await page.getByRole('button', { name: 'Change hana' }).click();
    await page.getByLabel('Role of hana').selectOption('manager');
    await page
      .getByRole('group', { name: /^Areas of hana/ })
      .getByLabel('south')
      .check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /hana/ }).getByText('north, south').waitFor();
    expect(await page.getByRole('row', { name: /hana/ }).getByText('Manager').isVisible()).toBe(true);
    await shot(page, 'users');
  });

  test('the last owner is not offered what the server would refuse: disable, remove, another role', async () => {
    await go(page, '#/users', 'Users');
    const olive = page.getByRole('row', { name: /olive/ });
    await olive.getByText('The last owner: make another owner to disable or remove them.').waitFor();
    expect(await olive.getByRole('button', { name: /^(Disable|Remove) olive$/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Change olive' }).click();
    expect(await page.getByLabel('Role of olive').isDisabled()).toBe(true);
    // With a second owner, both are offered again.
    // users/ takes no search (it took it silently, and this found hana only by her row's place).
    const hana = (await server.admin.get('/users/?limit=1000')).body.results.find((u: { username: string }) => u.username === 'hana');
    expect((await server.admin.patch(`/users/${hana.id}/`, { role: 'owner' })).status).toBe(200);
    await page.reload();
    await page.getByRole('button', { name: 'Disable olive' }).waitFor();
    expect(await page.getByRole('button', { name: 'Remove olive' }).isVisible()).toBe(true);
    expect(await page.locator('[data-last-owner]').count()).toBe(0);
    expect((await server.admin.patch(`/users/${hana.id}/`, { role: 'manager' })).status).toBe(200);
  });

  test('an API key made on the API keys page works against the API and stops when revoked there', async () => {
    await go(page, '#/api-keys', 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('Payroll export');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('#api-key-value');
    await shown.waitFor();
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^fpa_key_/);
    const me = await fetch(`${server.url}/api/fingerprint/v1/users/me/`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ kind: 'api_key', role: 'viewer', name: 'api-key:Payroll export' });
    // Away and back: the list is drawn again, with the use just made.
    await Bun.sleep(100);
    await go(page, '#/overview', 'Overview');
    await go(page, '#/api-keys', 'API keys');
    const row = page.getByRole('row', { name: /Payroll export/ });
    await row.getByText('Active').waitFor();
    // Used (just now), and it never expires.
    expect(await row.getByText('Never').count()).toBe(1);
    await shot(page, 'api-keys');
    await page.getByRole('button', { name: 'Revoke Payroll export' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Key “Payroll export” revoked.').waitFor();
    const after = await fetch(`${server.url}/api/fingerprint/v1/users/me/`, { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);
  });

  test('the profile page changes the password', async () => {
    await go(page, '#/profile', 'Your profile');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill('an even longer new password');
    await page.getByLabel('New password again').fill('an even longer new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    await shot(page, 'profile');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, 'olive', 'an even longer new password');
    // Signed in again where they were.
    await page.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor();
  });

  test('an invite link works once: opened again it says so', async () => {
    const again = await newPage();
    await again.page.goto(inviteeLink);
    await again.page.getByText('This link has been used, has expired, or was replaced by a newer one.').waitFor();
    await again.page.getByRole('link', { name: 'Sign in' }).click();
    await again.page.getByRole('button', { name: 'Sign in' }).waitFor();
    await signIn(again.page, 'hana', 'hana has a long password');
    await again.page.getByRole('heading', { level: 1, name: /^(Today|Overview)/ }).waitFor();
    await again.context.close();
  });

  test('no script errors and no policy violations on the way', () => {
    void context;
    expect(errors).toEqual([]);
  });
});
