/**
 * `bun run fpa:console-link` as an operator runs it: with no server (the script opens the
 * database), then while a server holds it (the script asks the server). The printed link signs in
 * once, as the named person; its address is CONSOLE_URL when set; a user's username is refused.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { JWT_SECRET, startTestServer, TEST_KEY, type TestServer, tempDir } from '../support/harness';

const temp = tempDir('fpa-console-cli-');
let server: TestServer | null = null;

afterAll(async () => {
  await server?.close();
  temp.cleanup();
});

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts');

async function consoleLinkScript(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return consoleLinkWith({}, ...args);
}

async function consoleLinkWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, CLI, 'console-link', ...args], {
    cwd: temp.dir,
    env: {
      PATH: process.env.PATH ?? '',
      FPA_DATABASE_URL: `file:${join(temp.dir, 'fpa.db')}`,
      FPA_TEMPLATE_ENCRYPTION_KEYS: TEST_KEY,
      FPA_ADMIN_JWT_SECRET: JWT_SECRET,
      FPA_TASK_BACKEND: 'external',
      FPA_LOG_LEVEL: 'error',
      FPA_CONSOLE_URL: 'https://attendance.example.com/console/',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function tokenIn(stdout: string): string {
  // The token after `#`: a browser never sends it to the server, nor to a proxy's log.
  const match = /^https:\/\/attendance\.example\.com\/console\/sign-in#token=(fpc_[A-Za-z0-9_-]+)$/m.exec(stdout);
  if (!match) throw new Error(`unexpected output: ${stdout}`);
  return match[1]!;
}

async function signIn(token: string): Promise<number> {
  const res = await fetch(`${server!.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  return res.status;
}

describe('fpa:console-link', () => {
  test('without a running server it opens the database itself; the link signs in once', async () => {
    const run = await consoleLinkScript('--as', 'it.admin');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('a sign-in link for "it.admin"');
    const token = tokenIn(run.stdout);
    server = await startTestServer({}, { dir: temp.dir });
    expect(await signIn(token)).toBe(303);
    expect(await signIn(token)).toBe(410);
    const audit = await server.admin.get('/audit-log/?action=console_signed_in');
    expect(audit.body.results[0]).toMatchObject({ actor: 'it.admin' });
  }, 30_000);

  test('while a server holds the database it asks that server; its default name is no one’s username', async () => {
    // A user named admin does not lock the operator out: the default is a name no username can be.
    expect((await server!.admin.post('/users/', { name: 'Admin', username: 'admin', role: 'viewer' })).status).toBe(201);
    const run = await consoleLinkScript();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('a sign-in link for "admin (operator)"');
    expect(await signIn(tokenIn(run.stdout))).toBe(303);
  }, 30_000);

  test('--as never names a user: the operator’s owner-level actions would read as theirs in the audit log', async () => {
    const invited = await server!.admin.post('/users/', { name: 'HR One', username: 'hr1', role: 'hr' });
    expect(invited.status).toBe(201);
    // Through the running server (any case: usernames are unique whatever the case).
    const run = await consoleLinkScript('--as', 'HR1');
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr).toContain('"HR1" is the username of a user here');
    expect(run.stderr).toContain('choose another with --as');
    const made = await server!.admin.get('/audit-log/?action=console_link_created');
    expect(made.body.results.map((e: { target_id: string }) => e.target_id)).not.toContain('HR1');
    // Another name is fine.
    expect((await consoleLinkScript('--as', 'hr1.operator')).code).toBe(0);
  }, 30_000);

  test('a CONSOLE_URL that is no http(s) URL prints no link, through the server or without it', async () => {
    for (const url of ['notaurl', 'ftp://x y/console']) {
      const run = await consoleLinkWith({ FPA_CONSOLE_URL: url }, '--as', 'it.admin');
      expect({ url, code: run.code, stdout: run.stdout }).toEqual({ url, code: 1, stdout: '' });
      expect(run.stderr).toContain(`CONSOLE_URL "${url}" is not a URL`);
    }
    await server!.close();
    server = null;
    const direct = await consoleLinkWith({ FPA_CONSOLE_URL: 'ftp://files.example.com/console' });
    expect({ code: direct.code, stdout: direct.stdout }).toEqual({ code: 1, stdout: '' });
    expect(direct.stderr).toContain('fpa.E025 [error] CONSOLE_URL "ftp://files.example.com/console" is not an http(s) URL.');
  }, 60_000);

  test('without a running server a user’s username is refused too', async () => {
    const run = await consoleLinkScript('--as', 'hr1');
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr).toContain('fpa:console-link: "hr1" is the username of a user here');
  }, 30_000);
});
