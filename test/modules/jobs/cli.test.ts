import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { commandNames } from '../../../src/cli/run';
import { acquireLock } from '../../../src/platform/db/lock';
import { createPeople, dayOf } from '../../support/attendance';
import { runCli } from '../../support/cli';
import { startTestServer, type TestServer, tempDir } from '../../support/harness';

// `npm run fpa:<job>` is `bun src/cli.ts <job>`: run it as operators do, in a subprocess.
const work = tempDir('fpa-cli-');
const DATE = '2026-03-09'; // a Monday
let server: TestServer | null = null;
let jobNames: string[] = [];

const cli = (...args: string[]) => runCli(args, join(work.dir, 'fpa.db'), { FPA_TIME_ZONE: 'UTC', FPA_LOG_LEVEL: 'error' });

beforeAll(async () => {
  // Two people enrolled (on 2026-03-01), then the server stops and leaves the database alone.
  const clock = { now: () => Date.parse('2026-03-01T00:00:00Z') };
  const setup = await startTestServer({ TIME_ZONE: 'UTC' }, { dir: work.dir, clock });
  await createPeople(setup, ['C-1', 'C-2']);
  jobNames = setup.fpa.jobs.names();
  await setup.close();
});
afterAll(async () => {
  await server?.close();
  work.cleanup();
});

describe('operator scripts (TASK_BACKEND=external)', () => {
  test('every job has its `bun run fpa:<name>` script', async () => {
    const pkg = (await Bun.file(new URL('../../../package.json', import.meta.url)).json()) as { scripts: Record<string, string> };
    expect(jobNames.length).toBeGreaterThan(5);
    for (const name of jobNames) expect({ name, script: pkg.scripts[`fpa:${name}`] }).toEqual({ name, script: `bun src/cli.ts ${name}` });
    // …and the CLI runs it (fpa:reconcile-devices once printed the usage and exited 2).
    for (const name of jobNames) expect(commandNames()).toContain(name);
  });

  test('with no server running the script opens the database itself', async () => {
    expect(existsSync(join(work.dir, 'fpa.db.lock'))).toBe(false);
    const run = await cli('generate-absences', '--date', DATE);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toBe(`generate-absences succeeded: from=${DATE} to=${DATE} absent=2 non_working_day=0 holiday=0 on_leave=0 unchanged=0 locked=0`);
    // The script released the database: a server can take it now.
    expect(existsSync(join(work.dir, 'fpa.db.lock'))).toBe(false);
  }, 30_000);

  test('with a server holding the database the script hands the work to it', async () => {
    server = await startTestServer({ TIME_ZONE: 'UTC' }, { dir: work.dir });
    expect(existsSync(join(work.dir, 'fpa.db.lock'))).toBe(true);
    expect(await dayOf(server, 'C-1', DATE)).toMatchObject({ status: 'absent' });
    const run = await cli('generate-absences', '--date', DATE);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      `generate-absences succeeded: from=${DATE} to=${DATE} absent=0 non_working_day=0 holiday=0 on_leave=0 unchanged=2 locked=0 (run by the running server)`,
    );
    const next = await cli('purge-retention');
    expect(next.code).toBe(0);
    expect(next.out).toStartWith('purge-retention succeeded: punches=0 attendance_days=0 ');
    expect(next.out).toEndWith('(run by the running server)');
    // The server recorded both runs under its own lease.
    const jobs = await server.admin.get('/jobs/');
    const absences = jobs.body.results.find((j: { name: string }) => j.name === 'generate-absences');
    expect(absences).toMatchObject({ last_status: 'succeeded', last_holder: server.fpa.service.runtime.instanceId });
  }, 30_000);

  test('FPA_* variables of the script the running server does not share are named: they do not apply there (exit code unchanged)', async () => {
    const file = join(work.dir, 'fpa.db');
    // The ordinary run: what the script's environment sets, the server has too; nothing to say.
    const same = await runCli(['purge-retention'], file, { FPA_TIME_ZONE: 'UTC' });
    expect({ code: same.code, err: same.err }).toEqual({ code: 0, err: '' });
    // It once answered "punches=0 … (run by the running server)" and nothing else: the 30 days silently did not apply.
    const differing = await runCli(['purge-retention'], file, { FPA_TIME_ZONE: 'UTC', FPA_RETENTION_PUNCHES_DAYS: '30' });
    expect(differing.code).toBe(0);
    expect(differing.out).toStartWith('purge-retention succeeded: punches=0 ');
    expect(differing.out).toEndWith('(run by the running server)');
    expect(differing.err).toBe(
      'fpa:purge-retention: warning: run by the running server with its own settings; FPA_RETENTION_PUNCHES_DAYS given here does not apply: restart the server with it, or stop it and run the script',
    );
    // Each one that differs is named; one given with the server's own value (TIME_ZONE) is not.
    const two = await runCli(['check-devices'], file, { FPA_TIME_ZONE: 'UTC', FPA_RETENTION_PUNCHES_DAYS: '30', FPA_DEVICE_OFFLINE_AFTER: '1m' });
    expect({ code: two.code, err: two.err }).toEqual({
      code: 0,
      err: 'fpa:check-devices: warning: run by the running server with its own settings; FPA_DEVICE_OFFLINE_AFTER and FPA_RETENTION_PUNCHES_DAYS given here do not apply: restart the server with them, or stop it and run the script',
    });
  }, 60_000);

  test('a command line the job cannot run with is refused (exit 2, naming the value) before it runs, through the server and without it', async () => {
    const jobsBefore = (await server!.admin.get('/jobs/')).body.results as { name: string; last_status: string; last_finished_at: string }[];
    const before = jobsBefore.find((j) => j.name === 'generate-absences')!;
    const refusals: [string[], string][] = [
      [['generate-absences', '--date', '2099-01-01'], 'absences cannot be generated for a date not over yet: 2099-01-01'],
      // Today (UTC here) is not over: a night shift of today ends tomorrow.
      [
        ['generate-absences', '--date', new Date().toISOString().slice(0, 10)],
        `absences cannot be generated for a date not over yet: ${new Date().toISOString().slice(0, 10)}`,
      ],
      [['generate-absences', '--from', '2026-11-20', '--to', '2026-11-10'], 'to (2026-11-10) is before from (2026-11-20)'],
    ];
    for (const [args, message] of refusals) {
      const handed = await cli(...args);
      expect({ args, code: handed.code, out: handed.out }).toEqual({ args, code: 2, out: '' });
      expect(handed.err).toContain(`fpa:generate-absences: the running server refused (400): ${message}`);
    }
    // Never recorded as a run of the job: its last run is still the last good one.
    const after = ((await server!.admin.get('/jobs/')).body.results as typeof jobsBefore).find((j) => j.name === 'generate-absences')!;
    expect(after).toMatchObject({ last_status: 'succeeded', last_finished_at: before.last_finished_at });
    const typo = await cli('generate-absences', '--date', '2026-02-30');
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('--date "2026-02-30" is not a date (YYYY-MM-DD)');
    await server!.close();
    server = null;
    for (const [args, message] of refusals) {
      const direct = await cli(...args);
      expect({ args, code: direct.code, out: direct.out }).toEqual({ args, code: 2, out: '' });
      expect(direct.err).toStartWith(`fpa:generate-absences: ${message}`);
    }
  }, 60_000);

  test('each job script takes only its own options; --date with --from/--to is refused', async () => {
    const runs: [string[], string][] = [
      [['purge-retention', '--date', '2020-01-01', '--to', '2021-01-01'], "Unknown option '--date'"],
      [['check-devices', '--from', '2026-03-01'], "Unknown option '--from'"],
      [['generate-absences', '--date', '2026-11-01', '--from', '2026-11-20', '--to', '2026-11-21'], '--date 2026-11-01 and --from/--to exclude each other'],
      [['generate-absences', '--date', '2026-11-01', '--to', '2026-11-21'], '--date 2026-11-01 and --from/--to exclude each other'],
    ];
    for (const [args, message] of runs) {
      const run = await cli(...args);
      expect({ args, code: run.code, out: run.out }).toEqual({ args, code: 2, out: '' });
      expect(run.err).toContain(message);
    }
  }, 60_000);
});

// A server killed while it ran the job a script handed it: the script printed the HTTP client's
// own text ("ECONNRESET: The socket connection was closed unexpectedly. For more information,
// pass `verbose: true` in the second argument to fetch") and nothing of whether the job ran.
describe('a running server that goes away before it answers', () => {
  test('the script says so in words, that whether the job ran is not known, and where to look; exit 1', async () => {
    const dir = tempDir('fpa-cli-gone-');
    // A process holding the database that "serves" the API on a port that hangs up on every request.
    const hangUp = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        data: (socket) => {
          socket.end();
        },
      },
    });
    const lock = await acquireLock(join(dir.dir, 'fpa.db'));
    try {
      lock.setAddresses({ apiUrl: `http://127.0.0.1:${hangUp.port}/api/fingerprint/v1/`, consoleBase: '', settings: {} });
      const run = await runCli(['purge-retention'], join(dir.dir, 'fpa.db'), { FPA_TIME_ZONE: 'UTC' });
      expect(run.code).toBe(1);
      expect(run.err).toContain(
        `fpa:purge-retention failed: the running server (http://127.0.0.1:${hangUp.port}/api/fingerprint/v1/) stopped answering before it replied`,
      );
      expect(run.err).toContain('whether the job ran is not known');
      expect(run.err).toContain('GET jobs/');
      expect(run.err).not.toContain('verbose');
    } finally {
      lock.release();
      hangUp.stop(true);
      dir.cleanup();
    }
  }, 30_000);
});
