/**
 * The operator's first day (issue 24): commands as the README writes them, a port already in
 * use, wrong methods on the root paths, the API's own address, and the configuration check
 * refusing what it does not know.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HostUnusableError, PortInUseError, startServer } from '../../src/app/server';
import { readLock } from '../../src/platform/db/lock';
import { silentLogger } from '../../src/platform/log';
import { runCli } from '../support/cli';
import { adminToken, startTestServer, type TestServer, tempDir, testSettings } from '../support/harness';

const work = tempDir('fpa-operator-');
let server: TestServer;

/** An operator command on this file's own database. */
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, join(work.dir, 'cli.db'), env);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  work.cleanup();
});

describe('one port, one server', () => {
  test('a second server on a port in use fails with a clear error, and leaves its database free', async () => {
    const other = tempDir('fpa-second-');
    try {
      const attempt = startServer({
        settings: testSettings(other.dir),
        env: {},
        logger: silentLogger,
        port: server.port,
        hostname: '127.0.0.1',
      });
      await expect(attempt).rejects.toBeInstanceOf(PortInUseError);
      await expect(attempt).rejects.toThrow(`port ${server.port} on 127.0.0.1 is already in use`);
      // The first server still answers from its own database.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      // The failed start released what it had opened: a server can now take that database.
      const retry = await startServer({ settings: testSettings(other.dir), env: {}, logger: silentLogger, port: 0, hostname: '127.0.0.1' });
      await retry.stop();
    } finally {
      other.cleanup();
    }
  });

  test('an address that is not this machine’s is refused naming FPA_HOST, and leaves the database free', async () => {
    const other = tempDir('fpa-host-');
    try {
      const attempt = startServer({ settings: testSettings(other.dir), env: {}, logger: silentLogger, port: 0, hostname: '192.0.2.123' });
      await expect(attempt).rejects.toBeInstanceOf(HostUnusableError);
      await expect(attempt).rejects.toThrow('set FPA_HOST to an address of this machine');
      const retry = await startServer({ settings: testSettings(other.dir), env: {}, logger: silentLogger, port: 0, hostname: '127.0.0.1' });
      await retry.stop();
    } finally {
      other.cleanup();
    }
  });
});

describe('a server on an IPv6 address', () => {
  test('FPA_HOST=::1: the lock file names the API in brackets, so the scripts hand their work to the server', async () => {
    const other = tempDir('fpa-ipv6-');
    try {
      const running = await startServer({ settings: testSettings(other.dir), env: {}, logger: silentLogger, port: 0, hostname: '::1' });
      try {
        expect(running.url).toBe(`http://[::1]:${running.port}`);
        expect(readLock(join(other.dir, 'fpa.db.lock'))?.apiUrl).toBe(`http://[::1]:${running.port}/api/fingerprint/v1/`);
        const run = await runCli(['check-devices'], join(other.dir, 'fpa.db'));
        expect(run.err).toBe('');
        expect(run.code).toBe(0);
        expect(run.out).toContain('(run by the running server)');
      } finally {
        await running.stop();
      }
    } finally {
      other.cleanup();
    }
  });
});

describe('root paths', () => {
  test('a wrong method on /healthz, /readyz, /metrics and the console answers 405 with Allow, not 404', async () => {
    for (const [method, path, allow] of [
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/metrics', 'GET, HEAD'],
      ['PUT', '/readyz', 'GET, HEAD'],
      ['PUT', '/console/session', 'GET, HEAD'],
      ['GET', '/console/sign-out', 'POST'],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { method, headers: { 'x-request-id': `wrong-${method}` } });
      expect({ path, method, status: response.status }).toEqual({ path, method, status: 405 });
      expect(response.headers.get('allow')).toBe(allow);
      // Like every error, it names its request (it had no request_id and no x-request-id).
      const error = ((await response.json()) as { error: { code: string; request_id?: string } }).error;
      expect({ path, code: error.code, request_id: error.request_id, header: response.headers.get('x-request-id') }).toEqual({
        path,
        code: 'method_not_allowed',
        request_id: `wrong-${method}`,
        header: `wrong-${method}`,
      });
    }
    // The right methods still work.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${await adminToken()}` } })).status).toBe(200);
  });

  test('the API address the README gives answers, pointing to its documentation', async () => {
    for (const path of ['/api/fingerprint/v1/', '/api/fingerprint/v1']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ docs: 'docs/', openapi: 'docs/json' });
    }
  });
});

describe('the configuration check', () => {
  test('an unknown option is refused with exit 2, not ignored, by every fpa:* script', async () => {
    const scripts = (await Bun.file(new URL('../../package.json', import.meta.url)).json()).scripts as Record<string, string>;
    const commands = Object.entries(scripts)
      .filter(([name]) => name.startsWith('fpa:'))
      .map(([, line]) => line.replace(/^bun src\/cli\.ts /, ''));
    expect(commands).toContain('generate-key');
    // Two at a time: each loads the whole application, on two cores.
    const runs: { command: string; run: Awaited<ReturnType<typeof cli>> }[] = [];
    for (let i = 0; i < commands.length; i += 2) {
      runs.push(...(await Promise.all(commands.slice(i, i + 2).map(async (command) => ({ command, run: await cli([command, '--bogus']) })))));
    }
    for (const { command, run } of runs) {
      expect({ command, code: run.code }).toEqual({ command, code: 2 });
      expect(run.err).toContain("Unknown option '--bogus'");
    }
  });

  test('--help: every fpa:* script prints its usage and what it does, and exits 0', async () => {
    const scripts = (await Bun.file(new URL('../../package.json', import.meta.url)).json()).scripts as Record<string, string>;
    const names = Object.keys(scripts)
      .filter((name) => name.startsWith('fpa:'))
      .map((name) => name.slice(4));
    expect(names).toContain('simulate-device');
    const runs: { name: string; run: Awaited<ReturnType<typeof cli>> }[] = [];
    for (let i = 0; i < names.length; i += 2) {
      runs.push(...(await Promise.all(names.slice(i, i + 2).map(async (name) => ({ name, run: await cli([name, '--help']) })))));
    }
    for (const { name, run } of runs) {
      expect({ name, code: run.code, err: run.err }).toEqual({ name, code: 0, err: '' });
      const [usage, does] = run.out.split('\n');
      expect(usage).toStartWith(`usage: npm run fpa:${name}`);
      expect(does?.length ?? 0).toBeGreaterThan(20);
    }
    // Nothing ran: no database was opened for a job's help.
    expect(await Bun.file(join(work.dir, 'cli.db')).exists()).toBe(false);
  }, 240_000);

  test('an option value a command cannot read exits 2 and names the option: a lifetime, a date', async () => {
    const ttl = await cli(['admin-token', '--ttl', 'banana']);
    expect(ttl.code).toBe(2);
    expect(ttl.err).toContain('--ttl "banana" is not a lifetime');
    expect((await cli(['admin-token', '--ttl', '2h'])).code).toBe(0);
    // A token without a subject is one the server refuses (401 "the token has no subject").
    for (const sub of ['', '  ']) {
      const empty = await cli(['admin-token', '--sub', sub]);
      expect({ sub, code: empty.code, out: empty.out }).toEqual({ sub, code: 2, out: '' });
      expect(empty.err).toContain('--sub is empty');
    }
    const date = await cli(['generate-absences', '--date', '2026-13-01']);
    expect(date.code).toBe(2);
    expect(date.err).toContain('--date "2026-13-01" is not a date (YYYY-MM-DD)');
  }, 30_000);

  test('an unknown log level is an error; a bad TIME_ZONE is reported once, under TIME_ZONE', async () => {
    const loud = await cli(['check'], { FPA_LOG_LEVEL: 'loud' });
    expect(loud.code).toBe(1);
    expect(loud.out).toContain('fpa.E018');
    const zone = await cli(['check'], { FPA_TIME_ZONE: 'Mars/Olympus' });
    expect(zone.code).toBe(1);
    expect(zone.out).toContain('TIME_ZONE "Mars/Olympus"');
    expect(zone.out).not.toContain('ATTENDANCE_TIME_ZONE');
    // A fixed offset is no IANA zone (Intl takes it, but it has no DST rules): warned, so an
    // installation that ran on one still starts after the upgrade.
    const offset = await cli(['check'], { FPA_TIME_ZONE: '+02:00' });
    expect(offset.code).toBe(0);
    expect(offset.out).toContain('fpa.W009');
    const fine = await cli(['check']);
    expect(fine.out).not.toContain('fpa.E018');
  });

  test('a file database that is not there is a warning, and the check creates nothing (a mistyped path would start empty)', async () => {
    const dir = join(work.dir, 'mistyped');
    const run = await runCli(['check'], join(dir, 'fpa.db'));
    expect(run.code).toBe(0);
    expect(run.out).toContain(`fpa.W008 [warning] There is no database at ${join(dir, 'fpa.db')}`);
    expect(run.out).toMatch(/fpa:check: 0 error\(s\), [1-9]\d* warning\(s\)/);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('scripts', () => {
  test('fpa:reconcile-devices runs its job (it printed the usage and exited 2)', async () => {
    const run = await cli(['reconcile-devices']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toStartWith('reconcile-devices succeeded');
  }, 30_000);

  test('fpa:simulate-device against a server that is not there fails', async () => {
    const run = await cli(['simulate-device', '--url', 'http://127.0.0.1:9', '--sn', 'NOBODY01', '--duration', '300ms', '--quiet']);
    expect(run.code).toBe(1);
    expect(run.err).toContain('never answered a poll');
  }, 30_000);
});
