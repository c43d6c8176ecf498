/**
 * The README's commands, as a newcomer runs them: a copy of the repository (what a clone holds),
 * `npm ci` into it, then every script of the README's table and the quick start's demo block,
 * with only Node.js and npm on the PATH (no `bun` there: `npm run` finds the one npm installed).
 * Each script must exit as the README says; the jobs run once through the running server (the
 * lock file hand-over) and once on the database directly.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { freePort, tempDir } from '../support/harness';

const ROOT = resolve(import.meta.dir, '../..');
const work = tempDir('fpa-readme-');
const clone = join(work.dir, 'clone');
const NODE = Bun.which('node');
/** Only Node's own directory and the system's: what a machine with Node and npm has. */
const PATH = [...new Set([NODE ? dirname(NODE) : '/usr/bin', '/usr/bin', '/bin'])].join(':');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

interface Run {
  code: number;
  out: string;
  err: string;
}

/** A shell command in the clone, as typed at a prompt: `sh -c`, the clone's directory, the narrow PATH. */
async function sh(command: string, env: Record<string, string> = {}, timeoutMs = 120_000): Promise<Run> {
  const proc = Bun.spawn(['sh', '-c', command], {
    cwd: clone,
    env: { PATH, HOME: process.env.HOME ?? work.dir, npm_config_update_notifier: 'false', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, out: out.trim(), err: err.trim() };
}

/** The scripts the README's table names, in its order. */
function tableScripts(): string[] {
  const names = [...README.matchAll(/^\| `npm run ([a-z:-]+)/gm)].map((m) => m[1]!);
  return [...new Set(names)];
}

/** The quick start's demo block (the `sh` block that starts with TOKEN=). */
function demoBlock(): string {
  const block = /```sh\n(TOKEN=[\s\S]*?)```/.exec(README);
  if (!block) throw new Error('the README has no demo block');
  return block[1]!;
}

let server: ReturnType<typeof Bun.spawn> | null = null;
let port = 0;

beforeAll(async () => {
  // What a clone holds: the tracked files and the new ones not ignored (a session's work in progress).
  const listed = Bun.spawnSync(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT });
  for (const file of listed.stdout
    .toString()
    .split('\0')
    .filter((f) => f !== '')) {
    const from = join(ROOT, file);
    if (!existsSync(from) || !statSync(from).isFile()) continue;
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(from, join(clone, file));
  }
  // From npm's cache when it has the packages (CI's own `npm ci` filled it): no new download.
  const install = await sh('npm ci --prefer-offline --no-audit --no-fund', {}, 300_000);
  if (install.code !== 0) throw new Error(`npm ci failed in the copy: ${install.err.slice(-2000)}`);
}, 320_000);

afterAll(async () => {
  // A failed test may leave the server up: stop it by its lock file's pid, then its shell.
  try {
    const { pid } = JSON.parse(readFileSync(join(clone, 'data', 'fpa.db.lock'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
  } catch {
    // no server left
  }
  server?.kill('SIGKILL');
  await server?.exited;
  work.cleanup();
});

describe('a machine with only Node.js and npm', () => {
  test('has no bun on its PATH: the commands must not need one', () => {
    expect(Bun.which('bun', { PATH })).toBeNull();
    expect(Bun.which('npm', { PATH })).not.toBeNull();
  });

  test('the README table names every script of package.json', () => {
    const named = tableScripts();
    for (const name of Object.keys(SCRIPTS).filter((n) => !n.startsWith('pre'))) expect(named).toContain(name);
  });

  test('the Deploy and Upgrade installs bring the Bun that npm start runs on (a development dependency)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const deploy = README.slice(README.indexOf('## Deploy'), README.indexOf('## Upgrade'));
    const upgrade = README.slice(README.indexOf('## Upgrade'), README.indexOf('## Scale'));
    // The Deploy block's install line, and the Upgrade's step 2.
    const installs = [/^(npm ci[^#\n]*)/m.exec(deploy)?.[1], /\*\*Install the new release\*\*: `([^`]+)`/.exec(upgrade)?.[1]].map((c) => c?.trim());
    expect(installs).toEqual(['npm ci', 'git restore package-lock.json && git switch main && git pull && npm ci']);
    // Only the image may omit them: its Bun is the runtime image's.
    if (!pkg.dependencies?.bun) for (const install of installs) expect(install).not.toContain('--omit=dev');
  });

  test('the Dockerfile install step passes on the committed lock', async () => {
    const step = /^RUN (npm ci[^\n]*)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    expect(step).not.toBeNull();
    const image = join(work.dir, 'image');
    mkdirSync(image);
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(clone, file), join(image, file));
    const run = await sh(`cd ${image} && ${step![1]} --prefer-offline`, {}, 300_000);
    expect({ code: run.code, err: run.code === 0 ? '' : run.err.slice(-1500) }).toEqual({ code: 0, err: '' });
    expect(existsSync(join(image, 'node_modules', 'elysia'))).toBe(true);
  }, 310_000);
});

describe('the quick start', () => {
  test('npm start serves the embedded database (init writes .env first)', async () => {
    port = freePort();
    server = Bun.spawn(['sh', '-c', 'npm start'], {
      cwd: clone,
      env: { PATH, HOME: process.env.HOME ?? work.dir, PORT: String(port), FPA_LOG_LEVEL: 'warn' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    let healthy = false;
    for (let i = 0; i < 150 && !healthy; i++) {
      healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!healthy) await Bun.sleep(200);
    }
    expect(healthy).toBe(true);
    expect(existsSync(join(clone, '.env'))).toBe(true);
    expect(existsSync(join(clone, 'data', 'fpa.db'))).toBe(true);
  }, 60_000);

  test('the demo block runs as written: a simulated terminal is approved and its 20 punches arrive', async () => {
    const script = `set -e\n${demoBlock().replaceAll('localhost:3000', `127.0.0.1:${port}`)}`;
    const run = await sh(script, {}, 90_000);
    expect({ code: run.code, err: run.code === 0 ? '' : run.err.slice(-1500) }).toEqual({ code: 0, err: '' });
    const lastJson = run.out
      .split('\n')
      .reverse()
      .find((line) => line.startsWith('{'));
    const latest = JSON.parse(lastJson ?? '{}') as { results?: unknown[] };
    expect(latest.results?.length).toBe(20);
  }, 90_000);
});

/** How each script of the table is run here, and what its success looks like. */
const JOB_OUTPUT = /^[a-z-]+ succeeded/m;

describe('every script of the README table', () => {
  test('the jobs and operator commands, handed to the running server', async () => {
    const ran: string[] = [];
    for (const name of tableScripts().filter((n) => n.startsWith('fpa:'))) {
      const job = name.slice(4);
      let args = '';
      if (job === 'simulate-device') args = ` -- --url http://127.0.0.1:${port} --sn README01 --duration 1s --quiet`;
      if (job === 'create-agent') args = ' -- desk-1 --algorithm 10';
      if (job === 'generate-absences') args = ' -- --date 2026-03-09';
      if (job === 'console-link') args = ' -- --as readme@example.com';
      if (job === 'create-user') args = ' -- --username readme --role owner --name "Read Me"';
      if (job === 'backup') args = ' -- data.bak-live';
      if (job === 'restore') {
        // Never under a running server: it refuses (the database's lock), and changes nothing.
        expect((await sh('cp -a data data.bak-running')).code).toBe(0);
        const refused = await sh(`npm run --silent ${name} -- data.bak-running`, {}, 60_000);
        expect({ code: refused.code, stop: refused.err.includes('Stop the server before restoring') }).toEqual({ code: 1, stop: true });
        ran.push(name);
        continue;
      }
      const run = await sh(`npm run --silent ${name}${args}`, {}, 60_000);
      expect({ name, code: run.code, err: run.err.slice(-800) }).toEqual({ name, code: 0, err: run.err.slice(-800) });
      if (job in { 'check-devices': 1, 'expire-commands': 1, 'purge-retention': 1, 'reconcile-devices': 1 }) {
        expect({ name, out: JOB_OUTPUT.test(run.out) && run.out.endsWith('(run by the running server)') }).toEqual({ name, out: true });
      }
      if (job === 'backup') expect(existsSync(join(clone, 'data.bak-live', 'fpa.db'))).toBe(true);
      ran.push(name);
    }
    expect(ran).toContain('fpa:reconcile-devices');
    expect(ran.length).toBeGreaterThan(15);
  }, 300_000);

  test('the jobs on the database directly once the server has stopped', async () => {
    // Stopped as a service manager stops it: SIGTERM to the server process (its pid is in the lock
    // file; `npm start` execs it, so it is the process npm started), which releases the database and removes the lock.
    const lockFile = join(clone, 'data', 'fpa.db.lock');
    const { pid } = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number };
    process.kill(pid, 'SIGTERM');
    expect(await server!.exited).toBe(0);
    server = null;
    expect(existsSync(lockFile)).toBe(false);
    for (const name of ['fpa:migrate', 'fpa:check-devices', 'fpa:purge-retention', 'fpa:reconcile-devices', 'fpa:rotate-keys']) {
      const run = await sh(`npm run --silent ${name}`, {}, 60_000);
      expect({ name, code: run.code, err: run.err.slice(-800) }).toEqual({ name, code: 0, err: '' });
      expect(run.out).not.toContain('(run by the running server)');
    }
    // The Upgrade's backup and rollback, as written: a copy of data/ while stopped, then fpa:restore.
    const backup = /\(`(cp -a data data\.bak-\$\(date \+%F\))`\)/.exec(README)?.[1];
    const rollback = /`(npm run fpa:restore -- data\.bak-)<date>`/.exec(README)?.[1];
    expect({ backup, rollback }).toEqual({ backup: 'cp -a data data.bak-$(date +%F)', rollback: 'npm run fpa:restore -- data.bak-' });
    const restored = await sh(`${backup} && ${rollback}$(date +%F)`, {}, 60_000);
    expect({ code: restored.code, err: restored.err.slice(-800) }).toEqual({ code: 0, err: '' });
    expect(restored.out).toContain('the replaced database is kept as');
    expect(readdirSync(join(clone, 'data')).some((f) => f.startsWith('fpa.db.replaced-'))).toBe(true);
  }, 120_000);

  test('the development scripts: typecheck, lint, format, db:generate (no schema drift), a test file, the crash test, a bench', async () => {
    const runs: Array<[string, string, Record<string, string>]> = [
      ['typecheck', 'npm run typecheck', {}],
      ['lint', 'npm run lint', {}],
      ['format', 'npm run format', {}],
      ['db:generate', 'npm run db:generate', {}],
      ['test', 'npm test -- test/protocol/adms-protocol.test.ts', {}],
      ['test:crash', 'npm run test:crash', { FPA_CRASH_KILLS: '1' }],
      ['bench', 'npm run bench -- --only=fanout --no-write', {}],
    ];
    for (const [name, command, env] of runs) {
      const run = await sh(command, env, 300_000);
      expect({ name, code: run.code, tail: run.code === 0 ? '' : `${run.out.slice(-800)}\n${run.err.slice(-800)}` }).toEqual({ name, code: 0, tail: '' });
      if (name === 'db:generate') expect(`${run.out}\n${run.err}`).toContain('No schema changes');
    }
    const named = runs.map(([n]) => n);
    for (const name of tableScripts().filter((n) => !n.startsWith('fpa:') && n !== 'start')) expect(named).toContain(name);
  }, 900_000);
});
