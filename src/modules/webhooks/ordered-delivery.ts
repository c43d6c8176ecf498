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
 * Any other failure (no answer, timeout, 3xx, 5xx, an earlier 4xx: dispatch.ts verdictOf) stops the run, and so does a
 * dead letter (one message per try while failing, never a burst of dead letters): the endpoint
 * backs off (doubling from WEBHOOK_RETRY_BACKOFF, capped at an hour) and retries from its
 * position, so nothing is dropped; later events of that window that happened to succeed are
 * sent again. A failing endpoint is sent one event at a time until the receiver accepts one, and
 * every send of an event counts as an attempt of that event (tries.ts). 410 disables the
 * endpoint; so does failing continuously for WEBHOOK_DISABLE_AFTER (a dead letter is a failure:
 * only an accepted delivery ends it). A disabled endpoint keeps its position: enabling it
 * resumes there.
 *
 * Nothing is written at ingest: the cost of a punch does not depend on the number of endpoints.
 */
import { and, asc, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import { GroupCommit } from '../../platform/db/group-commit';
import type { EventLog } from '../events';
import { type Dispatcher, lookupTimeoutOf, MAX_REQUESTS_IN_FLIGHT } from './dispatch';
import { type EndpointRow, EndpointRun, FLUSH_MS, type ProgressWriter, type StreamTotals } from './endpoint-run';
import type { WebhookRuntime } from './runtime';
import { webhookEndpoints } from './tables';

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
    private readonly ctx: WebhookRuntime,
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

export { type EndpointRow, emptyStreamTotals, type StreamTotals } from './endpoint-run';
