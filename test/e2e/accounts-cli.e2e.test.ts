/**
 * `npm run fpa:create-user` as an operator runs it: the first owner from a shell with no server
 * (the script opens the database), then with a server holding the database (the script asks it);
 * the printed link (at CONSOLE_URL) sets the password and signs in; wrong options exit 2.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { refusal } from '../../src/cli/run';
import { reachableHost } from '../../src/platform/net/lan';
import { completeInvite, PASSWORD, passwordSignIn, sessionClient } from '../support/accounts';
import { runCli } from '../support/cli';
import { startTestServer, type TestServer, tempDir } from '../support/harness';

const temp = tempDir('fpa-accounts-cli-');
const db = join(temp.dir, 'fpa.db');
const env = { FPA_CONSOLE_URL: 'https://attendance.example.com/console/', FPA_LOG_LEVEL: 'error' };
let server: TestServer | null = null;

afterAll(async () => {
  await server?.close();
  temp.cleanup();
});

/** Command lines with a value the API refuses, and what the refusal must name. */
const BAD_VALUES: [string[], string][] = [
  [['--username', 'x3', '--role', 'owner', '--email', 'notanemail'], `--email "notanemail" is refused: Expected string to match '^[^\\s@]+@[^\\s@]+$'`],
  [['--username', 'bad name!', '--role', 'owner'], '--username "bad name!" is refused'],
];

const LINK = /^https:\/\/attendance\.example\.com\/console\/#\/invite\/(fpi_[A-Za-z0-9_-]{43})$/m;

describe('a server with no administrator JWT settings', () => {
  test('starts; the first owner comes from the script, integrations get API keys; a JWT is refused with the reason', async () => {
    const own = tempDir('fpa-no-jwt-');
    const noJwt = { ...env, FPA_ADMIN_JWT_SECRET: '' };
    const bare = await startTestServer({ ADMIN_JWT_SECRET: '' }, { dir: own.dir });
    try {
      expect((await fetch(`${bare.url}/readyz`)).status).toBe(200);
      const jwt = await bare.admin.get('/devices/');
      expect(jwt.status).toBe(401);
      expect(jwt.body.error.message).toContain('use an API key');
      const run = await runCli(['create-user', '--username', 'grace', '--role', 'owner'], join(own.dir, 'fpa.db'), noJwt);
      expect(run.code).toBe(0);
      const owner = sessionClient(bare, await completeInvite(bare, `${bare.url}/console/#/invite/${LINK.exec(run.out)![1]}`));
      const key = await owner.post('/api-keys/', { name: 'payroll', role: 'viewer' });
      expect(key.status).toBe(201);
      const listed = await fetch(`${bare.url}/api/fingerprint/v1/devices/`, { headers: { authorization: `Bearer ${key.body.key}` } });
      expect(listed.status).toBe(200);
      const check = await runCli(['check'], join(own.dir, 'fpa.db'), noJwt);
      expect({ code: check.code, out: check.out }).toEqual({ code: 0, out: expect.not.stringContaining('E009') });
    } finally {
      await bare.close();
      own.cleanup();
    }
  }, 60_000);
});

describe('fpa:create-user', () => {
  test('options are strict: unknown ones, a missing username or an unknown role exit 2', async () => {
    expect((await runCli(['create-user', '--bogus'], db, env)).code).toBe(2);
    expect((await runCli(['create-user', '--role', 'owner'], db, env)).code).toBe(2);
    const badRole = await runCli(['create-user', '--username', 'x', '--role', 'boss'], db, env);
    expect(badRole.code).toBe(2);
    expect(badRole.err).toContain('owner, admin, hr, manager, installer, viewer');
    // Values the API's schema refuses: refused here too (the service alone would have taken them), naming the value.
    for (const [args, named] of BAD_VALUES) {
      const run = await runCli(['create-user', ...args], db, env);
      expect({ args, code: run.code, out: run.out }).toEqual({ args, code: 2, out: '' });
      expect(run.err).toContain(named);
    }
  }, 60_000);

  test('without a running server it invites the first owner; the link sets the password and signs in', async () => {
    const run = await runCli(['create-user', '--username', 'ada', '--role', 'owner', '--name', 'Ada Obi', '--email', 'ada@example.com'], db, env);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toContain('"ada" (owner) is invited');
    const token = LINK.exec(run.out)?.[1];
    expect(token).toBeDefined();
    server = await startTestServer({}, { dir: temp.dir });
    const session = await completeInvite(server, `${server.url}/console/#/invite/${token}`);
    const me = await sessionClient(server, session).get('/users/me/');
    expect(me.body).toMatchObject({ kind: 'user', username: 'ada', name: 'Ada Obi', email: 'ada@example.com', role: 'owner', areas: [] });
    const audit = await server.admin.get('/audit-log/?action=user.invited');
    expect(audit.body.results[0]).toMatchObject({ actor: 'operator', actor_kind: 'operator' });
  }, 30_000);

  test('while a server holds the database it asks that server; a taken username fails (1)', async () => {
    const run = await runCli(['create-user', '--username', 'grace', '--role', 'admin'], db, env);
    expect(run.code).toBe(0);
    const token = LINK.exec(run.out)?.[1];
    await completeInvite(server!, `${server!.url}/console/#/invite/${token}`);
    expect((await passwordSignIn(server!, 'Grace', PASSWORD)).cookie).toMatch(/^fpa_console=/);
    const taken = await runCli(['create-user', '--username', 'GRACE', '--role', 'viewer'], db, env);
    expect(taken.code).toBe(1);
    expect(taken.err).toContain('taken');
    for (const [args, named] of BAD_VALUES) {
      const run = await runCli(['create-user', ...args], db, env);
      expect({ args, code: run.code, out: run.out }).toEqual({ args, code: 2, out: '' });
      expect(run.err).toContain(named);
    }
    // What the script prints when the server refuses a body (400): each value's path and reason, not only the summary.
    const refused = await server!.admin.post('/users/', { username: 'x3', role: 'owner', name: 'X', email: 'notanemail' });
    expect(refused.status).toBe(400);
    expect(refusal({ status: refused.status, json: refused.body })).toMatch(
      /^the running server refused \(400\): field "email" must be an e-mail address: \/email must be an e-mail address/,
    );
    const users = await server!.admin.get('/users/?limit=100');
    expect(users.body.results.map((u: { username: string }) => u.username).sort()).toEqual(['ada', 'grace']);
  }, 30_000);

  test('without CONSOLE_URL the link is at the address the running server listens on, whatever HOST this shell has', async () => {
    // The server listens on 127.0.0.1 (as behind a proxy); this shell's HOST says another address.
    const shell = { FPA_LOG_LEVEL: 'error', FPA_HOST: '198.51.100.7' };
    const run = await runCli(['create-user', '--username', 'lin', '--role', 'viewer'], db, shell);
    expect(run.code).toBe(0);
    const link = new RegExp(`^http://127\\.0\\.0\\.1:${server!.port}/console/#/invite/fpi_[A-Za-z0-9_-]{43}$`, 'm').exec(run.out)?.[0];
    expect({ out: run.out, link }).toEqual({ out: run.out, link: expect.any(String) });
    // The link as printed opens (the console answers at its address) and sets the password.
    expect((await fetch(new URL('/console/', link!))).status).toBe(200);
    await completeInvite(server!, link!);
    expect((await passwordSignIn(server!, 'lin', PASSWORD)).cookie).toMatch(/^fpa_console=/);
    // The sign-in link too.
    const signIn = await runCli(['console-link'], db, shell);
    expect(signIn.out).toContain(`http://127.0.0.1:${server!.port}/console/sign-in#token=fpc_`);
  }, 30_000);

  test('a server on every interface gives its LAN address; a server with CONSOLE_URL gives that, also to a shell without it', async () => {
    const shell = { FPA_LOG_LEVEL: 'error', FPA_HOST: '198.51.100.7' };
    for (const [settings, hostname, base] of [
      [{}, '0.0.0.0', (port: number) => `http://${reachableHost('0.0.0.0')}:${port}`],
      [{ CONSOLE_URL: 'https://hr.example.com/att/console/' }, '127.0.0.1', () => 'https://hr.example.com/att'],
    ] as const) {
      const own = tempDir('fpa-links-');
      const running = await startTestServer(settings, { dir: own.dir, hostname });
      try {
        const run = await runCli(['create-user', '--username', 'kim', '--role', 'viewer'], join(own.dir, 'fpa.db'), shell);
        expect({ code: run.code, hostname, link: run.out.split('\n')[1] }).toEqual({
          code: 0,
          hostname,
          link: expect.stringMatching(new RegExp(`^${escaped(base(running.port))}/console/#/invite/fpi_`)),
        });
      } finally {
        await running.close();
        own.cleanup();
      }
    }
  }, 60_000);
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
