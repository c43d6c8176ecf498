/**
 * 8. Growth: the operations of issue 24's growth table at several sizes of history, each
 * seeded through the punch service (its ingest path, as terminals' uploads take it: group
 * commit, events, the attendance follower), never by raw SQL:
 *
 *   S ≈ 100k punches, 1k people, 20 terminals; M ≈ 1M, 10k, 200; L ≈ 10M, 50k, 1k (behind
 *   `--growth-sizes=S,M,L`: seeding takes long on 2 cores).
 *
 * Each person punches four times a workday on one terminal, which uploads the day's lines at
 * once; the days run back from yesterday.
 * Measured on the seeded copy over HTTP, by the real server as a child process (its memory and its
 * event loop its own, as in production; the sizes measured alternately, see benchGrowth):
 * - the month's export CSV for everyone: time per 1,000 rows, the RSS growth while it streams, and
 *   the longest a terminal's getrequest poll waited meanwhile;
 * - `punches/?employee=&from=&to=` over a month (every page), median of 5 people;
 * - one person's week of leave until their days caught up (`POST leaves/`, then the days read,
 *   which catches the follower up first), median of 5 people (LEAVES_PER_ROUND);
 * - attendance-days of one date, every page of 100: time per page;
 * - the retention purge of the oldest week (the server restarted with RETENTION_PUNCHES_DAYS
 *   so that the cutoff falls a week after the first day): time per deleted row, and how long a
 *   terminal uploading a line every 5 ms waited for its answers meanwhile (the 99th percentile
 *   is judged: the longest of a thousand answers moves with the machine, 20-74 ms with no purge);
 * - the event log: rows, and rows per punch (it is bounded in time by RETENTION_EVENTS_DAYS);
 * - HR at a glance (bench/glance.ts): the Today board and the console's lists, each within 200 ms.
 * Each figure is the ratio of the largest size to S: flat is about 1.
 */
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { type RunningServer, startServer } from '../src/app/server';
import type { IncomingPunch } from '../src/modules/punches';
import type { SettingsInput } from '../src/platform/config/settings';
import { silentLogger } from '../src/platform/log';
import { type GlanceResult, glanceFigures, measureGlance } from './glance';
import {
  adminJwt,
  adminRequest,
  approvedDevices,
  type BulkEnrollee,
  benchSettings,
  bulkEnrollees,
  type ChildServer,
  DEFAULT_PAIRS,
  type Figure,
  median,
  memory,
  pairedFigure,
  round,
  spawnServer,
  tempDir,
} from './support';

export interface GrowthSize {
  name: string;
  punches: number;
  people: number;
  terminals: number;
}

export const GROWTH_SIZES: Record<string, GrowthSize> = {
  S: { name: 'S', punches: 100_000, people: 1_000, terminals: 20 },
  M: { name: 'M', punches: 1_000_000, people: 10_000, terminals: 200 },
  L: { name: 'L', punches: 10_000_000, people: 50_000, terminals: 1_000 },
};

const DAY = 86_400_000;
/** Punch times of a workday (UTC, minutes after midnight), before each person's own offset. */
const WAVES = [8 * 60, 12 * 60, 12 * 60 + 30, 17 * 60];

/** What one size's history is: seeded once, then measured by servers opened on its files in turn. */
interface Seeded {
  size: GrowthSize;
  dir: string;
  cleanup(): void;
  people: BulkEnrollee[];
  first: number;
  workdays: number;
  seconds: number;
  punches: number;
  eventRows: number;
  eventMb: number | null;
}

/** One round of the read and edit measurements on one size. */
interface Round {
  exportSeconds: number;
  exportRows: number;
  exportRssMb: number;
  /** A terminal's getrequest polls while the export streamed, one after another: the longest wait, and how many. */
  exportPollMaxMs: number;
  exportPolls: number;
  employeeMs: number;
  employeeRows: number;
  leaveMs: number;
  datePageMs: number;
  datePages: number;
}

/** One retention purge on one size (each round purges the next span of the oldest days). */
interface Purge {
  days: number;
  seconds: number;
  rows: number;
  usPerRow: number;
  /** The probe upload's answer time meanwhile: the 99th percentile, and the longest. */
  uploadP99Ms: number;
  uploadMaxMs: number;
  uploads: number;
}

interface SizeResult {
  size: GrowthSize;
  seedSeconds: number;
  punches: number;
  rounds: Round[];
  purges: Purge[];
  eventRows: number;
  eventMb: number | null;
  glance: GlanceResult;
}

const serialOf = (terminal: number) => `GROWTH${String(terminal).padStart(5, '0')}`;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function line(pin: string, at: number): IncomingPunch {
  const localTime = new Date(at).toISOString().slice(0, 19).replace('T', ' ');
  return { pin, localTime, punchedAt: at, utcOffsetMinutes: 0, state: 0, verifyType: 1, workCode: '0', extra: [], raw: `${pin}\t${localTime}\t0\t1\t0` };
}

async function open(dir: string, overrides: SettingsInput = {}): Promise<RunningServer> {
  return startServer({
    settings: benchSettings(dir, { TIME_ZONE: 'UTC', ...overrides }),
    env: {},
    logger: silentLogger,
    port: 0,
    hostname: '127.0.0.1',
  });
}

/** Seeds a size through the punch service; answers the people, the first day and the seconds it took. */
async function seed(
  server: RunningServer,
  size: GrowthSize,
  log: (m: string) => void,
): Promise<{ people: BulkEnrollee[]; first: number; workdays: number; seconds: number }> {
  const { fpa } = server;
  const started = performance.now();
  const people = await bulkEnrollees(fpa, size.people);
  const serials = Array.from({ length: size.terminals }, (_, i) => serialOf(i));
  await approvedDevices(fpa, serials);
  const devices = await Promise.all(serials.map((s) => fpa.service.devices.get(s)));
  const workdays = Math.max(8, Math.round(size.punches / (WAVES.length * size.people)));
  const today = Math.floor(Date.now() / DAY) * DAY;
  const first = today - workdays * DAY;
  const perTerminal = serials.map((_, t) => people.filter((_, i) => i % size.terminals === t));
  for (let day = 0; day < workdays; day++) {
    // Every terminal uploads its day at once (its four waves, 200 lines for 50 people, as a
    // terminal back online sends its log): the uploads share transactions as at a shift change.
    await Promise.all(
      perTerminal.map((group, t) =>
        fpa.service.punches.ingest(
          devices[t]!,
          WAVES.flatMap((wave) => {
            const at = first + day * DAY + wave * 60_000;
            return group.map((p, i) => line(p.pin, at + (i % 10) * 60_000 + (Number(p.pin) % 60) * 1000));
          }),
        ),
      ),
    );
    if (day % 5 === 4) log(`  ${size.name}: day ${day + 1}/${workdays} seeded (${round((performance.now() - started) / 1000, 0)} s)`);
  }
  await fpa.service.attendance.follower.catchUp();
  return { people, first, workdays, seconds: (performance.now() - started) / 1000 };
}

/**
 * Seeds every size, then measures them alternately (S, M, S, M…) `pairs` times over, so that each
 * ratio is a range over pairs measured back to back (as the baselines of the other lines), not
 * one reading: a maximum wait or a resident size moves with the machine and the collector.
 */
export async function benchGrowth(names: readonly string[] = ['S', 'M'], pairs = DEFAULT_PAIRS, log: (m: string) => void = console.log): Promise<Figure[]> {
  const sizes = names.map((n) => {
    const size = GROWTH_SIZES[n.toUpperCase()];
    if (!size) throw new Error(`unknown growth size ${n}; known: ${Object.keys(GROWTH_SIZES).join(', ')}`);
    return size;
  });
  const token = await adminJwt();
  const seeded: Seeded[] = [];
  try {
    for (const size of sizes) {
      seeded.push(await seedSize(size, log));
    }
    // Seeding L writes some 10 GB: the measurements wait until the system has written it out,
    // or their syncs would queue behind it (a purge of S measured 10 s instead of 0.5 s).
    Bun.spawnSync(['sync']);
    const rounds = seeded.map((): Round[] => []);
    const glances: GlanceResult[] = [];
    for (let round = 0; round < pairs; round++) {
      for (const [i, history] of seeded.entries()) {
        const server = await spawnGrowthServer(history);
        try {
          rounds[i]!.push(await measureRound(server, token, history, round, pairs));
          // HR at a glance (bench/glance.ts) once per size: its lines have targets of their own.
          if (round === 0) glances.push(await measureGlance(jsonOf(server.url, token), history.people, dateOf(lastDay(history))));
        } finally {
          await server.stop();
        }
        log(`  ${history.size.name} round ${round + 1}/${pairs}: ${JSON.stringify(rounds[i]!.at(-1))}`);
      }
    }
    // Purges last (they delete history): each round the next span of the oldest days.
    const span = Math.min(7, ...seeded.map((h) => Math.floor((h.workdays - 1) / pairs)));
    const purges = seeded.map((): Purge[] => []);
    for (let round = 0; round < pairs; round++) {
      for (const [i, history] of seeded.entries()) {
        purges[i]!.push(await measurePurge(history, token, span * (round + 1), span));
        log(`  ${history.size.name} purge ${round + 1}/${pairs}: ${JSON.stringify(purges[i]!.at(-1))}`);
      }
    }
    return figuresOf(
      seeded.map((h, i) => ({
        size: h.size,
        seedSeconds: h.seconds,
        punches: h.punches,
        rounds: rounds[i]!,
        purges: purges[i]!,
        eventRows: h.eventRows,
        eventMb: h.eventMb,
        glance: glances[i]!,
      })),
    );
  } finally {
    for (const history of seeded) history.cleanup();
  }
}

/**
 * Leaves timed per round, their median the round's figure: a read of some 25 ms meets the export's
 * garbage collection often enough that a median of 3 once read 47 ms.
 */
const LEAVES_PER_ROUND = 5;

function lastDay(history: Seeded): number {
  return history.first + (history.workdays - 1) * DAY;
}

function jsonOf(url: string, token: string) {
  return async <T>(path: string): Promise<T> => (await (await adminRequest(url, token, 'GET', path)).json()) as T;
}

/**
 * The server on a seeded size's files as a child process, as in production: its memory and its
 * event loop its own, not shared with this process's seeding and load.
 */
function spawnGrowthServer(history: Seeded, env: Record<string, string> = {}): Promise<ChildServer> {
  return spawnServer(history.dir, { FPA_TIME_ZONE: 'UTC', ...env });
}

/** Rows of a table of the size in `dir`, read beside its server (another connection to the file). */
async function countRows(dir: string, table: string): Promise<number> {
  const client = createClient({ url: `file:${join(dir, 'fpa.db')}`, intMode: 'number' });
  try {
    return Number((await client.execute(`select count(*) as n from ${table}`)).rows[0]?.n ?? 0);
  } finally {
    client.close();
  }
}

/** Seeds a size in a directory of its own and counts what it holds; the server is stopped after. */
async function seedSize(size: GrowthSize, log: (m: string) => void): Promise<Seeded> {
  const tmp = tempDir(`fpa-bench-growth-${size.name}-`);
  try {
    const server = await open(tmp.dir);
    try {
      const seeded = await seed(server, size, log);
      const punches = await countRows(tmp.dir, 'fpa_punches');
      log(`  ${size.name}: ${punches} punches, ${size.people} people, ${size.terminals} terminals seeded in ${round(seeded.seconds, 0)} s`);
      const eventRows = await countRows(tmp.dir, 'fpa_events');
      let eventMb: number | null = null;
      try {
        const rs = await server.fpa.db.client.execute("select sum(pgsize) as bytes from dbstat where name = 'fpa_events'");
        eventMb = Number(rs.rows[0]?.bytes ?? 0) / 1024 ** 2;
      } catch {
        // dbstat not compiled in: rows only
      }
      return { size, dir: tmp.dir, cleanup: tmp.cleanup, ...seeded, punches, eventRows, eventMb };
    } finally {
      await server.stop();
    }
  } catch (error) {
    tmp.cleanup();
    throw error;
  }
}

/** The read and edit measurements, once, on a server opened on a seeded size. */
async function measureRound(server: ChildServer, token: string, history: Seeded, round: number, rounds: number): Promise<Round> {
  const api = (method: string, path: string, body?: unknown) => adminRequest(server.url, token, method, path, body);
  const json = jsonOf(server.url, token);
  const last = lastDay(history);
  const monthFrom = dateOf(Math.max(history.first, last - 29 * DAY));
  const monthTo = dateOf(last);

  // The month's export for everyone, streamed; the server's RSS sampled meanwhile, and a terminal polling.
  const poller = pollWhile(server.url, serialOf(0));
  const rssBefore = memory(server.pid).rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, memory(server.pid).rss);
  }, 20);
  const exportStarted = performance.now();
  const response = await api('GET', `/attendance-days/export.csv?from=${monthFrom}&to=${monthTo}`);
  let exportRows = -1; // the header
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const byte of value) if (byte === 10) exportRows++;
  }
  rssPeak = Math.max(rssPeak, memory(server.pid).rss);
  const exportSeconds = (performance.now() - exportStarted) / 1000;
  clearInterval(sampler);
  const polled = await poller.stop();

  // One person's month of punches, every page.
  const month = `from=${monthFrom}&to=${monthTo}`;
  const employeeTimes: number[] = [];
  let employeeRows = 0;
  for (let k = 0; k < 5; k++) {
    const person = history.people[Math.floor(((k + 0.5) * history.people.length) / 5)]!;
    const t0 = performance.now();
    let cursor: string | null = null;
    let rows = 0;
    do {
      const page: { results: unknown[]; next_cursor: string | null } = await json(
        `/punches/?employee=${person.employee}&${month}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      rows += page.results.length;
      cursor = page.next_cursor;
    } while (cursor);
    employeeTimes.push(performance.now() - t0);
    employeeRows = rows;
  }

  // A week of leave, until the person's days caught up: other people each round.
  const leaveTimes: number[] = [];
  for (let k = 0; k < LEAVES_PER_ROUND; k++) {
    const person = history.people[Math.floor(((round * LEAVES_PER_ROUND + k + 0.25) * history.people.length) / (LEAVES_PER_ROUND * rounds))]!;
    const from = dateOf(last - 9 * DAY);
    const to = dateOf(last - 3 * DAY);
    const t0 = performance.now();
    await api('POST', '/leaves/', { enrollee: person.id, from, to, kind: 'annual' });
    await json(`/attendance-days/?enrollee=${person.id}&from=${from}&to=${to}`);
    leaveTimes.push(performance.now() - t0);
  }

  // Attendance days of one date, every page.
  const date = dateOf(last - 14 * DAY);
  const dateStarted = performance.now();
  let pages = 0;
  let cursor: string | null = null;
  do {
    const page: { results: unknown[]; next_cursor: string | null } = await json(
      `/attendance-days/?from=${date}&to=${date}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    pages++;
    cursor = page.next_cursor;
  } while (cursor);

  return {
    exportSeconds,
    exportRows,
    exportRssMb: (rssPeak - rssBefore) / 1024 ** 2,
    exportPollMaxMs: polled.longestMs,
    exportPolls: polled.polls,
    employeeMs: median(employeeTimes),
    employeeRows,
    leaveMs: median(leaveTimes),
    datePageMs: (performance.now() - dateStarted) / pages,
    datePages: pages,
  };
}

/**
 * A terminal polling `getrequest` one poll after another until stopped: how many were answered,
 * and the longest wait. A download that holds the server's event loop (the export read its pages
 * back to back: 1.6 s at M) holds every poll that long.
 */
function pollWhile(url: string, serial: string): { stop(): Promise<{ polls: number; longestMs: number }> } {
  let running = true;
  const waits: number[] = [];
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await (await fetch(`${url}/iclock/getrequest?SN=${serial}`)).text();
      waits.push(performance.now() - t0);
      await Bun.sleep(10);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { polls: waits.length, longestMs: Math.max(0, ...waits) };
    },
  };
}

/**
 * The retention purge of the oldest days up to `throughDays` after the first (a server opened
 * with RETENTION_PUNCHES_DAYS so that the cutoff falls there, run over the API), while a terminal
 * uploads a line every 5 ms: how long it waited for its answers is what the purge held it.
 */
async function measurePurge(history: Seeded, token: string, throughDays: number, days: number): Promise<Purge> {
  const keepDays = Math.floor((Date.now() - history.first) / DAY) - throughDays;
  const server = await spawnGrowthServer(history, { FPA_RETENTION_PUNCHES_DAYS: String(keepDays) });
  try {
    return await purgeOn(server, history, token, throughDays, days);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the server's stderr: ${server.stderr().slice(-1500) || '(nothing)'}`);
  } finally {
    await server.stop();
  }
}

/** The purge of `measurePurge` on its running server. */
async function purgeOn(server: ChildServer, history: Seeded, token: string, throughDays: number, days: number): Promise<Purge> {
  // Terminal 0's first person, at an hour no wave uses on the last day: stored by the first
  // upload, a duplicate acknowledged again by every later one (one write transaction each).
  const person = history.people[0]!;
  const localTime = new Date(lastDay(history) + 23 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
  const upload = async () => {
    const res = await fetch(`${server.url}/iclock/cdata?SN=${serialOf(0)}&table=ATTLOG&Stamp=9999`, {
      method: 'POST',
      body: `${person.pin}\t${localTime}\t0\t1\t0\t0\t0\n`,
    });
    const text = await res.text();
    if (!text.startsWith('OK:1')) throw new Error(`the probe upload was answered ${res.status} ${text}`);
  };
  // The first stores the line; the rest warm the server's upload path before it is timed.
  for (let i = 0; i < 200; i++) await upload();
  const before = await countRows(history.dir, 'fpa_punches');
  let purging = true;
  const waits: number[] = [];
  const probe = (async () => {
    while (purging) {
      const t0 = performance.now();
      await upload();
      waits.push(performance.now() - t0);
      await Bun.sleep(5);
    }
  })();
  const started = performance.now();
  const response = await adminRequest(server.url, token, 'POST', '/jobs/purge-retention/run/');
  const seconds = (performance.now() - started) / 1000;
  purging = false;
  await probe;
  const run = (await response.json()) as { status: string; result: Record<string, number> };
  if (run.status !== 'succeeded') throw new Error(`purge-retention ${run.status}: ${JSON.stringify(run.result)}`);
  const counts = run.result;
  const rows = (counts.punches ?? 0) + (counts.attendance_days ?? 0);
  if (before - (await countRows(history.dir, 'fpa_punches')) !== counts.punches) throw new Error('the purge count does not match the table');
  if (!counts.punches) throw new Error(`the purge through day ${throughDays} deleted no punch`);
  waits.sort((a, b) => a - b);
  const uploadP99Ms = waits[Math.min(waits.length - 1, Math.floor(waits.length * 0.99))] ?? 0;
  return { days, seconds, rows, usPerRow: (seconds * 1e6) / rows, uploadP99Ms, uploadMaxMs: waits.at(-1) ?? 0, uploads: waits.length };
}

function figuresOf(results: SizeResult[]): Figure[] {
  const s = results[0]!;
  const top = results[results.length - 1]!;
  const sizes = results.map(
    (r) =>
      `${r.size.name} (${r.punches.toLocaleString('en')} punches, ${r.size.people.toLocaleString('en')} people, ${r.size.terminals} terminals, seeded in ${round(r.seedSeconds, 0)} s)`,
  );
  const each = <T>(of: (r: SizeResult) => T[], detail: (m: T) => string) => results.map((r) => `${r.size.name} ${of(r).map(detail).join('; ')}`).join(' — ');
  /** Round i of the top size against round i of S: a pair measured back to back. */
  const figure = <T>(
    id: string,
    title: string,
    unit: string,
    of: (r: SizeResult) => T[],
    value: (m: T) => number,
    detail: (m: T) => string,
    digits = 1,
  ): Figure =>
    pairedFigure({
      id: `growth-${id}`,
      title: `${title}, ${top.size.name} ÷ S`,
      unit,
      baseline: { title: `the same at S (${s.punches.toLocaleString('en')} punches)`, unit },
      pairs: of(top).map((m, i) => ({ baseline: value(of(s)[i]!), value: value(m) })),
      target: { text: 'flat (≤ 2×)', atMost: 2 },
      digits,
      notes: [each(of, detail)],
    });
  const rounds = (r: SizeResult) => r.rounds;
  const purges = (r: SizeResult) => r.purges;
  const figures = [
    figure(
      'export',
      'Month export CSV for everyone, time per 1,000 rows',
      'ms',
      rounds,
      (m) => (m.exportSeconds * 1e6) / Math.max(1, m.exportRows),
      (m) => `${m.exportRows} rows in ${round(m.exportSeconds, 2)} s`,
    ),
    figure(
      'export-rss',
      'Month export CSV for everyone, RSS growth while streaming',
      'MB',
      rounds,
      // Below 1 MB the growth is noise: counted as 1 so that a ratio of two near-zero readings means nothing alarming.
      (m) => Math.max(1, m.exportRssMb),
      (m) => `+${round(m.exportRssMb, 1)} MB`,
    ),
    figure(
      'export-poll',
      "Month export CSV for everyone: a terminal's poll answered within (the longest)",
      'ms',
      rounds,
      // Waits under 50 ms are a turn or two of the event loop: counted as 50, so that noise between two short waits is no ratio.
      (m) => Math.max(50, m.exportPollMaxMs),
      (m) => `longest ${round(m.exportPollMaxMs, 0)} ms of ${m.exportPolls} polls`,
    ),
    figure(
      'punches-employee',
      'punches/?employee=&from=&to= (a month, every page)',
      'ms',
      rounds,
      (m) => m.employeeMs,
      (m) => `${round(m.employeeMs, 1)} ms for ${m.employeeRows} punches`,
    ),
    figure(
      'leave',
      "One person's week of leave until their days caught up",
      'ms',
      rounds,
      (m) => m.leaveMs,
      (m) => `${round(m.leaveMs, 1)} ms`,
    ),
    figure(
      'days-date',
      'attendance-days of one date, time per page of 100',
      'ms',
      rounds,
      (m) => m.datePageMs,
      (m) => `${round(m.datePageMs, 1)} ms a page, ${m.datePages} pages`,
    ),
    figure(
      'purge',
      `Retention purge of ${s.purges[0]!.days} days, time per deleted row`,
      'µs',
      purges,
      (m) => m.usPerRow,
      (m) => `${m.rows} rows (punches and days) in ${round(m.seconds, 2)} s, ${round(m.usPerRow, 0)} µs a row`,
    ),
    figure(
      'purge-writer',
      "Retention purge: a terminal's upload answered within (99th percentile)",
      'ms',
      purges,
      (m) => Math.max(1, m.uploadP99Ms),
      (m) => `p99 ${round(m.uploadP99Ms, 0)} ms, longest ${round(m.uploadMaxMs, 0)} ms of ${m.uploads} uploads`,
    ),
    {
      id: 'growth-events',
      title: `Event log rows per punch (bounded in time by RETENTION_EVENTS_DAYS), ${top.size.name} ÷ S`,
      value: round(top.eventRows / top.punches / (s.eventRows / s.punches), 2),
      unit: '×',
      target: { text: 'flat (≤ 2×)', met: top.eventRows / top.punches / (s.eventRows / s.punches) <= 2 },
      notes: [
        results.map((r) => `${r.size.name} ${r.eventRows.toLocaleString('en')} rows${r.eventMb === null ? '' : `, ${round(r.eventMb, 0)} MB`}`).join(', '),
      ],
    },
  ];
  figures[0]!.notes.unshift(`sizes: ${sizes.join('; ')}`);
  return [...figures, ...glanceFigures(results)];
}
