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
 * Measured on the seeded copy, through the real server over HTTP (in this process):
 * - the month's export CSV for everyone: time per 1,000 rows and the RSS growth while it streams;
 * - `punches/?employee=&from=&to=` over a month (every page), median of 5 people;
 * - one person's week of leave until their days caught up (`POST leaves/`, then the days read,
 *   which catches the follower up first), median of 3 people;
 * - attendance-days of one date, every page of 100: time per page;
 * - the retention purge of the oldest week (the server restarted with RETENTION_PUNCHES_DAYS
 *   so that the cutoff falls a week after the first day): time per deleted row, and the longest
 *   a tiny write waited for the writer meanwhile (what a terminal's upload would wait);
 * - the event log: rows, and rows per punch (it is bounded in time by RETENTION_EVENTS_DAYS);
 * - HR at a glance (bench/glance.ts): the Today board and the console's lists, each within 200 ms.
 * Each figure is the ratio of the largest size to S: flat is about 1.
 */
import { type RunningServer, startServer } from '../src/app/server';
import type { IncomingPunch } from '../src/modules/punches';
import type { SettingsInput } from '../src/platform/config/settings';
import { silentLogger } from '../src/platform/log';
import { type GlanceResult, glanceFigures, measureGlance } from './glance';
import { adminJwt, adminRequest, approvedDevices, type BulkEnrollee, benchSettings, bulkEnrollees, type Figure, round, tempDir } from './support';

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

interface SizeResult {
  size: GrowthSize;
  seedSeconds: number;
  punches: number;
  exportSeconds: number;
  exportRows: number;
  exportRssMb: number;
  employeeMs: number;
  employeeRows: number;
  leaveMs: number;
  datePageMs: number;
  datePages: number;
  purgeSeconds: number;
  purgedRows: number;
  purgeUsPerRow: number;
  writerWaitMs: number;
  eventRows: number;
  eventMb: number | null;
  glance: GlanceResult;
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

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
  const serials = Array.from({ length: size.terminals }, (_, i) => `GROWTH${String(i).padStart(5, '0')}`);
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

export async function benchGrowth(names: readonly string[] = ['S', 'M'], log: (m: string) => void = console.log): Promise<Figure[]> {
  const sizes = names.map((n) => {
    const size = GROWTH_SIZES[n.toUpperCase()];
    if (!size) throw new Error(`unknown growth size ${n}; known: ${Object.keys(GROWTH_SIZES).join(', ')}`);
    return size;
  });
  const results: SizeResult[] = [];
  for (const size of sizes) {
    const result = await measureSize(size, log);
    // Each size as soon as it is measured: a long run (L) that is stopped still leaves the others.
    log(`  ${size.name}: ${JSON.stringify({ ...result, size: undefined })}`);
    results.push(result);
  }
  return figuresOf(results);
}

async function measureSize(size: GrowthSize, log: (m: string) => void): Promise<SizeResult> {
  const tmp = tempDir(`fpa-bench-growth-${size.name}-`);
  try {
    let server = await open(tmp.dir);
    const token = await adminJwt();
    // The server of the moment: it is restarted between the measurements.
    const api = (method: string, path: string, body?: unknown) => adminRequest(server.url, token, method, path, body);
    const json = async <T>(path: string): Promise<T> => (await (await api('GET', path)).json()) as T;

    const seeded = await seed(server, size, log);
    const count = async (table: string): Promise<number> => Number((await server.fpa.db.client.execute(`select count(*) as n from ${table}`)).rows[0]?.n ?? 0);
    const punches = await count('fpa_punches');
    log(`  ${size.name}: ${punches} punches, ${size.people} people, ${size.terminals} terminals seeded in ${round(seeded.seconds, 0)} s`);
    const last = seeded.first + (seeded.workdays - 1) * DAY;
    const monthFrom = dateOf(Math.max(seeded.first, last - 29 * DAY));
    const monthTo = dateOf(last);

    // The month's export for everyone, streamed; RSS sampled meanwhile.
    Bun.gc(true);
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    }, 20);
    const exportStarted = performance.now();
    const response = await api('GET', `/attendance-days/export.csv?from=${monthFrom}&to=${monthTo}`);
    let exportRows = -1; // the header
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const byte of value) if (byte === 10) exportRows++;
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    }
    const exportSeconds = (performance.now() - exportStarted) / 1000;
    clearInterval(sampler);

    // One person's month of punches, every page.
    const month = `from=${monthFrom}&to=${monthTo}`;
    const employeeTimes: number[] = [];
    let employeeRows = 0;
    for (let k = 0; k < 5; k++) {
      const person = seeded.people[Math.floor(((k + 0.5) * seeded.people.length) / 5)]!;
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

    // A week of leave, until the person's days caught up.
    const leaveTimes: number[] = [];
    for (let k = 0; k < 3; k++) {
      const person = seeded.people[Math.floor(((k + 0.25) * seeded.people.length) / 3)]!;
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
    const datePageMs = (performance.now() - dateStarted) / pages;

    // HR at a glance: the Today board and the console's lists (bench/glance.ts).
    const glance = await measureGlance(json, seeded.people, dateOf(last));

    // The event log before the purge.
    const eventRows = await count('fpa_events');
    let eventMb: number | null = null;
    try {
      const rs = await server.fpa.db.client.execute("select sum(pgsize) as bytes from dbstat where name = 'fpa_events'");
      eventMb = Number(rs.rows[0]?.bytes ?? 0) / 1024 ** 2;
    } catch {
      // dbstat not compiled in: rows only
    }

    // The retention purge of the oldest week, with a tiny write waiting for the writer meanwhile.
    await server.stop();
    const keepDays = Math.floor((Date.now() - seeded.first) / DAY) - 7;
    server = await open(tmp.dir, { RETENTION_PUNCHES_DAYS: keepDays });
    const before = await count('fpa_punches');
    let purging = true;
    let writerWaitMs = 0;
    const probe = (async () => {
      while (purging) {
        const t0 = performance.now();
        await server.fpa.db.write((w) => w.execute('select 1'));
        const t1 = performance.now();
        await Bun.sleep(5);
        // Local libSQL runs statements on this thread: a long batch stalls the event loop (every
        // request) as well as the write queue; the longer of the two is what a terminal waits.
        writerWaitMs = Math.max(writerWaitMs, t1 - t0, performance.now() - t1 - 5);
      }
    })();
    const purgeStarted = performance.now();
    const run = await server.fpa.jobs.run('purge-retention');
    const purgeSeconds = (performance.now() - purgeStarted) / 1000;
    purging = false;
    await probe;
    if (run.status !== 'succeeded') throw new Error(`purge-retention ${run.status}: ${JSON.stringify(run.result)}`);
    const counts = run.result as Record<string, number>;
    const purgedRows = (counts.punches ?? 0) + (counts.attendance_days ?? 0);
    if (before - (await count('fpa_punches')) !== counts.punches) throw new Error('the purge count does not match the table');
    await server.stop();
    return {
      size,
      seedSeconds: seeded.seconds,
      punches,
      exportSeconds,
      exportRows,
      exportRssMb: (rssPeak - rssBefore) / 1024 ** 2,
      employeeMs: median(employeeTimes),
      employeeRows,
      leaveMs: median(leaveTimes),
      datePageMs,
      datePages: pages,
      purgeSeconds,
      purgedRows,
      purgeUsPerRow: purgedRows > 0 ? (purgeSeconds * 1e6) / purgedRows : 0,
      writerWaitMs,
      eventRows,
      eventMb,
      glance,
    };
  } finally {
    tmp.cleanup();
  }
}

function figuresOf(results: SizeResult[]): Figure[] {
  const s = results[0]!;
  const top = results[results.length - 1]!;
  const sizes = results.map(
    (r) =>
      `${r.size.name} (${r.punches.toLocaleString('en')} punches, ${r.size.people.toLocaleString('en')} people, ${r.size.terminals} terminals, seeded in ${round(r.seedSeconds, 0)} s)`,
  );
  const each = (pick: (r: SizeResult) => string) => results.map((r) => `${r.size.name} ${pick(r)}`).join(', ');
  const figure = (id: string, title: string, value: (r: SizeResult) => number, detail: (r: SizeResult) => string): Figure => {
    const ratio = value(s) > 0 ? value(top) / value(s) : null;
    return {
      id: `growth-${id}`,
      title: `${title}, ${top.size.name} ÷ S`,
      value: ratio === null ? null : round(ratio, 2),
      unit: '×',
      target: ratio === null ? null : { text: 'flat (≤ 2×)', met: ratio <= 2 },
      notes: [each(detail)],
      ...(ratio === null ? { skipped: 'nothing measured at S' } : {}),
    };
  };
  const figures = [
    figure(
      'export',
      'Month export CSV for everyone, time per 1,000 rows',
      (r) => (r.exportSeconds * 1000) / Math.max(1, r.exportRows),
      (r) => `${r.exportRows} rows in ${round(r.exportSeconds, 2)} s, RSS +${round(r.exportRssMb, 0)} MB`,
    ),
    figure(
      'export-rss',
      'Month export CSV for everyone, RSS growth while streaming',
      (r) => Math.max(1, r.exportRssMb),
      (r) => `+${round(r.exportRssMb, 1)} MB`,
    ),
    figure(
      'punches-employee',
      'punches/?employee=&from=&to= (a month, every page)',
      (r) => r.employeeMs,
      (r) => `${round(r.employeeMs, 1)} ms for ${r.employeeRows} punches`,
    ),
    figure(
      'leave',
      "One person's week of leave until their days caught up",
      (r) => r.leaveMs,
      (r) => `${round(r.leaveMs, 1)} ms`,
    ),
    figure(
      'days-date',
      'attendance-days of one date, time per page of 100',
      (r) => r.datePageMs,
      (r) => `${round(r.datePageMs, 1)} ms a page, ${r.datePages} pages`,
    ),
    figure(
      'purge',
      'Retention purge of a week, time per deleted row',
      (r) => r.purgeUsPerRow,
      (r) => `${r.purgedRows} rows (punches and days) in ${round(r.purgeSeconds, 2)} s, ${round(r.purgeUsPerRow, 0)} µs a row`,
    ),
    figure(
      'purge-writer',
      'Retention purge: longest wait of a write for the writer',
      (r) => Math.max(1, r.writerWaitMs),
      (r) => `${round(r.writerWaitMs, 0)} ms`,
    ),
    figure(
      'events',
      'Event log rows per punch (bounded in time by RETENTION_EVENTS_DAYS)',
      (r) => r.eventRows / Math.max(1, r.punches),
      (r) => `${r.eventRows.toLocaleString('en')} rows${r.eventMb === null ? '' : `, ${round(r.eventMb, 0)} MB`}`,
    ),
  ];
  figures[0]!.notes.unshift(`sizes: ${sizes.join('; ')}`);
  return [...figures, ...glanceFigures(results)];
}
