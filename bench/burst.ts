/**
 * 9. A long burst: the ingest's terminals (bench/ingest.ts) upload three times as many batches,
 * about 20 s at this rate, so that the attendance days' follower, which yields to uploads for up
 * to ATTENDANCE_MAX_LAG (10 s), becomes overdue and catches up among them. Every upload must
 * still be answered promptly. Its writes settle through promises alone: an overdue follower
 * once ran its steps back to back without a turn of the event loop, and every terminal waited
 * 9–11 s for its answer at once.
 */
import { httpIngest, INGEST_DEFAULTS } from './ingest';
import { type Figure, round, skippedFigure } from './support';

const BATCHES_PER_TERMINAL = 60;
/** A terminal's upload answered within this at the 99th percentile (ms), while the days catch up. */
const P99_TARGET_MS = 2_000;

export async function benchBurst(): Promise<Figure[]> {
  const options = { ...INGEST_DEFAULTS, batchesPerTerminal: BATCHES_PER_TERMINAL };
  const title = `A long burst (${options.terminals} terminals × ${BATCHES_PER_TERMINAL} batches of ${options.linesPerBatch}): an upload answered within, while the days catch up (99th percentile)`;
  const target = `≤ ${P99_TARGET_MS.toLocaleString('en')} ms`;
  const measured = await httpIngest(options);
  if ('skipped' in measured) return [skippedFigure('burst', title, 'ms', measured.skipped, target)];
  return [
    {
      id: 'burst',
      title,
      value: round(measured.p99, 0),
      unit: 'ms',
      target: { text: target, met: measured.p99 <= P99_TARGET_MS },
      notes: [
        `${measured.rows} rows in ${round(measured.seconds, 1)} s (${round(measured.rowsPerSecond, 0)} rows/s), ${measured.requests} requests; p50 ${round(measured.p50, 0)} ms, p99 ${round(measured.p99, 0)} ms, longest ${round(measured.longest, 0)} ms per batch`,
      ],
    },
  ];
}
