import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { sql } from 'drizzle-orm';
import { createFingerprintAttendance } from '../src/app/create';
import { punches } from '../src/app/schema';
import { migrateDatabase, openDatabase } from '../src/platform/db/client';
import { silentLogger } from '../src/platform/log';
import {
  API_BASE,
  adminJwt,
  approvedDevices,
  benchSettings,
  bulkEnrollees,
  type ChildServer,
  DEFAULT_PAIRS,
  type Figure,
  hasRoute,
  mb,
  median,
  memory,
  pairedFigure,
  round,
  skippedFigure,
  sleep,
  spawnServer,
  startBenchServer,
  tempDir,
  wallTime,
} from './support';

export interface IngestOptions {
  terminals: number;
  batchesPerTerminal: number;
  linesPerBatch: number;
  deadlineSeconds: number;
}

export const INGEST_DEFAULTS: IngestOptions = { terminals: 20, batchesPerTerminal: 20, linesPerBatch: 200, deadlineSeconds: 120 };

/** Webhook endpoints (and receivers) of the run with delivery. */
const ENDPOINTS = 10;
const ADMS = '/iclock/';

/**
 * The workload: each terminal has its own `linesPerBatch` employees, and each batch is one
 * badge-in wave of all of them (a shift change) — four waves a day (08:00, 12:00, 13:00, 17:00),
 * one second apart in the wave. Times are unique per terminal, every PIN belongs to an
 * enrollee, and each employee has four punches a day, as in production.
 */
const BASE_DAY = Date.UTC(2025, 0, 6);
const WAVES_MS = [8, 12, 13, 17].map((h) => h * 3_600_000);
const DAY_MS = 86_400_000;

interface Line {
  pin: string;
  at: number;
  text: string;
}

function pinOf(terminal: number, i: number, options: IngestOptions): string {
  return String(1 + terminal * options.linesPerBatch + i);
}

/** Lines of one batch; `dayOffset` moves the whole workload (warm-up batches). */
function batchLines(terminal: number, batch: number, options: IngestOptions, dayOffset = 0): Line[] {
  const lines: Line[] = [];
  const waveStart = BASE_DAY + (dayOffset + Math.floor(batch / WAVES_MS.length)) * DAY_MS + WAVES_MS[batch % WAVES_MS.length]!;
  for (let i = 0; i < options.linesPerBatch; i++) {
    const pin = pinOf(terminal, i, options);
    const at = waveStart + i * 1000;
    lines.push({ pin, at, text: `${pin}\t${wallTime(at)}\t0\t1\t0\t0\t0` });
  }
  return lines;
}

interface Measured {
  rows: number;
  requests: number;
  seconds: number;
  rowsPerSecond: number;
  p50: number;
  p99: number;
  /** The longest a batch waited for its answer (ms). */
  longest: number;
}

type Baseline = { rows: number; seconds: number; rowsPerSecond: number };

export async function benchIngest(options: IngestOptions = INGEST_DEFAULTS, pairs = DEFAULT_PAIRS): Promise<Figure[]> {
  // Baselines and server runs alternate `pairs` times (full, plain, server, with endpoints,
  // without); each pair gives one ratio per line, reported as the range over the pairs.
  const rounds: Round[] = [];
  let skipped: string | null = null;
  let hooksSkipped: string | null = null;
  for (let i = 0; i < pairs; i++) {
    const full = await storageLimit(options, 'full');
    const plain = await storageLimit(options, 'plain');
    const server: Measured | { skipped: string } = skipped === null ? await httpIngest(options) : { skipped };
    if ('skipped' in server) {
      skipped = server.skipped;
      rounds.push({ full, plain, server: null, hooks: null, none: null });
      continue;
    }
    const hooks: WithWebhooks | { skipped: string } = hooksSkipped === null ? await httpIngestWithWebhooks(options, ENDPOINTS) : { skipped: hooksSkipped };
    if ('skipped' in hooks) hooksSkipped = hooks.skipped;
    const none = 'skipped' in hooks ? null : await httpIngestWithWebhooks(options, 0);
    rounds.push({ full, plain, server, hooks: 'skipped' in hooks ? null : hooks, none: none && !('skipped' in none) ? none : null });
  }
  const title = `ATTLOG ingest over HTTP (${options.terminals} terminals × ${options.linesPerBatch}-line batches)`;
  const hooksTitle = `ATTLOG ingest over HTTP with ${ENDPOINTS} webhook endpoints delivering`;
  const plainBaseline = { title: 'libSQL multi-row INSERT per batch, dedupe index only', unit: 'rows/s' };
  const rates = (pick: (r: Round) => { rowsPerSecond: number } | null) => rounds.map((r) => round(pick(r)?.rowsPerSecond ?? 0, 0)).join(', ');
  const baselineNotes = [
    `full-schema baseline runs: ${rates((r) => r.full)} rows/s (${rounds[0]!.full.rows} rows each)`,
    `plain baseline runs, dedupe index only: ${rates((r) => r.plain)} rows/s`,
  ];
  const withMedian = (figure: Figure, values: number[]): Figure => ({ ...figure, baseline: { ...plainBaseline, value: round(median(values), 0) } });
  if (skipped !== null) {
    return [
      withMedian(
        skippedFigure('ingest', title, 'rows/s', skipped, '≥ 0.5× storage limit'),
        rounds.map((r) => r.plain.rowsPerSecond),
      ),
      {
        ...skippedFigure('ingest-webhooks', hooksTitle, 'rows/s', skipped, '≥ 0.5× plain baseline'),
        baseline: { ...plainBaseline, value: round(median(rounds.map((r) => r.plain.rowsPerSecond)), 0) },
      },
    ];
  }
  const served = rounds.map((r) => r.server!);
  const p50s = served.map((m) => round(m.p50, 1)).join(', ');
  const p99s = served.map((m) => round(m.p99, 1)).join(', ');
  // The storage limit is the plainest fast write (a table with only the dedupe index), not our
  // own schema: the full-schema baseline shows what our indexes cost, and is only a note.
  const figure = pairedFigure({
    id: 'ingest',
    title,
    unit: 'rows/s',
    baseline: plainBaseline,
    pairs: rounds.map((r) => ({ baseline: r.plain.rowsPerSecond, value: r.server!.rowsPerSecond })),
    target: { text: '≥ 0.5× storage limit', atLeast: 0.5 },
    notes: [
      ...baselineNotes,
      `server runs: ${served[0]!.rows} rows, ${served[0]!.requests} requests each; p50 ${p50s} ms, p99 ${p99s} ms per batch`,
      `server against the full-schema baseline of the same pair: ${rounds.map((r) => (r.server!.rowsPerSecond / r.full.rowsPerSecond).toFixed(2)).join(', ')}×`,
    ],
  });
  if (hooksSkipped !== null || rounds.some((r) => r.hooks === null)) {
    const reason = hooksSkipped ?? 'not every run finished';
    return [
      figure,
      {
        ...skippedFigure('ingest-webhooks', hooksTitle, 'rows/s', reason, '≥ 0.5× plain baseline'),
        baseline: { ...plainBaseline, value: round(median(rounds.map((r) => r.plain.rowsPerSecond)), 0) },
      },
    ];
  }
  const hooks = rounds.map((r) => r.hooks!);
  const withHooks = hooks[hooks.length - 1]!;
  const nones = rounds.map((r) => r.none);
  const hooksFigure = pairedFigure({
    id: 'ingest-webhooks',
    title: hooksTitle,
    unit: 'rows/s',
    baseline: plainBaseline,
    pairs: rounds.map((r) => ({ baseline: r.plain.rowsPerSecond, value: r.hooks!.rowsPerSecond })),
    target: { text: '≥ 0.5× plain baseline', atLeast: 0.5 },
    ok: hooks.every((h) => h.duplicates === 0),
    notes: [
      `with ${ENDPOINTS} endpoints: p50 ${hooks.map((h) => round(h.p50, 1)).join(', ')} ms, p99 ${hooks.map((h) => round(h.p99, 1)).join(', ')} ms per batch; against the full-schema baseline of the same pair: ${rounds.map((r) => (r.hooks!.rowsPerSecond / r.full.rowsPerSecond).toFixed(2)).join(', ')}×`,
      `server RSS (child process): ${mb(withHooks.rssStart)} before; runs peaked (VmHWM) at ${hooks.map((h) => mb(h.rssPeak)).join(', ')}`,
      nones.every((n) => n !== null)
        ? `the same child-process run without endpoints: ${nones.map((n) => round(n!.rowsPerSecond, 0)).join(', ')} rows/s, peak RSS ${nones.map((n) => mb(n!.rssPeak)).join(', ')}: with ${ENDPOINTS} endpoints ingest ran at ${rounds.map((r) => (r.hooks!.rowsPerSecond / r.none!.rowsPerSecond).toFixed(2)).join(', ')}× that rate`
        : 'the child-process run without endpoints was not measured',
      `attendance days: caught up with every punch ${hooks.map((h) => (h.attendanceSeconds === null ? `not within ${options.deadlineSeconds} s` : `${round(h.attendanceSeconds, 1)} s`)).join(', ')} after the last upload (they yield to a burst of uploads for up to ATTENDANCE_MAX_LAG, 10 s)`,
      `deliveries: ${hooks.map((h) => h.deliveredDuringIngest.toLocaleString('en')).join(', ')} of ${(ENDPOINTS * withHooks.punches).toLocaleString('en')} (${ENDPOINTS} endpoints × ${withHooks.punches} punches, warm-up included) while the terminals uploaded; all of them ${hooks.map((h) => (h.drainSeconds === null ? `not within ${options.deadlineSeconds} s` : `${round(h.drainSeconds, 1)} s (${round(h.deliveriesPerSecond, 0)} deliveries/s overall)`)).join(', ')} after the last upload; ${hooks.reduce((n, h) => n + h.duplicates, 0)} duplicates`,
    ],
  });
  return [figure, hooksFigure];
}

interface Round {
  full: Baseline;
  plain: Baseline;
  server: Measured | null;
  hooks: WithWebhooks | null;
  none: WithWebhooks | null;
}

/**
 * Seconds until the server's attendance follower has applied every event recorded so far, read
 * from the database file beside the server (WAL lets another process read while it writes); null
 * past the deadline. Asking the API would make the server catch up on demand, which is not lag.
 */
async function attendanceCatchUp(dir: string, deadlineSeconds: number): Promise<number | null> {
  const db = createClient({ url: `file:${join(dir, 'fpa.db')}`, intMode: 'number' });
  try {
    const start = performance.now();
    const { rows } = await db.execute('select max(sequence) as head from fpa_events');
    const head = Number(rows[0]?.head ?? 0);
    while (performance.now() - start < deadlineSeconds * 1000) {
      const at = await db.execute("select position from fpa_log_followers where name = 'attendance'");
      if (Number(at.rows[0]?.position ?? 0) >= head) return (performance.now() - start) / 1000;
      await sleep(20);
    }
    return null;
  } finally {
    db.close();
  }
}

const PUNCH_COLUMNS = [
  'id',
  'device_id',
  'device_serial',
  'device_pin',
  'enrollee_id',
  'employee_key',
  'punched_at',
  'local_time',
  'utc_offset_minutes',
  'state',
  'verify_type',
  'work_code',
  'raw',
  'flags',
  'received_at',
];

/** A punch table with the same columns and only the dedupe index (the plain baseline). */
const PLAIN_SCHEMA = [
  `CREATE TABLE fpa_punches (
    sequence integer PRIMARY KEY AUTOINCREMENT NOT NULL, id text NOT NULL, device_id text NOT NULL, device_serial text NOT NULL,
    device_pin text NOT NULL, enrollee_id text, employee_key text, punched_at integer NOT NULL, local_time text NOT NULL,
    utc_offset_minutes integer NOT NULL, state integer NOT NULL, verify_type integer NOT NULL, work_code text NOT NULL,
    raw text NOT NULL, flags text NOT NULL, received_at integer NOT NULL)`,
  // The same dedupe index as ours (punches/tables.ts): the same rule, in the same order.
  'CREATE UNIQUE INDEX fpa_punches_dedup ON fpa_punches (device_id, substr(local_time, 1, 10), device_pin, local_time)',
];

/** The storage limit: pre-built multi-row INSERTs, one per batch, one after another. */
async function storageLimit(options: IngestOptions, schema: 'full' | 'plain'): Promise<Baseline> {
  const tmp = tempDir('fpa-bench-baseline-');
  const db = await openDatabase({ url: `file:${join(tmp.dir, 'baseline.db')}` });
  try {
    if (schema === 'full') await migrateDatabase(db);
    else for (const statement of PLAIN_SCHEMA) await db.client.execute(statement);
    const columns = PUNCH_COLUMNS;
    const rowSql = `(${columns.map(() => '?').join(',')})`;
    const enrolleeIds = Array.from({ length: options.terminals * options.linesPerBatch }, () => crypto.randomUUID());
    const deviceIds = Array.from({ length: options.terminals }, () => crypto.randomUUID());
    const statement = (terminal: number, lines: Line[]) => {
      const args: (string | number | null)[] = [];
      const receivedAt = Date.now();
      for (const l of lines) {
        const pinIndex = Number(l.pin) - 1;
        // Time-ordered ids, as the server gives them (punches/service.ts): random ones take random
        // inserts into the unique `id` index, which halved this baseline against the server's own.
        args.push(Bun.randomUUIDv7(), deviceIds[terminal]!, serialOf(terminal), l.pin, enrolleeIds[pinIndex]!, `E-${l.pin.padStart(6, '0')}`);
        args.push(l.at, wallTime(l.at), 0, 0, 1, '0', l.text, '[]', receivedAt);
      }
      return { sql: `INSERT INTO fpa_punches (${columns.join(',')}) VALUES ${lines.map(() => rowSql).join(',')}`, args };
    };
    // Warm-up batches (another time range), then the measured ones in the order terminals send them.
    for (let t = 0; t < options.terminals; t++) await db.client.execute(statement(t, batchLines(t, 0, options, -365)));
    const statements = [];
    for (let b = 0; b < options.batchesPerTerminal; b++) {
      for (let t = 0; t < options.terminals; t++) statements.push(statement(t, batchLines(t, b, options)));
    }
    const start = performance.now();
    for (const s of statements) await db.client.execute(s);
    const seconds = (performance.now() - start) / 1000;
    const rows = statements.length * options.linesPerBatch;
    const stored = await db.client.execute('select count(*) as n from fpa_punches');
    const expected = rows + options.terminals * options.linesPerBatch;
    if (Number(stored.rows[0]!.n) !== expected) throw new Error(`baseline stored ${String(stored.rows[0]!.n)} rows, expected ${expected}`);
    return { rows, seconds, rowsPerSecond: rows / seconds };
  } finally {
    await db.close();
    tmp.cleanup();
  }
}

function serialOf(terminal: number): string {
  return `BENCHATT${String(terminal).padStart(3, '0')}`;
}

/** POSTs one ATTLOG batch of a terminal; anything but `OK:<n>` fails the run. */
async function postBatch(url: string, terminal: number, lines: Line[]): Promise<void> {
  const response = await fetch(`${url}${ADMS}cdata?SN=${serialOf(terminal)}&table=ATTLOG&Stamp=9999`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: lines.map((l) => `${l.text}\n`).join(''),
  });
  const text = (await response.text()).trim();
  if (response.status !== 200 || text !== `OK:${lines.length}`) {
    throw new Error(`terminal ${serialOf(terminal)} got HTTP ${response.status} "${text.slice(0, 80)}", expected OK:${lines.length}`);
  }
}

/** Warm-up (one batch per terminal, another time range, not counted), then every terminal's batches concurrently. */
async function uploadAll(url: string, options: IngestOptions): Promise<Measured> {
  const terminals = Array.from({ length: options.terminals }, (_, t) => t);
  await Promise.all(terminals.map((t) => postBatch(url, t, batchLines(t, 0, options, -365))));
  const bodies = terminals.map((t) => Array.from({ length: options.batchesPerTerminal }, (_, b) => batchLines(t, b, options)));
  const latencies: number[] = [];
  const deadline = performance.now() + options.deadlineSeconds * 1000;
  let rows = 0;
  const start = performance.now();
  await Promise.all(
    terminals.map(async (t) => {
      for (const lines of bodies[t]!) {
        if (performance.now() > deadline) return;
        const begun = performance.now();
        await postBatch(url, t, lines);
        latencies.push(performance.now() - begun);
        rows += lines.length;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rows,
    requests: latencies.length,
    seconds,
    rowsPerSecond: rows / seconds,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
    p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0,
    longest: latencies[latencies.length - 1] ?? 0,
  };
}

export async function httpIngest(options: IngestOptions): Promise<Measured | { skipped: string }> {
  const server = await startBenchServer('fpa-bench-ingest-');
  try {
    if (!hasRoute(server, 'POST', `${server.fpa.settings.ADMS_URL_PREFIX}cdata`)) return { skipped: 'the ADMS cdata route is not mounted yet' };
    const serials = Array.from({ length: options.terminals }, (_, t) => serialOf(t));
    await approvedDevices(server.fpa, serials);
    await bulkEnrollees(server.fpa, options.terminals * options.linesPerBatch);
    const measured = await uploadAll(server.url, options);
    const [stored] = await server.fpa.db.orm.select({ n: sql<number>`count(*)` }).from(punches);
    const expected = measured.rows + options.terminals * options.linesPerBatch;
    if (stored?.n !== expected) throw new Error(`the server stored ${stored?.n} punches, expected ${expected}`);
    return measured;
  } finally {
    await server.close();
  }
}

interface WithWebhooks extends Measured {
  /** Punches uploaded, the warm-up included: each endpoint must get them all. */
  punches: number;
  rssStart: number;
  rssPeak: number;
  deliveredDuringIngest: number;
  /** From the last upload until every receiver held every punch; null past the deadline. */
  drainSeconds: number | null;
  deliveriesPerSecond: number;
  duplicates: number;
  /** From the last upload until attendance days had followed every punch (they yield to a burst). */
  attendanceSeconds: number | null;
}

/**
 * The same upload with `endpoints` endpoints subscribed to `punch_received` (10, and none to
 * compare), each with its own receiver in this process (answering 204), and the server as a
 * child process with its worker on. The database is prepared in this process first (terminals,
 * enrollees, endpoints), then handed to the child.
 */
async function httpIngestWithWebhooks(options: IngestOptions, endpoints: number): Promise<WithWebhooks | { skipped: string }> {
  const tmp = tempDir('fpa-bench-ingest-hooks-');
  const received: Set<string>[] = Array.from({ length: endpoints }, () => new Set<string>());
  let duplicates = 0;
  const receivers = received.map((ids) =>
    Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        await request.arrayBuffer();
        const id = request.headers.get('webhook-id') ?? '';
        if (ids.has(id)) duplicates++;
        else ids.add(id);
        return new Response(null, { status: 204 });
      },
    }),
  );
  let child: ChildServer | null = null;
  try {
    const settings = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true };
    const setup = await createFingerprintAttendance({ settings: benchSettings(tmp.dir, settings), env: {}, logger: silentLogger, startJobs: false });
    try {
      await approvedDevices(
        setup,
        Array.from({ length: options.terminals }, (_, t) => serialOf(t)),
      );
      await bulkEnrollees(setup, options.terminals * options.linesPerBatch);
      for (const r of receivers) await setup.service.webhooks.create({ url: `http://127.0.0.1:${r.port}/hook`, events: ['punch_received'], by: 'bench' });
    } finally {
      await setup.close();
    }
    child = await spawnServer(tmp.dir, { FPA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    const { url, pid } = child;
    const rssStart = memory(pid).rss;
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, memory(pid).rss);
    }, 50);
    let measured: Measured;
    let deliveredDuringIngest: number;
    let drainSeconds: number | null = null;
    let deliveriesPerSecond = 0;
    const deliveredNow = () => received.reduce((n, ids) => n + ids.size, 0);
    let attendanceSeconds: number | null = null;
    try {
      const before = deliveredNow();
      measured = await uploadAll(url, options);
      deliveredDuringIngest = deliveredNow() - before;
      attendanceSeconds = await attendanceCatchUp(tmp.dir, options.deadlineSeconds);
      const warmUp = options.terminals * options.linesPerBatch;
      const want = endpoints * (measured.rows + warmUp);
      const drainStart = performance.now();
      const deadline = drainStart + options.deadlineSeconds * 1000;
      while (deliveredNow() < want && performance.now() < deadline) await sleep(20);
      if (deliveredNow() >= want) {
        drainSeconds = (performance.now() - drainStart) / 1000;
        deliveriesPerSecond = want / (measured.seconds + drainSeconds);
      }
    } finally {
      clearInterval(sampler);
    }
    rssPeak = Math.max(rssPeak, memory(pid).hwm);
    const stored = await fetch(`${url}${API_BASE}/punches/latest/?after=0&limit=1`, { headers: { authorization: `Bearer ${await adminJwt()}` } });
    if (stored.status !== 200) throw new Error(`reading the punches answered HTTP ${stored.status}`);
    const punchesUploaded = measured.rows + options.terminals * options.linesPerBatch;
    return {
      ...measured,
      punches: punchesUploaded,
      rssStart,
      rssPeak,
      deliveredDuringIngest,
      drainSeconds,
      deliveriesPerSecond,
      duplicates,
      attendanceSeconds,
    };
  } finally {
    await child?.stop();
    for (const r of receivers) r.stop(true);
    tmp.cleanup();
  }
}
