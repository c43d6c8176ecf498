/**
 * Ordered delivery: each endpoint follows the event log from its own position.
 *
 * An instance claims an endpoint that has work (active, not backing off, its lease free, and a
 * subscribed event after its position) by compare-and-set of a claim token and a lease; then
 * it reads the events of the endpoint's types after the position, WEBHOOK_BATCH_SIZE at a
 * time, sends them in sequence order with up to WEBHOOK_CONCURRENCY requests in flight, and
 * moves the position over the unbroken run of events handed off (delivered, or refused with a
 * 4xx at attempt WEBHOOK_MAX_ATTEMPTS or later and dead-lettered as a message row). The position is written only under the claim token,
 * and only for events already answered: a crash, or a worker that stalled past its lease,
 * re-sends and never skips; receivers de-duplicate on `webhook-id`, the event's id.
 *
 * Any other failure (no answer, timeout, 3xx, 5xx, an earlier 4xx: dispatch.ts verdictOf) stops the run: the endpoint
 * backs off (doubling from WEBHOOK_RETRY_BACKOFF, capped at an hour) and retries from its
 * position, so nothing is dropped; later events of that window that happened to succeed are
 * sent again. 410 disables the endpoint; so does failing continuously for
 * WEBHOOK_DISABLE_AFTER. A disabled endpoint keeps its position: enabling it resumes there.
 *
 * Nothing is written at ingest: the cost of a punch does not depend on the number of endpoints.
 */
import { and, asc, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { WriteContext } from '../../platform/db/client';
import { GroupCommit } from '../../platform/db/group-commit';
import { describeError } from '../../platform/errors';
import type { Runtime } from '../../platform/runtime';
import { audit } from '../audit';
import type { EventLog, LoggedEvent } from '../events';
import { retryDelay } from './backoff';
import { type Dispatcher, errorOf, eventMessage, isDelivered, lookupTimeoutOf, MAX_REQUESTS_IN_FLIGHT, type Verdict, verdictOf } from './dispatch';
import type { WebhookResponse } from './sender';
import { webhookDeliveries, webhookEndpoints, webhookMessages } from './tables';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** One endpoint's progress write: false when its claim had passed on. */
type ProgressWriter = GroupCommit<(w: WriteContext) => Promise<boolean>, boolean>;

export interface StreamTotals {
  delivered: number;
  /** Refused by the receiver (4xx): dead-lettered as message rows, passed. */
  dead: number;
  /** Failed attempts that will be retried. */
  retrying: number;
  /** Runs whose write came too late to count (the claim had passed on). */
  stale: number;
}

export const emptyStreamTotals = (): StreamTotals => ({ delivered: 0, dead: 0, retrying: 0, stale: 0 });

export interface StreamHooks {
  /** The endpoint backs off until `at`. */
  retryAt(at: number): void;
}

/** Extra lease beyond the lookups and requests: database writes, scheduling. */
const LEASE_MARGIN_MS = 30_000;
/** An endpoint this far behind the head with nothing to send is still claimed, to move its position on. */
const IDLE_ADVANCE = 1_000;
/** Endpoints checked for work per claim. */
const CANDIDATES = 200;
/** A caught-up endpoint keeps its claim this long, waiting for new events. */
const LINGER_MS = 500;
/** The progress of the endpoints being worked is written this often, all in one transaction. */
const FLUSH_MS = 250;

/**
 * How long an endpoint's claim lasts: a wait for a burst of uploads to pause (WEBHOOK_MAX_LAG),
 * one lookup, then the batch's requests, WEBHOOK_CONCURRENCY at a time, each bounded by the
 * timeout. Each batch written renews it.
 */
export function endpointLeaseOf(requestTimeoutMs: number, batch: number, concurrency: number, maxLagMs = 0): number {
  const requests = Math.ceil(Math.max(1, batch) / Math.max(1, concurrency)) * requestTimeoutMs;
  return maxLagMs + lookupTimeoutOf(requestTimeoutMs) + requests + LEASE_MARGIN_MS;
}

export class OrderedDelivery {
  /** Per endpoint: a position already found to have no subscribed event up to `checkedTo`. */
  private readonly idle = new Map<string, { position: number; checkedTo: number }>();
  /** The endpoints being worked here. */
  private readonly runs = new Set<EndpointRun>();
  /** Their writes, several to a transaction. */
  /** The endpoints' progress writes, committed together (platform/db/group-commit.ts). */
  private readonly writer: ProgressWriter;
  /** Writes their progress every FLUSH_MS while any is worked. */
  private ticker: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly ctx: Runtime,
    private readonly log: EventLog,
    private readonly dispatcher: Dispatcher,
    private readonly hooks: StreamHooks,
  ) {
    this.writer = new GroupCommit(ctx.db, async (w, writes) => {
      const written: boolean[] = [];
      for (const write of writes) written.push(await write(w));
      return written;
    });
  }

  private get batchSize(): number {
    return Math.max(1, this.ctx.settings.WEBHOOK_BATCH_SIZE);
  }

  private get lease(): number {
    const { settings } = this.ctx;
    return endpointLeaseOf(settings.WEBHOOK_TIMEOUT, this.batchSize, settings.WEBHOOK_CONCURRENCY, settings.WEBHOOK_MAX_LAG);
  }

  /**
   * Claims up to `limit` endpoints that have work now (up to `until` when given), leaving out
   * those in `exclude` (the ones this instance is working: should its lease run out early, a
   * clock jump, it must not work one twice). Reads first (an idle poll takes no write lock),
   * then one compare-and-set over the endpoints found.
   */
  async claim(limit: number, until?: number, exclude: ReadonlySet<string> = new Set()): Promise<EndpointRow[]> {
    if (limit <= 0) return [];
    const now = this.ctx.clock.now();
    const head = await this.log.lastSequence();
    const bound = until === undefined ? head : Math.min(until, head);
    const candidates = await this.ctx.db.orm
      .select({ id: webhookEndpoints.id, position: webhookEndpoints.position, events: webhookEndpoints.events })
      .from(webhookEndpoints)
      .where(and(claimable(now), lt(webhookEndpoints.position, bound)))
      .orderBy(asc(webhookEndpoints.nextAttemptAt), asc(webhookEndpoints.id))
      .limit(CANDIDATES);
    const wanted: string[] = [];
    for (const c of candidates) {
      if (wanted.length >= limit) break;
      if (exclude.has(c.id)) continue;
      if (bound - c.position >= IDLE_ADVANCE || (await this.hasWork(c, bound, until !== undefined))) wanted.push(c.id);
    }
    if (wanted.length === 0) return [];
    const token = crypto.randomUUID();
    return this.ctx.db.write(({ tx }) =>
      tx
        .update(webhookEndpoints)
        .set({ claimToken: token, leaseUntil: now + this.lease })
        .where(and(inArray(webhookEndpoints.id, wanted), claimable(now)))
        .returning(),
    );
  }

  /**
   * Whether a subscribed event follows the endpoint's position (up to `bound` when `bounded`),
   * remembering a position found to have none up to `bound`.
   */
  private async hasWork(c: { id: string; position: number; events: string[] }, bound: number, bounded: boolean): Promise<boolean> {
    const known = this.idle.get(c.id);
    const from = known && known.position === c.position ? Math.max(c.position, known.checkedTo) : c.position;
    if (from >= bound) return false;
    const [next] = await this.log.after(from, 1, c.events, { cached: true });
    if (next) return !bounded || next.sequence <= bound;
    if (this.idle.size >= 10_000) this.idle.clear();
    this.idle.set(c.id, { position: c.position, checkedTo: bound });
    return false;
  }

  /**
   * Works a claimed endpoint until it has caught up (with the log's head, or with `until`),
   * fails, loses its claim, or `keepGoing` says stop. Without `until` a caught-up endpoint keeps
   * its claim a moment for the next events (`notify`), so a steady flow is not re-claimed for
   * every commit.
   */
  async work(claimed: EndpointRow, options: { until?: number; keepGoing: () => boolean }): Promise<StreamTotals> {
    const run = new EndpointRun(this.ctx, this.log, this.dispatcher, claimed, {
      ...options,
      lease: this.lease,
      batch: this.batchSize,
      window: () => this.window(),
      writer: this.writer,
    });
    this.runs.add(run);
    this.ticker ??= setInterval(() => {
      for (const r of this.runs) r.flush();
    }, FLUSH_MS);
    try {
      const totals = await run.run();
      if (run.retryAt !== null) this.hooks.retryAt(run.retryAt);
      return totals;
    } finally {
      this.runs.delete(run);
      if (this.runs.size === 0 && this.ticker) {
        clearInterval(this.ticker);
        this.ticker = null;
      }
    }
  }

  /**
   * Requests in flight per endpoint: WEBHOOK_CONCURRENCY, shared out when many endpoints are
   * worked at once so that together they stay within the connections fetch keeps alive
   * (MAX_REQUESTS_IN_FLIGHT): a connection per request would cost more than the window gains.
   */
  private window(): number {
    const share = Math.floor(MAX_REQUESTS_IN_FLIGHT / Math.max(1, this.runs.size));
    return Math.max(1, Math.min(this.ctx.settings.WEBHOOK_CONCURRENCY, share));
  }

  /** New events were appended (or the worker is stopping): endpoints waiting for them look again. */
  notify(): void {
    for (const run of this.runs) run.signal();
  }
}

/** Active, not backing off, its lease free. */
function claimable(now: number) {
  return and(
    eq(webhookEndpoints.active, true),
    lte(webhookEndpoints.nextAttemptAt, now),
    or(isNull(webhookEndpoints.leaseUntil), lt(webhookEndpoints.leaseUntil, now)),
  );
}

/** One event of a run: fetched in order, sent, answered, then handed off (or not). */
interface Entry {
  event: LoggedEvent;
  /** The vetted address to connect to, or why the URL was refused (then nothing is sent). */
  connectTo: string | undefined;
  refused: string | null;
  response: WebhookResponse | null;
  /** What the answer means, decided when it came (it depends on the event's attempt). */
  verdict: Verdict | null;
}

/** What was handed off since the last write. */
interface Progress {
  delivered: number;
  lastDelivered: { event: LoggedEvent; response: WebhookResponse } | null;
  dead: { event: LoggedEvent; response: WebhookResponse }[];
}

const emptyProgress = (): Progress => ({ delivered: 0, lastDelivered: null, dead: [] });

/**
 * One claim of one endpoint, worked as a stream: events are fetched in order after the
 * position, up to WEBHOOK_CONCURRENCY requests are in flight (started in sequence order), and
 * the position follows the unbroken run of answers that hand an event off. The position is
 * written while sending goes on, every FLUSH_MS together with the other endpoints worked here
 * (one transaction), one write at a time per endpoint, so delivery does not wait for the
 * database: under a heavy write load a write simply carries more events. Every write is made
 * under the claim token; one that finds the claim gone stops the run (another instance has the
 * endpoint: it starts from the last position written). A crash re-sends at most what was
 * answered since the last write.
 */
class EndpointRun {
  /** Fetched and not handed off yet, in sequence order; the first `started` of them were sent. */
  private readonly queue: Entry[] = [];
  private started = 0;
  private inFlight = 0;
  /** Every subscribed event up to here has been fetched. */
  private fetched: number;
  private fetching: Promise<void> | null = null;
  private caughtUp = false;
  /** A retryable failure or a 410 was answered: nothing more is started. */
  private halted = false;
  private gone = false;
  /** Handed off up to here (every subscribed event up to it delivered or dead-lettered). */
  private position: number;
  private written: number;
  private progress = emptyProgress();
  private handedInRun = 0;
  private writing: Promise<void> | null = null;
  private lastWriteAt = performance.now();
  private stale = false;
  /** The run's own last write is next: no more progress writes. */
  private finished = false;
  private readonly firstAttempt: number;
  /** The first event after the position as claimed: it carries the endpoint's earlier attempts. */
  private firstSequence: number | null = null;
  private readonly totals = emptyStreamTotals();
  private waiter: (() => void) | null = null;
  private signalled = false;
  /**
   * Since when (`performance.now()`) this run has had events to read; null once it caught up.
   * Its reads yield to a burst of uploads counting from here, so under uploads that never pause
   * it waits WEBHOOK_MAX_LAG once, then reads on until it has caught up.
   */
  private owedSince: number | null = null;
  /** When the endpoint backs off until, if it does. */
  retryAt: number | null = null;

  constructor(
    private readonly ctx: Runtime,
    private readonly log: EventLog,
    private readonly dispatcher: Dispatcher,
    private readonly endpoint: EndpointRow,
    private readonly options: { until?: number; keepGoing: () => boolean; lease: number; batch: number; window: () => number; writer: ProgressWriter },
  ) {
    this.fetched = endpoint.position;
    this.position = endpoint.position;
    this.written = endpoint.position;
    this.firstAttempt = endpoint.attempts + 1;
  }

  private get window(): number {
    return this.options.window();
  }

  /** The attempt an event's request is: the first event after the position carries the endpoint's earlier attempts. */
  private attemptOf(event: LoggedEvent): number {
    return event.sequence === this.firstSequence ? this.firstAttempt : 1;
  }

  signal(): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) waiter();
    else this.signalled = true;
  }

  private nextSignal(): Promise<void> {
    if (this.signalled) {
      this.signalled = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Waits for a signal or `ms`; true when signalled. */
  private async signalWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const woke = await Promise.race([this.nextSignal().then(() => true), timeout]);
    if (timer) clearTimeout(timer);
    return woke;
  }

  private get sending(): boolean {
    return !this.halted && !this.stale && this.options.keepGoing();
  }

  async run(): Promise<StreamTotals> {
    for (;;) {
      this.pump();
      if (this.stale) break;
      const idle = this.inFlight === 0 && this.fetching === null && (this.started === this.queue.length || !this.sending);
      if (idle) {
        if (this.halted || !this.options.keepGoing()) break;
        if (this.caughtUp && this.started === this.queue.length) {
          if (this.options.until !== undefined) break;
          const woke = await this.signalWithin(LINGER_MS);
          if (!this.options.keepGoing()) break;
          if ((await this.log.lastSequence()) > this.fetched) {
            this.caughtUp = false;
            continue;
          }
          if (!woke) break;
          continue;
        }
      }
      await this.nextSignal();
    }
    while (this.inFlight > 0 || this.fetching) await this.nextSignal();
    this.popHandedOff();
    this.finished = true;
    if (this.writing) await this.writing;
    if (!this.stale) await this.write(true);
    return this.totals;
  }

  /** Hands off what was answered, starts what may start, fetches ahead, writes progress. */
  private pump(): void {
    this.popHandedOff();
    if (this.sending) {
      while (this.inFlight < this.window && this.started < this.queue.length) this.start(this.queue[this.started++]!);
      if (this.fetching === null && !this.caughtUp && this.queue.length - this.started < this.window) {
        this.fetching = this.fetch()
          .catch((error: unknown) => {
            // A failed read ends the run like a failed request: it is tried again from the position.
            this.ctx.log.warn('webhook events could not be read', { endpoint: this.endpoint.id, error: describeError(error) });
            this.halted = true;
          })
          .finally(() => {
            this.fetching = null;
            this.signal();
          });
      }
    }
  }

  private async fetch(): Promise<void> {
    const { until, batch } = this.options;
    // Terminals first: the upload being parsed now would wait behind these reads and requests.
    this.owedSince ??= performance.now();
    await this.ctx.uploads.pause(this.owedSince, () => this.sending);
    // The head first: every event up to it has committed, so a short read holds every
    // subscribed event up to the head.
    const head = await this.log.lastSequence();
    // Every endpoint reads these events in turn: the punches they show are read once (events/shown-cache.ts).
    const events = await this.log.after(this.fetched, batch, this.endpoint.events, { cached: true });
    const usable = until === undefined ? events : events.filter((e) => e.sequence <= until);
    const vetted = usable.length > 0 ? await this.dispatcher.vet(this.endpoint.url) : null;
    for (const event of usable) {
      this.firstSequence ??= event.sequence;
      this.queue.push({
        event,
        connectTo: vetted?.ok ? vetted.connectTo : undefined,
        refused: vetted && !vetted.ok ? vetted.error : null,
        response: null,
        verdict: null,
      });
    }
    const last = usable[usable.length - 1]?.sequence ?? this.fetched;
    if (events.length < batch || usable.length < events.length) {
      this.caughtUp = true;
      this.owedSince = null;
      this.fetched = Math.max(this.fetched, last, until === undefined ? head : Math.min(head, until));
    } else {
      this.fetched = last;
    }
  }

  private start(entry: Entry): void {
    this.inFlight++;
    const sent = entry.refused
      ? Promise.resolve<WebhookResponse>({ statusCode: null, error: entry.refused, durationMs: 0 })
      : this.dispatcher.send(this.endpoint, eventMessage(entry.event), entry.connectTo);
    void sent
      .catch((error: unknown): WebhookResponse => ({ statusCode: null, error: describeError(error), durationMs: 0 }))
      .then((response) => {
        entry.response = response;
        const verdict = verdictOf(response, this.attemptOf(entry.event), this.ctx.settings.WEBHOOK_MAX_ATTEMPTS);
        entry.verdict = verdict;
        if (verdict === 'retry' || verdict === 'gone') this.halted = true;
        if (verdict === 'gone') this.gone = true;
        this.inFlight--;
        this.signal();
      });
  }

  /** Moves the position over the answered events at the front that are handed off. */
  private popHandedOff(): void {
    while (this.queue.length > 0) {
      const entry = this.queue[0]!;
      if (!entry.response) break;
      const verdict = entry.verdict;
      if (verdict === 'delivered') {
        this.progress.delivered++;
        this.progress.lastDelivered = { event: entry.event, response: entry.response };
      } else if (verdict === 'refused') {
        this.progress.dead.push({ event: entry.event, response: entry.response });
      } else break;
      this.position = entry.event.sequence;
      this.handedInRun++;
      this.queue.shift();
      this.started--;
    }
    // Nothing fetched is left: everything up to what was read is handed off.
    if (this.queue.length === 0) this.position = Math.max(this.position, this.fetched);
  }

  /**
   * Starts a write of the progress made since the last one, unless one is under way (called for
   * every endpoint worked here on one tick, so their writes share a transaction).
   */
  flush(): void {
    if (this.writing || this.stale || this.finished) return;
    const handed = this.progress.delivered + this.progress.dead.length;
    if (handed === 0 && this.position === this.written) return;
    this.writing = this.write(false).finally(() => {
      this.writing = null;
      this.signal();
    });
  }

  /**
   * Writes the position and what was handed off since the last write, under the claim token; the
   * last write of the run also decides the endpoint's state (healthy, backing off, disabled)
   * and gives up the claim.
   */
  private async write(final: boolean): Promise<void> {
    const { settings } = this.ctx;
    const endpoint = this.endpoint;
    const progress = this.progress;
    this.progress = emptyProgress();
    const position = this.position;
    const now = this.ctx.clock.now();
    const lease = now + this.options.lease;
    // Failed answers not handed off (they will be sent again): logged with the run's last write.
    const unhanded = final ? this.queue.filter((e) => e.response !== null && !isDelivered(e.response)) : [];
    const failure = final ? (this.queue[0]?.response ?? null) : null;
    let set: Partial<typeof webhookEndpoints.$inferInsert>;
    let disabledReason: string | null = null;
    let nextRetry: number | null = null;
    if (final && this.gone) {
      disabledReason = 'the endpoint answered 410 Gone';
      set = { active: false, disabledReason, leaseUntil: null, claimToken: null, lastError: 'HTTP 410' };
    } else if (final && failure !== null && !isDelivered(failure)) {
      const failingSince = this.handedInRun > 0 || endpoint.failingSince === null ? now : endpoint.failingSince;
      const attempts = this.handedInRun > 0 ? 1 : endpoint.attempts + 1;
      nextRetry = now + retryDelay(attempts, settings.WEBHOOK_RETRY_BACKOFF);
      if (now - failingSince >= settings.WEBHOOK_DISABLE_AFTER) disabledReason = `failing continuously since ${new Date(failingSince).toISOString()}`;
      set = {
        attempts,
        failingSince,
        nextAttemptAt: nextRetry,
        lastError: errorOf(failure),
        leaseUntil: null,
        claimToken: null,
        ...(disabledReason ? { active: false, disabledReason } : {}),
      };
    } else {
      const lastDead = progress.dead[progress.dead.length - 1];
      set = {
        attempts: 0,
        failingSince: null,
        lastError: lastDead ? errorOf(lastDead.response) : progress.delivered > 0 ? null : endpoint.lastError,
        ...(final ? { nextAttemptAt: now, leaseUntil: null, claimToken: null } : { leaseUntil: lease }),
      };
    }
    if (progress.delivered > 0) set.lastDeliveredAt = now;
    set.position = position;

    const attemptOf = (event: LoggedEvent) => this.attemptOf(event);
    const log: (typeof webhookDeliveries.$inferInsert)[] = [];
    for (const { event, response } of progress.dead) log.push(attemptRow(endpoint.id, event.id, attemptOf(event), response, null, now));
    for (const { event, response } of unhanded) {
      log.push(attemptRow(endpoint.id, event.id, attemptOf(event), response!, disabledReason || this.gone ? null : nextRetry, now));
    }
    if (progress.lastDelivered) {
      log.push({
        messageId: progress.lastDelivered.event.id,
        endpointId: endpoint.id,
        attempt: progress.delivered === 1 ? attemptOf(progress.lastDelivered.event) : this.firstAttempt,
        count: progress.delivered,
        statusCode: progress.lastDelivered.response.statusCode,
        error: null,
        durationMs: Math.round(performance.now() - this.lastWriteAt),
        nextRetryAt: null,
        createdAt: now,
      });
    }

    const written = await this.options.writer.submit(async ({ tx }) => {
      const [row] = await tx
        .update(webhookEndpoints)
        .set(set)
        .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.claimToken, endpoint.claimToken ?? '')))
        .returning({ id: webhookEndpoints.id });
      if (!row) return false;
      if (progress.dead.length > 0) {
        await tx
          .insert(webhookMessages)
          .values(
            progress.dead.map(({ event, response }) => ({
              endpointId: endpoint.id,
              eventSequence: event.sequence,
              eventId: event.id,
              eventType: event.type,
              eventAt: event.at,
              status: 'dead' as const,
              attempts: attemptOf(event),
              nextAttemptAt: now,
              lastError: errorOf(response),
              createdAt: now,
            })),
          )
          .onConflictDoNothing();
      }
      if (log.length > 0) await tx.insert(webhookDeliveries).values(log);
      if (disabledReason) {
        await audit(tx, now, {
          actor: 'system',
          action: 'webhook.disabled',
          targetType: 'webhook',
          targetId: endpoint.id,
          details: { reason: disabledReason },
        });
      }
      return true;
    });
    this.lastWriteAt = performance.now();
    if (!written) {
      this.stale = true;
      this.totals.stale++;
      return;
    }
    this.written = position;
    const failed = unhanded.filter((e) => e.verdict !== 'refused').length;
    this.totals.delivered += progress.delivered;
    this.totals.dead += progress.dead.length;
    this.totals.retrying += disabledReason || this.gone ? 0 : failed;
    const { metrics } = this.ctx;
    if (progress.delivered > 0) metrics.webhookDeliveries.inc({ outcome: 'delivered' }, progress.delivered);
    if (progress.dead.length > 0) metrics.webhookDeliveries.inc({ outcome: 'dead' }, progress.dead.length);
    if (failed > 0) metrics.webhookDeliveries.inc({ outcome: 'failed' }, failed);
    if (disabledReason) this.ctx.log.warn(`webhook endpoint disabled: ${disabledReason}`, { endpoint: endpoint.id });
    else if (nextRetry !== null) this.retryAt = nextRetry;
  }
}

function attemptRow(
  endpointId: string,
  messageId: string,
  attempt: number,
  response: WebhookResponse,
  nextRetryAt: number | null,
  now: number,
): typeof webhookDeliveries.$inferInsert {
  return {
    messageId,
    endpointId,
    attempt,
    count: 1,
    statusCode: response.statusCode,
    error: errorOf(response),
    durationMs: response.durationMs,
    nextRetryAt,
    createdAt: now,
  };
}
