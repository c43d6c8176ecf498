/**
 * The README's embedding example ("Embedding in a host application"), run as a host runs it: a
 * host directory where `fingerprint-attendance` and `elysia` are installed packages, the
 * example's text as the host's program, and only what it says stands for the host's own given
 * (`myDirectory`, `hostSession`, `hostCalendar`, the key). Two stand-ins for the world outside:
 * the port is a free one rather than 3000, and a terminal connects where the example says it
 * must have. The program must finish by itself, its instance closed and its server stopped.
 */
import { afterAll, expect, test } from 'bun:test';
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { embeddingExample, HOST_STAND_INS } from '../support/embedding-example';
import { freePort, TEST_KEY, tempDir } from '../support/harness';

const ROOT = resolve(import.meta.dir, '../..');
const host = tempDir('fpa-host-example-');
afterAll(() => host.cleanup());

/** A live stream opened by the host's signed-in administrator, left open when the shutdown starts. */
const OPEN_STREAM = `
const stream = new WebSocket("ws://127.0.0.1:" + process.env.PORT + "/api/fingerprint/v1/punches/stream/", { headers: { cookie: "host=admin" } });
await new Promise((resolve, reject) => { stream.onopen = resolve; stream.onerror = () => reject(new Error("the stream did not open")); });
const streamClosed = new Promise((resolve) => { stream.onclose = (event) => resolve(event.code); });
const shutdownStarted = performance.now();
`;

test('the README’s embedding example runs as written in a host and finishes by itself, with a stream open', async () => {
  const example = embeddingExample();
  const listen = 'app.listen(3000);';
  const connected = /^\/\/ Once the terminal has connected.*$/m;
  const rest = /^\/\/ …$/m;
  expect(example).toContain(listen);
  expect(example).toMatch(connected);
  expect(example).toMatch(rest);
  const program = [
    HOST_STAND_INS,
    example
      .replace(listen, 'app.listen({ port: Number(process.env.PORT), hostname: "127.0.0.1" });')
      // The terminal's first request (what "connected" means), before the approval.
      .replace(connected, 'await fetch("http://127.0.0.1:" + process.env.PORT + "/iclock/cdata?SN=CKJF201960996&options=all");')
      // The host's administrator watching punches live (a console tab on the Today board does the
      // same) while the host shuts down: the example's shutdown must not wait for them to leave.
      .replace(rest, OPEN_STREAM),
    `console.log(JSON.stringify({ done: true, enrollee: e.id, shutdownMs: Math.round(performance.now() - shutdownStarted), streamClosed: await streamClosed }));`,
  ].join('\n');
  mkdirSync(join(host.dir, 'node_modules'));
  symlinkSync(ROOT, join(host.dir, 'node_modules', 'fingerprint-attendance'));
  symlinkSync(join(ROOT, 'node_modules', 'elysia'), join(host.dir, 'node_modules', 'elysia'));
  writeFileSync(join(host.dir, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
  writeFileSync(join(host.dir, 'index.ts'), program);

  const proc = Bun.spawn([process.execPath, 'index.ts'], {
    cwd: host.dir,
    env: { PATH: process.env.PATH ?? '', HOME: host.dir, KEY: TEST_KEY, PORT: String(freePort()), FPA_LOG_LEVEL: 'error' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  expect({ code, err: err.trim() }).toEqual({ code: 0, err: '' });
  const result = JSON.parse(out.trim().split('\n').at(-1) ?? '{}');
  expect(result).toMatchObject({ done: true, enrollee: expect.any(String), streamClosed: 1001 });
  // The documented shutdown closes the open stream instead of waiting for its client.
  expect(result.shutdownMs).toBeLessThan(5_000);
}, 90_000);

/**
 * The README's install from a path, run as written in a fresh host: its `sh` block, line by line,
 * in the host's directory beside a checkout that has no `node_modules` of its own (a plain clone),
 * must give a host that starts on the Bun it installed. The README's steps once installed the
 * package and then the host's own Elysia and Bun in a second `npm install`, which put a link to
 * the checkout back in place of the copy, and the host failed on its first missing module: a
 * later `npm install` of the host's (run here too) must keep the copy.
 */
test('installed from a path as the README says, the package brings its dependencies and starts', async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embedding in a host application'));
  const steps = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!steps) throw new Error('the README has no sh block under "Embedding in a host application"');
  expect(steps).toContain('../fingerprint-attendance');
  const place = tempDir('fpa-host-install-');
  try {
    // A plain clone of this checkout (what a host developer has), beside the host's directory.
    const clone = Bun.spawnSync(['git', 'clone', '-q', ROOT, join(place.dir, 'fingerprint-attendance')]);
    expect(clone.exitCode).toBe(0);
    const hostDir = join(place.dir, 'host');
    mkdirSync(hostDir);
    writeFileSync(join(hostDir, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
    const env = { ...process.env, npm_config_loglevel: 'error', npm_config_audit: 'false', npm_config_fund: 'false' };
    // The README's lines as typed at a prompt, then a later install of the host's own.
    for (const command of [...steps.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')), 'npm install']) {
      const run = Bun.spawnSync(['sh', '-c', command], { cwd: hostDir, env });
      expect({ command, code: run.exitCode, err: run.stderr.toString().trim().split('\n').slice(-5) }).toMatchObject({ command, code: 0 });
    }
    expect(lstatSync(join(hostDir, 'node_modules', 'fingerprint-attendance')).isSymbolicLink()).toBe(false);
    writeFileSync(
      join(hostDir, 'index.ts'),
      `import { Elysia } from 'elysia';
import { createFingerprintAttendance } from 'fingerprint-attendance';
const fpa = await createFingerprintAttendance({ settings: { TEMPLATE_ENCRYPTION_KEYS: [process.env.KEY!], DATABASE_URL: 'file:' + process.cwd() + '/host.db' } });
const app = new Elysia().use(fpa.plugin).listen({ port: Number(process.env.PORT), hostname: '127.0.0.1' });
const res = await fetch('http://127.0.0.1:' + process.env.PORT + '/iclock/cdata?SN=HOSTINSTALL1&options=all');
console.log(JSON.stringify({ status: res.status }));
await fpa.service.closeStreams();
await app.stop();
await fpa.close();
`,
    );
    // On the Bun the host installed.
    const run = Bun.spawnSync([join(hostDir, 'node_modules', '.bin', 'bun'), 'index.ts'], {
      cwd: hostDir,
      env: { PATH: process.env.PATH ?? '', HOME: hostDir, KEY: TEST_KEY, PORT: String(freePort()), FPA_LOG_LEVEL: 'error' },
      timeout: 60_000,
    });
    expect({ code: run.exitCode, err: run.stderr.toString().trim() }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(run.stdout.toString().trim().split('\n').at(-1) ?? '{}')).toEqual({ status: 200 });
  } finally {
    place.cleanup();
  }
}, 300_000);
