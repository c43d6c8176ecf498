/**
 * 2. Command polls per second against a bare `Bun.serve` answering `OK`, with the same load
 * generator (closed loop, N keep-alive requests in flight from this process).
 *
 * Idle: approved terminals with nothing queued; every answer must be `OK`.
 * Queued: every terminal has commands pending before the run (queued through
 * `commands.enqueue` inside `fpa.db.write`, not timed) and the server sends at most
 * `commandsPerPoll` per poll, so every counted poll takes a real batch (read, render, mark sent).
 */
import type { NewCommand } from '../src/modules/commands/kinds';
import { approvedDevices, bareBunServer, closedLoop, type Figure, hasRoute, type LoadResult, round, skippedFigure, slices, startBenchServer } from './support';

export interface PollOptions {
  devices: number;
  concurrency: number;
  seconds: number;
  commandsPerPoll: number;
  /** Commands queued per device for the queued run (bounds its request count). */
  queuedPerDevice: number;
}

export const POLL_DEFAULTS: PollOptions = { devices: 50, concurrency: 50, seconds: 5, commandsPerPoll: 4, queuedPerDevice: 10_000 };

const TARGET = '≥ 0.3× bare Bun';
const UNIT = 'polls/s';

export async function benchPolls(options: PollOptions = POLL_DEFAULTS): Promise<Figure[]> {
  const idleTitle = `getrequest polls, idle (${options.devices} devices, ${options.concurrency} in flight)`;
  const queuedTitle = `getrequest polls, queued (${options.commandsPerPoll} commands per poll)`;
  const server = await pollServer(options);
  try {
    // Bare Bun and the server alternate, twice each, and each keeps its better run: a noisy
    // neighbour during one run then favours neither side.
    const bare1 = await bareReference(options);
    const run1 = 'skipped' in server ? null : await server.run();
    const bare2 = await bareReference(options);
    const run2 = 'skipped' in server ? null : await server.run();
    const reference = bare1.perSecond >= bare2.perSecond ? bare1 : bare2;
    const baseline = { title: 'bare Bun.serve answering OK', value: round(reference.perSecond, 0), unit: 'req/s' };
    if ('skipped' in server || !run1 || !run2) {
      const reason = 'skipped' in server ? server.skipped : 'not run';
      return [
        { ...skippedFigure('polls-idle', idleTitle, UNIT, reason, TARGET), baseline },
        { ...skippedFigure('polls-queued', queuedTitle, UNIT, reason, TARGET), baseline },
      ];
    }
    const figure = (id: string, title: string, runs: [LoadResult, LoadResult], extra: string[]): Figure => {
      const r = runs[0].perSecond >= runs[1].perSecond ? runs[0] : runs[1];
      const ratio = r.perSecond / reference.perSecond;
      const errors = runs[0].errors + runs[1].errors;
      const firstError = runs[0].firstError ?? runs[1].firstError;
      return {
        id,
        title,
        value: round(r.perSecond, 0),
        unit: UNIT,
        baseline,
        ratio: round(ratio, 3),
        target: { text: TARGET, met: ratio >= 0.3 && errors === 0 },
        notes: [
          `best of 2: ${r.requests} polls in ${round(r.seconds, 2)} s; runs: ${round(runs[0].perSecond, 0)} and ${round(runs[1].perSecond, 0)} polls/s; ${errors} errors${firstError ? ` (first: ${firstError})` : ''}`,
          ...extra,
        ],
      };
    };
    const sent = run1.sentCommands + run2.sentCommands;
    const queuedSeconds = run1.queued.seconds + run2.queued.seconds;
    return [
      figure('polls-idle', idleTitle, [run1.idle, run2.idle], [`bare Bun (best of 2): ${round(bare1.perSecond, 0)} and ${round(bare2.perSecond, 0)} req/s`]),
      figure('polls-queued', queuedTitle, [run1.queued, run2.queued], [`${sent} commands sent over both runs (${round(sent / queuedSeconds, 0)} commands/s)`]),
    ];
  } finally {
    if (!('skipped' in server)) await server.close();
  }
}

async function bareReference(options: PollOptions): Promise<LoadResult> {
  const bare = bareBunServer();
  try {
    const url = `${bare.url}/iclock/getrequest?SN=BENCHPOLL000`;
    const check = (status: number, body: string) => status === 200 && body === 'OK';
    await closedLoop({ concurrency: options.concurrency, seconds: 1, maxRequests: 5_000_000, request: () => fetch(url), check });
    return await closedLoop({ concurrency: options.concurrency, seconds: options.seconds, maxRequests: 5_000_000, request: () => fetch(url), check });
  } finally {
    bare.stop();
  }
}

interface PollRun {
  idle: LoadResult;
  queued: LoadResult;
  sentCommands: number;
}

/** The server with its approved terminals and their filled queues; `run()` measures once. */
async function pollServer(options: PollOptions): Promise<{ run(): Promise<PollRun>; close(): Promise<void> } | { skipped: string }> {
  const server = await startBenchServer('fpa-bench-polls-', { ADMS_MAX_COMMANDS_PER_REQUEST: options.commandsPerPoll });
  const { fpa } = server;
  const prefix = fpa.settings.ADMS_URL_PREFIX;
  if (!hasRoute(server, 'GET', `${prefix}getrequest`)) {
    await server.close();
    return { skipped: 'the ADMS getrequest route is not mounted yet' };
  }
  const serials = Array.from({ length: options.devices }, (_, i) => `BENCHPOLL${String(i).padStart(3, '0')}`);
  const idleSerials = serials.map((s) => `${s}I`);
  await approvedDevices(fpa, [...serials, ...idleSerials]);
  // Queued devices get their commands now (not timed); idle ones never get any.
  const devices = await Promise.all(serials.map((s) => fpa.service.devices.get(s)));
  const commands: NewCommand[] = devices.flatMap((d) =>
    Array.from({ length: options.queuedPerDevice }, (_, i) => ({
      deviceId: d.id,
      kind: 'add_user' as const,
      payload: { pin: String(100_000 + i), name: `Bench User ${i}` },
    })),
  );
  for (const part of slices(commands, 10_000)) {
    await fpa.db.write(async (w) => {
      await fpa.service.commands.enqueue(w, part);
    });
  }
  const url = (serial: string) => `${server.url}${prefix}getrequest?SN=${serial}`;
  const idleCheck = (status: number, body: string) => (status === 200 && body.trim() === 'OK') || `idle poll answered HTTP ${status} "${body.slice(0, 60)}"`;
  let warmed = false;

  const run = async (): Promise<PollRun> => {
    if (!warmed) {
      await closedLoop({
        concurrency: options.concurrency,
        seconds: 1,
        maxRequests: 5_000_000,
        request: (w) => fetch(url(idleSerials[w % idleSerials.length]!)),
        check: idleCheck,
      });
      warmed = true;
    }
    const idle = await closedLoop({
      concurrency: options.concurrency,
      seconds: options.seconds,
      maxRequests: 5_000_000,
      request: (w) => fetch(url(idleSerials[w % idleSerials.length]!)),
      check: idleCheck,
    });
    // Every poll of a queued device must carry a full batch until the time is up.
    const drained = new Set<number>();
    let sentCommands = 0;
    const queued = await closedLoop({
      concurrency: Math.min(options.concurrency, options.devices),
      seconds: options.seconds,
      maxRequests: options.devices * Math.floor(options.queuedPerDevice / options.commandsPerPoll),
      request: (w) => fetch(url(serials[w]!)),
      workerDone: (w) => drained.has(w),
      check: (status, body, w) => {
        if (status !== 200) return `queued poll answered HTTP ${status}`;
        const lines = body.split('\n').filter((l) => l.startsWith('C:'));
        if (lines.length === 0) {
          drained.add(w);
          return body.trim() === 'OK' ? 'a queue ran dry (raise queuedPerDevice)' : `unexpected poll answer "${body.slice(0, 60)}"`;
        }
        sentCommands += lines.length;
        return lines.length === options.commandsPerPoll || `a poll carried ${lines.length} commands, expected ${options.commandsPerPoll}`;
      },
    });
    return { idle, queued, sentCommands };
  };
  return { run, close: () => server.close() };
}
