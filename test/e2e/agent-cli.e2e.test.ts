/**
 * `bun run fpa:create-agent <name> --algorithm <v>` as an operator runs it: first with no
 * server (the script opens the database itself), then while a server holds the database (the
 * script hands the work to it with the lock file's operator token). Either way it prints the
 * agent id and the key once, and the key works on the agent API.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { agentClient } from '../support/agents';
import { JWT_SECRET, startTestServer, TEST_KEY, type TestServer, tempDir } from '../support/harness';

const temp = tempDir('fpa-agent-cli-');
let server: TestServer | null = null;

afterAll(async () => {
  await server?.close();
  temp.cleanup();
});

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli.ts');
/** The server's settings as the script's environment gives them (one it does not share would be named in a warning). */
const SERVER_SETTINGS = { LOG_LEVEL: 'error' };
const BUN = process.execPath;

async function createAgentScript(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([BUN, CLI, 'create-agent', ...args], {
    cwd: temp.dir, // no stray .env from the repository
    env: {
      PATH: process.env.PATH ?? '',
      FPA_DATABASE_URL: `file:${join(temp.dir, 'fpa.db')}`,
      FPA_TEMPLATE_ENCRYPTION_KEYS: TEST_KEY,
      FPA_ADMIN_JWT_SECRET: JWT_SECRET,
      FPA_TASK_BACKEND: 'external',
      FPA_LOG_LEVEL: 'error',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function parseOutput(stdout: string): { id: string; key: string } {
  const id = /\(id ([0-9a-f-]{36}), algorithm /.exec(stdout)?.[1];
  const key = /^key \(shown this once; store it in the agent now\): (fpa_\S+)$/m.exec(stdout)?.[1];
  if (!id || !key) throw new Error(`unexpected output: ${stdout}`);
  return { id, key };
}

describe('fpa:create-agent', () => {
  test('without a running server it opens the database itself', async () => {
    const run = await createAgentScript('Front', 'desk', '--algorithm', '10');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('created agent "Front desk"');
    expect(run.stdout).not.toContain('running server');
    const { id, key } = parseOutput(run.stdout);

    server = await startTestServer(SERVER_SETTINGS, { dir: temp.dir });
    const me = await agentClient(server, key).get('/me/');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id, name: 'Front desk', algorithm_version: '10' });
    const listed = await server.admin.get(`/enrollment-agents/${id}/`);
    expect(listed.body).toMatchObject({ created_by: 'operator', status: 'active' });
  }, 30_000);

  test('while a server holds the database it hands the work to that server', async () => {
    expect(server).not.toBeNull();
    const run = await createAgentScript('Back office', '--algorithm', '12');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('by the running server');
    const { id, key } = parseOutput(run.stdout);
    const me = await agentClient(server!, key).get('/me');
    expect(me.body).toMatchObject({ id, name: 'Back office', algorithm_version: '12' });
    expect((await server!.admin.get(`/enrollment-agents/${id}`)).body.created_by).toBe('operator');
  }, 30_000);

  test('--areas limits the agent to those areas, on the running server and without one; an unknown area fails', async () => {
    expect(server).not.toBeNull();
    expect((await server!.admin.post('/areas/', { name: 'north' })).status).toBe(201);
    const handed = await createAgentScript('North desk', '--algorithm', '10', '--areas', 'north');
    expect(handed.code).toBe(0);
    expect(handed.stdout).toContain('areas north) by the running server');
    expect((await server!.admin.get(`/enrollment-agents/${parseOutput(handed.stdout).id}/`)).body.areas).toEqual(['north']);
    const unknown = await createAgentScript('Nowhere desk', '--algorithm', '10', '--areas', 'nowhere');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('the running server refused (422)');
    await server!.close();
    const own = await createAgentScript('North desk 2', '--algorithm', '10', '--areas', ' north ,');
    expect(own.stderr).toBe('');
    expect(own.stdout).toContain('areas north)');
    const ownUnknown = await createAgentScript('Nowhere desk', '--algorithm', '10', '--areas', 'nowhere');
    expect(ownUnknown.code).toBe(1);
    expect(ownUnknown.stderr).toContain('nowhere');
    server = await startTestServer(SERVER_SETTINGS, { dir: temp.dir });
    const listed = await server.admin.get(`/enrollment-agents/${parseOutput(own.stdout).id}/`);
    expect(listed.body.areas).toEqual(['north']);
  }, 60_000);

  test('a request the running server refuses fails with its status and reason', async () => {
    expect(server).not.toBeNull();
    const run = await createAgentScript('Kiosk', '--algorithm', '1'.repeat(33));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    // The refusal names what was refused, as the API's details say it.
    expect(run.stderr).toBe(
      'fpa:create-agent: the running server refused (400): the request does not match the expected shape: /algorithm_version Expected string length less or equal to 32\n',
    );
  }, 30_000);

  test('a missing name or algorithm prints the usage and fails', async () => {
    const run = await createAgentScript('Nameless');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: npm run fpa:create-agent -- <name> --algorithm <algorithm_version> [--areas <area>,<area>…]');
  }, 30_000);
});
