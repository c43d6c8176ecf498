/**
 * 2. Command polls per second against a bare `Bun.serve` answering `OK`, with the same load
 * generator (closed loop, N keep-alive requests in flight from this process).
 *
 * Idle: approved terminals with nothing queued; every answer must be `OK`.
 * Queued: every terminal has commands pending before each run (queued through
 * `commands.enqueue` inside `fpa.db.write`, not timed, topped up between runs) and the server
 * sends at most `commandsPerPoll` per poll, so every counted poll takes a real batch (read,
 * render, mark sent).
 *
 * Bare Bun and the server alternate, each server run right after its own bare run (bare, idle,
 * bare, queued, bare, idle…): each pair gives one ratio, reported as the range over the pairs
 * (support.ts `pairedFigure`), so load that comes and goes on the machine spoils a pair, not a side.
 */
import type { NewCommand } from '../src/modules/commands/kinds';
import {
  approvedDevices,
  bareBunServer,
  closedLoop,
  DEFAULT_PAIRS,
  type Figure,
  hasRoute,
  type LoadResult,
  pairedFigure,
  round,
  skippedFigure,
  slices,
  startBenchServer,
} from './support';

export interface PollOptions {
  devices: number;
  concurrency: number;
  seconds: number;
  commandsPerPoll: number;
  /** Commands pending per device at the start of every queued run (bounds its request count). */
  queuedPerDevice: number;
}

export const POLL_DEFAULTS: PollOptions = { devices: 50, concurrency: 50, seconds: 5, commandsPerPoll: 4, queuedPerDevice: 6_000 };

const TARGET = '≥ 0.3× bare Bun';
const UNIT = 'polls/s';

export async function benchPolls(options: PollOptions = POLL_DEFAULTS, pairs = DEFAULT_PAIRS): Promise<Figure[]> {
  const idleTitle = `getrequest polls, idle (${options.devices} devices, ${options.concurrency} in flight)`;
  const queuedTitle = `getrequest polls, queued (${options.commandsPerPoll} commands per poll)`;
  const server = await pollServer(options);
  try {
    if ('skipped' in server) {
      return [skippedFigure('polls-idle', idleTitle, UNIT, server.skipped, TARGET), skippedFigure('polls-queued', queuedTitle, UNIT, server.skipped, TARGET)];
    }
    const idle: Pair<LoadResult>[] = [];
    const queued: Pair<QueuedRun>[] = [];
    for (let i = 0; i < pairs; i++) {
      idle.push({ bare: await bareReference(options), run: await server.idle() });
      queued.push({ bare: await bareReference(options), run: await server.queued() });
    }
    const baseline = { title: 'bare Bun.serve answering OK', unit: 'req/s' };
    const line = (id: string, title: string, measured: Pair<LoadResult>[], extra: string[]): Figure => {
      const results = measured.map((p) => p.run);
      const errors = results.reduce((n, r) => n + r.errors, 0);
      const firstError = results.find((r) => r.firstError)?.firstError;
      return pairedFigure({
        id,
        title,
        unit: UNIT,
        baseline,
        pairs: measured.map((p) => ({ baseline: p.bare.perSecond, value: p.run.perSecond })),
        target: { text: TARGET, atLeast: 0.3 },
        ok: errors === 0,
        notes: [
          `${results.reduce((n, r) => n + r.requests, 0)} polls in ${round(
            results.reduce((n, r) => n + r.seconds, 0),
            1,
          )} s; ${errors} errors${firstError ? ` (first: ${firstError})` : ''}`,
          ...extra,
        ],
      });
    };
    const sent = queued.reduce((n, p) => n + p.run.sentCommands, 0);
    const queuedSeconds = queued.reduce((n, p) => n + p.run.seconds, 0);
    return [
      line('polls-idle', idleTitle, idle, []),
      line('polls-queued', queuedTitle, queued, [`${sent} commands sent over the ${pairs} runs (${round(sent / queuedSeconds, 0)} commands/s)`]),
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

interface Pair<T> {
  bare: LoadResult;
  run: T;
}

interface QueuedRun extends LoadResult {
  sentCommands: number;
}

interface PollServer {
  /** One idle run (the first one after a warm-up). */
  idle(): Promise<LoadResult>;
  /** Fills the queues (not timed), then one queued run. */
  queued(): Promise<QueuedRun>;
  close(): Promise<void>;
}

/** The server with its approved terminals, idle ones and ones with commands queued. */
async function pollServer(options: PollOptions): Promise<PollServer | { skipped: string }> {
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
  const devices = await Promise.all(serials.map((s) => fpa.service.devices.get(s)));
  // What each queued device has pending now; every command a new PIN (an add_user for a PIN
  // still pending would replace it in place rather than queue behind it).
  const pending = devices.map(() => 0);
  let nextPin = 100_000;
  const topUp = async () => {
    const commands: NewCommand[] = devices.flatMap((d, i) => {
      const missing = options.queuedPerDevice - pending[i]!;
      pending[i] = options.queuedPerDevice;
      return Array.from({ length: missing }, () => {
        const pin = String(nextPin++);
        return { deviceId: d.id, kind: 'add_user' as const, payload: { pin, name: `Bench User ${pin}` } };
      });
    });
    for (const part of slices(commands, 10_000)) {
      await fpa.db.write(async (w) => {
        await fpa.service.commands.enqueue(w, part);
      });
    }
  };
  const url = (serial: string) => `${server.url}${prefix}getrequest?SN=${serial}`;
  const idleCheck = (status: number, body: string) => (status === 200 && body.trim() === 'OK') || `idle poll answered HTTP ${status} "${body.slice(0, 60)}"`;
  let warmed = false;

  const idle = async (): Promise<LoadResult> => {
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
    return closedLoop({
      concurrency: options.concurrency,
      seconds: options.seconds,
      maxRequests: 5_000_000,
      request: (w) => fetch(url(idleSerials[w % idleSerials.length]!)),
      check: idleCheck,
    });
  };
  const queued = async (): Promise<QueuedRun> => {
    await topUp();
    // Every poll of a queued device must carry a full batch until the time is up.
    const drained = new Set<number>();
    let sentCommands = 0;
    const result = await closedLoop({
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
        pending[w]! -= lines.length;
        return lines.length === options.commandsPerPoll || `a poll carried ${lines.length} commands, expected ${options.commandsPerPoll}`;
      },
    });
    return { ...result, sentCommands };
  };
  return { idle, queued, close: () => server.close() };
}
