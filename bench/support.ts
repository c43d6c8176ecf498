/**
 * Shared pieces of the benchmark: the figure type every measurement returns, a real server on
 * 127.0.0.1 with a temp database, bounded load loops, and preparation helpers that go through
 * the service (or, for bulk data, straight into the schema with properly encrypted templates).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, inArray } from 'drizzle-orm';
import { SignJWT } from 'jose';
import type { FingerprintAttendance } from '../src/app/create';
import { consents, deviceCommands, employees, enrolleeAreas, enrollees, templates } from '../src/app/schema';
import { type RunningServer, startServer } from '../src/app/server';
import { resolveAreas } from '../src/modules/areas/names';
import { templateAad } from '../src/modules/enrollment/aad';
import type { SettingsInput } from '../src/platform/config/settings';
import { generateEncryptionKey } from '../src/platform/crypto/template-cipher';
import { silentLogger } from '../src/platform/log';
import { nameKey } from '../src/platform/name-key';

export const API_BASE = '/api/fingerprint/v1';
export const BENCH_JWT_SECRET = 'bench-secret-that-is-at-least-32-bytes-long!!';
export const BENCH_KEY = generateEncryptionKey();

/** One line of the results table. `value: null` means not measured, with `skipped` saying why. */
export interface Figure {
  id: string;
  title: string;
  value: number | null;
  unit: string;
  baseline?: { title: string; value: number; unit: string } | null;
  /** value / baseline, when the issue asks for a ratio; with `ranges`, the end that is judged (pairedFigure). */
  ratio?: number | null;
  target?: { text: string; met: boolean } | null;
  /**
   * A figure measured as alternated pairs (baseline, measurement, baseline, measurement…):
   * `value` and `baseline.value` are then medians, and these the spread over the pairs.
   */
  ranges?: { pairs: number; value: Range; baseline: Range; ratio: Range; judged: 'low' | 'high' } | null;
  notes: string[];
  skipped?: string;
}

export interface Range {
  low: number;
  high: number;
}

/** Alternated pairs per ratio (`bun bench/run.ts --pairs=N` changes it; at least 3). */
export const DEFAULT_PAIRS = 3;

/** One alternated pair: a baseline run and the measurement right after it, on the same machine. */
export interface Pair {
  baseline: number;
  value: number;
}

export function rangeOf(values: readonly number[]): Range {
  return { low: Math.min(...values), high: Math.max(...values) };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A figure from alternated pairs: each pair's ratio is its measurement over the baseline run
 * just before it, the ratio reported is the range over the pairs, and the target is judged at
 * the range's worse end (`met` also needs `ok`, e.g. no errors): the LOW end for `atLeast`
 * (a rate against a limit), the HIGH end for `atMost` (a time against a smaller case's time). A
 * verdict that holds whichever way the machine's load fell, not only on a good run. `ratio` is
 * that judged end.
 */
export function pairedFigure(input: {
  id: string;
  title: string;
  unit: string;
  baseline: { title: string; unit: string };
  pairs: readonly Pair[];
  target: { text: string; atLeast: number } | { text: string; atMost: number };
  ok?: boolean;
  digits?: number;
  notes?: string[];
}): Figure {
  const ratios = input.pairs.map((p) => p.value / p.baseline);
  const ratio = rangeOf(ratios);
  const value = rangeOf(input.pairs.map((p) => p.value));
  const baseline = rangeOf(input.pairs.map((p) => p.baseline));
  const digits = input.digits ?? 0;
  return {
    id: input.id,
    title: input.title,
    value: round(median(input.pairs.map((p) => p.value)), digits),
    unit: input.unit,
    baseline: { title: input.baseline.title, value: round(median(input.pairs.map((p) => p.baseline)), digits), unit: input.baseline.unit },
    ratio: round('atLeast' in input.target ? ratio.low : ratio.high, 3),
    ranges: {
      pairs: input.pairs.length,
      value: { low: round(value.low, digits), high: round(value.high, digits) },
      baseline: { low: round(baseline.low, digits), high: round(baseline.high, digits) },
      ratio: { low: round(ratio.low, 3), high: round(ratio.high, 3) },
      judged: 'atLeast' in input.target ? 'low' : 'high',
    },
    target: {
      text: input.target.text,
      met: ('atLeast' in input.target ? ratio.low >= input.target.atLeast : ratio.high <= input.target.atMost) && input.ok !== false,
    },
    notes: [
      `${input.pairs.length} alternated pairs (baseline ${input.baseline.unit} → ${input.unit}, ratio): ${input.pairs
        .map((p, i) => `${round(p.baseline, digits)} → ${round(p.value, digits)} (${ratios[i]!.toFixed(2)}×)`)
        .join('; ')}`,
      ...(input.notes ?? []),
    ],
  };
}

export function skippedFigure(id: string, title: string, unit: string, reason: string, targetText?: string): Figure {
  return { id, title, value: null, unit, notes: [], skipped: reason, target: targetText ? { text: targetText, met: false } : null };
}

export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function benchSettings(dir: string, overrides: SettingsInput = {}): SettingsInput {
  return {
    DATABASE_URL: `file:${join(dir, 'fpa.db')}`,
    TEMPLATE_ENCRYPTION_KEYS: [BENCH_KEY],
    ADMIN_JWT_SECRET: BENCH_JWT_SECRET,
    // Nothing scheduled: a job firing mid-measurement would skew it.
    TASK_BACKEND: 'external',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    ...overrides,
  };
}

export interface BenchServer extends RunningServer {
  dir: string;
  close(): Promise<void>;
}

/** The real standalone server in this process, on a random 127.0.0.1 port, silent. */
export async function startBenchServer(prefix: string, overrides: SettingsInput = {}): Promise<BenchServer> {
  const tmp = tempDir(prefix);
  const server = await startServer({
    settings: benchSettings(tmp.dir, overrides),
    env: {},
    logger: silentLogger,
    port: 0,
    hostname: '127.0.0.1',
  });
  return {
    ...server,
    dir: tmp.dir,
    async close() {
      await server.stop();
      tmp.cleanup();
    },
  };
}

export async function adminJwt(secret = BENCH_JWT_SECRET): Promise<string> {
  return new SignJWT({ scope: 'fpa:admin' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('bench@example.com')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(secret));
}

/** An administrator's request to a bench server's API; a refusal (3xx and above) throws with its start. */
export async function adminRequest(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${baseUrl}${API_BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return res;
}

/**
 * Whether the server has mounted a route answering `method path` (exactly, with or without a
 * trailing slash, or through a `/*` wildcard) — asked of the router, so no request is sent.
 */
export function hasRoute(server: RunningServer, method: string, path: string): boolean {
  const routes = (server.app as unknown as { routes: Array<{ method: string; path: string }> }).routes;
  const bare = path.replace(/\/+$/, '');
  return routes.some((r) => {
    if (r.method !== method && r.method !== 'ALL') return false;
    if (r.path.endsWith('/*')) return bare.startsWith(r.path.slice(0, -1));
    return r.path.replace(/\/+$/, '') === bare;
  });
}

/** Registers terminals the way a first contact does, then approves them through the service. */
export async function approvedDevices(fpa: FingerprintAttendance, serials: string[]): Promise<void> {
  const { devices, commands } = fpa.service;
  for (const serial of serials) {
    await devices.registration.touch(serial, { pushVersion: '2.4.1', ip: '127.0.0.1' });
    await fpa.service.approveDevice(serial, { by: 'bench' });
    // The terminal answers the query of its users the approval asked (holding no one), as a
    // real one does at its first polls: until it has, its commands about a PIN wait.
    const device = await devices.get(serial);
    const asked = await fpa.db.orm
      .select({ id: deviceCommands.id })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, device.id), eq(deviceCommands.kind, 'query_users'), inArray(deviceCommands.status, ['pending', 'sent'])));
    await commands.applyResults(
      device.id,
      asked.map((c) => ({ id: String(c.id), returnCode: 0, cmd: 'DATA', fields: {} })),
    );
  }
}

export interface BulkEnrollee {
  id: string;
  pin: string;
  employee: string;
}

/**
 * Bulk preparation (not timed): employees, active enrollees in the default area with consent
 * and, optionally, `fingers` templates each, encrypted under the instance's key ring exactly
 * as storeTemplate would (same associated data, version 1).
 */
export async function bulkEnrollees(
  fpa: FingerprintAttendance,
  count: number,
  options: { fingers?: number[]; templateBytes?: number; firstPin?: number; algorithmVersion?: string } = {},
): Promise<BulkEnrollee[]> {
  const { keyRing } = fpa.service.runtime;
  const fingers = options.fingers ?? [];
  const firstPin = options.firstPin ?? 1;
  const algorithmVersion = options.algorithmVersion ?? '10';
  const now = Date.now();
  const people: BulkEnrollee[] = Array.from({ length: count }, (_, i) => ({
    id: crypto.randomUUID(),
    pin: String(firstPin + i),
    employee: `E-${String(firstPin + i).padStart(6, '0')}`,
  }));
  const templateRows: (typeof templates.$inferInsert)[] = [];
  for (const person of people) {
    for (const finger of fingers) {
      const data = crypto.getRandomValues(new Uint8Array(options.templateBytes ?? 600));
      const ciphertext = await keyRing.encrypt(data, templateAad(person.id, finger, 1));
      templateRows.push({
        id: crypto.randomUUID(),
        enrolleeId: person.id,
        fingerIndex: finger,
        algorithmVersion,
        version: 1,
        ciphertext: Buffer.from(ciphertext),
        keyId: keyRing.primaryKeyId,
        sizeBytes: data.byteLength,
        quality: 80,
        source: 'api',
        sourceDeviceId: null,
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  await fpa.db.write(async ({ tx }) => {
    const [areaId] = await resolveAreas(tx, undefined, now);
    for (const part of slices(people, 500)) {
      await tx.insert(employees).values(part.map((p) => ({ id: p.employee, name: `Bench ${p.pin}`, active: true, createdAt: now })));
      await tx.insert(enrollees).values(
        part.map((p) => ({
          id: p.id,
          employeeKey: p.employee,
          devicePin: p.pin,
          displayName: `Bench ${p.pin}`,
          nameKey: nameKey(`Bench ${p.pin}`),
          status: 'active' as const,
          createdAt: now,
          updatedAt: now,
        })),
      );
      await tx.insert(enrolleeAreas).values(part.map((p) => ({ enrolleeId: p.id, areaId: areaId! })));
      await tx
        .insert(consents)
        .values(part.map((p) => ({ id: crypto.randomUUID(), enrolleeId: p.id, version: 'v1', method: 'bench', givenBy: 'bench', givenAt: now })));
    }
    for (const part of slices(templateRows, 400)) await tx.insert(templates).values(part);
  });
  return people;
}

export function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  firstError: string | null;
}

/**
 * A closed-loop load generator: `concurrency` workers each issue requests back to back
 * (keep-alive connections of Bun's fetch) until `seconds` or `maxRequests` is reached.
 * `check` validates each answer; a failed check counts as an error, not a request.
 */
export async function closedLoop(options: {
  concurrency: number;
  seconds: number;
  maxRequests: number;
  request: (worker: number) => Promise<Response>;
  check: (status: number, body: string, worker: number) => boolean | string;
  /** Stop a worker early (its work ran out); the others go on. */
  workerDone?: (worker: number) => boolean;
}): Promise<LoadResult> {
  let requests = 0;
  let errors = 0;
  let firstError: string | null = null;
  let issued = 0;
  const start = performance.now();
  const deadline = start + options.seconds * 1000;
  const worker = async (w: number) => {
    while (performance.now() < deadline && issued < options.maxRequests && !options.workerDone?.(w)) {
      issued++;
      try {
        const response = await options.request(w);
        const body = await response.text();
        const verdict = options.check(response.status, body, w);
        if (verdict === true) requests++;
        else {
          errors++;
          firstError ??= typeof verdict === 'string' ? verdict : `HTTP ${response.status}: ${body.slice(0, 120)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, w) => worker(w)));
  const seconds = (performance.now() - start) / 1000;
  return { requests, errors, seconds, perSecond: requests / seconds, firstError };
}

/** Bare-Bun reference server answering `OK` to everything. */
export function bareBunServer(): { url: string; stop(): void } {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('OK') });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `YYYY-MM-DD HH:MM:SS` of a UTC instant (terminal wall time in a UTC zone). */
export function wallTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** For the benches that run the server as a child process. */

/** A TCP port nobody listens on right now (the kernel's choice, released at once). */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

async function waitForHealth(url: string, child: Bun.Subprocess<'ignore', 'ignore', 'pipe'>): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) {
      const err = await new Response(child.stderr).text();
      throw new Error(`the server exited with ${child.exitCode}: ${err.slice(0, 400)}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('the server did not answer /healthz within 20 s');
}

export interface ChildServer {
  url: string;
  port: number;
  pid: number;
  /** What the server wrote to stderr so far (why it stopped, if it did). */
  stderr(): string;
  /** SIGTERM, and SIGKILL if it has not exited within 10 s. */
  stop(): Promise<void>;
}

/**
 * The server as a child process (`bun src/server.ts`, its RSS its own) on the database file
 * `fpa.db` in `dir`, with the bench's key and JWT secret and the jobs off; resolves once it
 * answers /healthz. `env` adds or overrides settings.
 */
export async function spawnServer(dir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = Bun.spawn([process.execPath, 'src/server.ts'], {
    cwd: join(import.meta.dir, '..'),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      FPA_DATABASE_URL: `file:${join(dir, 'fpa.db')}`,
      FPA_TEMPLATE_ENCRYPTION_KEYS: BENCH_KEY,
      FPA_ADMIN_JWT_SECRET: BENCH_JWT_SECRET,
      FPA_TASK_BACKEND: 'external',
      FPA_HOST: '127.0.0.1',
      FPA_PORT: String(port),
      FPA_LOG_LEVEL: 'error',
      ...env,
    },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const stop = async () => {
    child.kill('SIGTERM');
    const exited = await Promise.race([child.exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!exited) child.kill('SIGKILL');
  };
  let stderr = '';
  void (async () => {
    const reader = child.stderr.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      stderr = (stderr + decoder.decode(value)).slice(-4000);
    }
  })();
  try {
    await waitForHealth(url, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, pid: child.pid, stop, stderr: () => stderr };
}

/** VmRSS and VmHWM (peak RSS) of a process, in bytes. */
export function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

export function mb(bytes: number): string {
  return `${round(bytes / 1024 ** 2, 1)} MB`;
}
