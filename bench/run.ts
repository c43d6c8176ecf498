/**
 * `bun run bench`: runs the measurements (the six of issue 6, and recomputing a month of attendance) one after another on this machine,
 * prints a table, writes bench/RESULTS.md and ends with one JSON line.
 *
 *   bun bench/run.ts                 all measurements
 *   bun bench/run.ts --only=ingest,backfill
 *   bun bench/run.ts --no-write      do not overwrite RESULTS.md
 *   bun bench/run.ts --only=growth --growth-sizes=S,M,L   growth at sizes S, M and L (default S,M)
 *   bun bench/run.ts --pairs=5       alternated baseline/measurement pairs per ratio (default 3, at least 3)
 *
 * A ratio is never one run against one run: the measurements with a baseline alternate
 * (baseline, measurement, baseline, measurement…), each pair gives a ratio, the table shows
 * the range over the pairs and a target is met only at its worse end (the low end of a rate).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchBackfill } from './backfill';
import { benchBurst } from './burst';
import { benchFanout } from './fanout';
import { benchGrowth } from './growth';
import { benchIngest } from './ingest';
import { describeMachine, loadNow, type Machine } from './machine';
import { benchPolls } from './polls';
import { benchRecompute } from './recompute';
import { DEFAULT_PAIRS, type Figure, type Range, skippedFigure } from './support';
import { benchWebhooks } from './webhooks';
import { benchWebSocket } from './websocket';

/** What every measurement is given; one with a baseline runs `pairs` alternated pairs. */
interface BenchOptions {
  pairs: number;
  /** The history sizes the growth measurement seeds (S, M, L). */
  growthSizes: string[];
}

interface Measurement {
  title: string;
  unit: string;
  run: (options: BenchOptions) => Promise<Figure[]>;
}

const MEASUREMENTS: Record<string, Measurement> = {
  ingest: { title: 'ATTLOG ingest over HTTP (and with 10 webhook endpoints)', unit: 'rows/s', run: ({ pairs }) => benchIngest(undefined, pairs) },
  polls: { title: 'getrequest polls', unit: 'polls/s', run: ({ pairs }) => benchPolls(undefined, pairs) },
  burst: { title: 'A long burst of uploads while the days catch up', unit: 'ms', run: () => benchBurst() },
  backfill: { title: 'Approval backfill', unit: 'commands/s', run: () => benchBackfill() },
  fanout: { title: 'storeTemplate fan-out', unit: 'ms/template', run: () => benchFanout() },
  webhooks: { title: 'Webhook deliveries (1 and 10 endpoints)', unit: 'deliveries/s', run: () => benchWebhooks() },
  websocket: { title: 'Server RSS with WebSocket subscribers', unit: 'MB', run: () => benchWebSocket() },
  recompute: { title: 'Recompute a month of attendance', unit: 'days/s', run: () => benchRecompute() },
  growth: {
    title: 'Growth: the operations of a larger history, ratio to S',
    unit: '×',
    run: ({ growthSizes, pairs }) => benchGrowth(growthSizes, pairs),
  },
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, 'no-write': { type: 'boolean' }, pairs: { type: 'string' }, 'growth-sizes': { type: 'string' } },
  });
  const growthSizes = (values['growth-sizes'] ?? 'S,M').split(',').map((size) => size.trim());
  const pairs = values.pairs === undefined ? DEFAULT_PAIRS : Number(values.pairs);
  if (!Number.isInteger(pairs) || pairs < 3)
    throw new Error(`--pairs must be a whole number of at least 3 (a range needs several alternated runs), got ${values.pairs}`);
  const names = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(MEASUREMENTS);
  const unknown = names.filter((n) => !(n in MEASUREMENTS));
  if (unknown.length > 0) throw new Error(`unknown measurement(s): ${unknown.join(', ')}; known: ${Object.keys(MEASUREMENTS).join(', ')}`);

  const machine = describeMachine();
  console.log(
    `Fingerprint Attendance bench — ${machine.nproc} CPU (${machine.cpu}), ${machine.memory}, Bun ${machine.bun}, load ${machine.loadAtStart}; ${pairs} alternated pairs per ratio`,
  );
  const figures: Figure[] = [];
  const started = performance.now();
  for (const name of names) {
    const m = MEASUREMENTS[name]!;
    const t0 = performance.now();
    process.stdout.write(`· ${name} … `);
    try {
      const result = await m.run({ pairs, growthSizes });
      figures.push(...result);
      console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.log(`failed: ${message}`);
      figures.push(skippedFigure(name, m.title, m.unit, `failed: ${message}`));
    }
  }
  const totalSeconds = (performance.now() - started) / 1000;
  const loadAtEnd = loadNow();

  const table = renderTable(figures);
  console.log(`\n${table}\n`);
  for (const f of figures) for (const note of [...(f.skipped ? [`not measured: ${f.skipped}`] : []), ...f.notes]) console.log(`  ${f.id}: ${note}`);
  if (!values['no-write'] && !values.only) writeResults(machine, loadAtEnd, figures, table, totalSeconds, pairs);
  console.log(JSON.stringify({ machine: { ...machine, loadAtEnd }, pairs, seconds: Math.round(totalSeconds), results: figures }));
}

function renderTable(figures: Figure[]): string {
  const header = ['Measurement', 'Value', 'Baseline (same run)', 'Ratio', 'Target', 'Met'];
  const rows = figures.map((f) => [
    f.title,
    f.value === null ? 'not measured' : f.ranges ? `${span(f.ranges.value, fmt)} ${f.unit}` : `${fmt(f.value)} ${f.unit}`,
    f.baseline ? `${f.ranges ? span(f.ranges.baseline, fmt) : fmt(f.baseline.value)} ${f.baseline.unit} (${f.baseline.title})` : '—',
    f.ratio == null ? '—' : f.ranges ? `${span(f.ranges.ratio, (n) => n.toFixed(2))}×` : `${f.ratio.toFixed(2)}×`,
    f.target?.text ?? '—',
    f.value === null ? (f.target ? 'not measured' : '—') : f.target ? (f.target.met ? (f.ranges ? `met (${f.ranges.judged} end)` : 'met') : 'MISSED') : '—',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** `low–high` (one number when both ends agree at this precision). */
function span(range: Range, format: (n: number) => string): string {
  const low = format(range.low);
  const high = format(range.high);
  return low === high ? low : `${low}–${high}`;
}

function fmt(n: number): string {
  return n.toLocaleString('en', { maximumFractionDigits: n < 10 ? 2 : n < 1000 ? 1 : 0 });
}

function writeResults(machine: Machine, loadAtEnd: number, figures: Figure[], table: string, seconds: number, pairs: number): void {
  const notes = figures.flatMap((f) => [...(f.skipped ? [`not measured: ${f.skipped}`] : []), ...f.notes].map((n) => `- **${f.id}**: ${n}`));
  const text = `# Benchmark results

Written by \`bun run bench\` (bench/run.ts); re-run it to refresh. Every ratio compares with a
baseline measured in the same run on the same machine, as a RANGE over ${pairs} alternated pairs
(baseline, measurement, baseline, measurement…; each pair's ratio is its measurement over the
baseline run just before it), and a target counts as met only at the worse end of that range
(the LOW end of a rate against a limit).
Values and baselines show their range over the pairs too. Load comes from the bench process
itself (closed loops over keep-alive connections to 127.0.0.1), so on a 2-core machine the
load generator and the server share the CPUs — for the baselines just the same.

## Machine

| | |
|---|---|
| nproc | ${machine.nproc} |
| CPU | ${machine.cpu} |
| memory | ${machine.memory} |
| Bun | ${machine.bun} |
| kernel | ${machine.kernel} |
| measured at | ${machine.date} |
| load average (1 min) | ${machine.loadAtStart} at start, ${loadAtEnd} at the end |
| bench duration | ${Math.round(seconds)} s |
| alternated pairs per ratio | ${pairs} |

## Results

${table}

## Details

${notes.join('\n')}

## What each line measures

Where a line has a baseline, the baseline and the server run alternate ${pairs} times and each pair
gives one ratio: a busy moment on the machine spoils one pair, not the verdict's side, and the
range shows how much the machine's mood moved the figure. The target is judged at the worse end.

1. **Ingest**: 20 approved terminals POST \`/iclock/cdata?table=ATTLOG\` batches of 200 lines,
   20 requests in flight. Each terminal has its own 200 enrollees and each batch is one badge-in
   wave of all of them (four waves a day, so four punches per employee per day); every answer
   must be \`OK:200\` and the stored row count is checked. The punches commit with their
   events, as in production (attendance days and webhooks follow the log). Baselines: the same
   rows (same columns) in a separate file database, one multi-row \`INSERT\` per batch via
   \`@libsql/client\`, one batch after another: into a fresh, migrated copy of the schema
   (full), and into a punch table with only the dedupe index (plain). Each pair runs full,
   plain, the server, the server with endpoints and without, ${pairs} times over; a pair's ratio
   divides by the baselines of that same pair.
   **Ingest with webhooks**: the same upload to the server as a child process (\`bun
   src/server.ts\`, its RSS its own) with 10 endpoints subscribed to \`punch_received\`, each
   with a receiver in the bench process answering 204, delivery running throughout; compared
   with the plain baseline, and with the same child-process run without endpoints.
2. **Polls**: \`GET /iclock/getrequest\` with 50 requests in flight. Idle: 50 approved terminals
   with nothing queued (answer \`OK\`). Queued: 50 other terminals, each topped up to 6,000
   \`add_user\` commands before every queued run (through \`commands.enqueue\` in \`fpa.db.write\`,
   not timed); \`ADMS_MAX_COMMANDS_PER_REQUEST\` is 4 so every poll must carry a full batch of 4
   (read, render, mark sent) for the whole run. Baseline: bare \`Bun.serve\` answering \`OK\`, same
   load generator (Bun's fetch, keep-alive, same process), run right before each server run
   (bare, idle, bare, queued… ${pairs} times).
3. **Backfill**: \`approveDevice\` of one terminal with 10,000 enrollees × 2 fingers in scope
   (bulk-prepared rows, templates encrypted with the instance's key ring); the queued
   \`update_template\` and \`add_user\` commands are counted in the database afterwards.
4. **Fan-out**: \`storeTemplate\` with 500 approved terminals in scope, 20 templates one after
   another (after one warm-up); every call must queue to all 500.
5. **Webhooks**: 1 endpoint, then 10, created over the admin API
   (\`WEBHOOK_ALLOW_PRIVATE_NETWORKS\` on), each subscribed to \`punch_received\`; 10,000
   punches ingested through the punch service in 200-punch batches; time from the first ingest
   until every receiver (\`Bun.serve\` on 127.0.0.1 answering 204, in this process) holds every
   distinct \`webhook-id\`; duplicates counted, a sample of signatures verified, the ingest
   time of both runs compared.
6. **WebSocket RSS**: the server as a child process (\`bun src/server.ts\`, FPA_* settings, a free
   port chosen by the bench, \`WEBSOCKET_MAX_PER_ADMIN\` raised to 1,000 since every subscriber
   uses one token); 1,000 subscribers on \`punches/stream/?after=0&access_token=…\` in the bench
   process; 500 punches posted as ATTLOG, every subscriber must receive all of them;
   the figure is the server's peak RSS (VmHWM, and VmRSS sampled every 50 ms).
7. **Recompute**: 1,000 enrollees with a day shift assigned to their area (100 with their own
   night shift), a month of punches through the punch service (four a workday, two a night),
   50 people on leave for a week, the month's absences generated: every person has a record on
   each of the 31 dates. Timed: \`POST attendance-days/recompute/\` of the month for everyone
   (31,000 days read, planned and computed; none changes), then a change of the day shift's
   start time followed by the attendance follower until every affected day is rewritten.
8. **Growth**: sizes S (100k punches, 1k people, 20 terminals) and M (1M, 10k, 200; L, 10M, with
   \`--growth-sizes=S,M,L\`), each seeded through the punch service's ingest path, four punches a
   person a workday. The sizes are then measured alternately, S, M, S, M… ${pairs} times, each
   time by a server opened on that size's files: the month's export for everyone (time per
   1,000 rows, the server's RSS growth while it streams, and the longest a terminal's poll,
   one after another meanwhile, waited for its answer), one person's month of punches, a week
   of leave until the days caught up (other people each time), every page of one date's
   attendance days. Then ${pairs} retention purges each, alternately, each of the next span of
   the oldest days (time per deleted row, and how long a terminal uploading a line every 5 ms
   waited for its answers meanwhile: the 99th percentile is judged, the longest is in the
   details; with no purge at all the longest of 1,000 such answers read 20 and 74 ms here). The server runs as a child process (\`bun src/server.ts\`)
   on the size's files: its memory and its event loop are its own, as in production.
   Each pair's ratio is M's measurement over S's just before it; flat is at most 2× at the
   range's high end. HR at a glance (the Today board, the console's lists) is measured once at
   each size, each against 200 ms.
9. **A long burst**: the ingest's upload (line 1) with 60 batches per terminal instead of 20,
   about 20 s, past \`ATTENDANCE_MAX_LAG\` (10 s): the attendance days' follower becomes overdue
   and catches up among the uploads. The figure is the 99th percentile of the batches' answer
   times (the longest in the details), against 2 s: an overdue follower once held every
   terminal's answer 9–11 s.
`;
  writeFileSync(join(import.meta.dir, 'RESULTS.md'), text);
}

await main();
