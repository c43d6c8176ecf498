/**
 * Ordered delivery: each endpoint follows the event log from its own position.
 *
 * An instance claims an endpoint that has work (active, not backing off, its lease free, and a
 * subscribed event after its position) by compare-and-set of a claim token and a lease; then,
 * batch after batch, it reads the next events of the endpoint's types after the position, sends
 * them in sequence order with up to WEBHOOK_CONCURRENCY requests in flight, and moves the
 * position to the last event of the unbroken run of events handed off (delivered, or refused
 * with a 4xx and dead-lettered as a message row): one UPDATE per batch, written only under the
 * claim token. A crash, or a worker that stalled past its lease, therefore re-sends and never
 * skips: receivers de-duplicate on `webhook-id`, the event's id.
 *
 * A retryable failure (no answer, timeout, 408, 425, 429, 3xx, 5xx) stops the batch: the
 * endpoint backs off (doubling from WEBHOOK_RETRY_BACKOFF, capped at an hour) and retries from
 * its position, so nothing is dropped; later events of that window that happened to succeed
 * are sent again. 410 disables the endpoint; so does failing continuously for
 * WEBHOOK_DISABLE_AFTER. A disabled endpoint keeps its position: enabling it resumes there.
 *
 * Nothing is written at ingest: the cost of a punch does not depend on the number of endpoints.
 */
import { and, asc, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { Runtime } from '../../platform/runtime';
import { audit } from '../audit';
import type { EventLog, LoggedEvent } from '../events';
import { retryDelay } from './backoff';
import { type Dispatcher, errorOf, eventMessage, lookupTimeoutOf, verdictOf } from './dispatch';
import type { WebhookResponse } from './sender';
import { webhookDeliveries, webhookEndpoints, webhookMessages } from './tables';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface StreamTotals {
  delivered: number;
  /** Refused by the receiver (4xx): dead-lettered as message rows, passed. */
  dead: number;
  /** Failed attempts that will be retried. */
  retrying: number;
  /** Batches whose outcome came too late to count (the claim had passed on). */
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

/**
 * How long an endpoint's claim lasts: one lookup, then the batch's requests, WEBHOOK_CONCURRENCY
 * at a time, each bounded by the timeout. Each batch written renews it.
 */
export function endpointLeaseOf(requestTimeoutMs: number, batch: number, concurrency: number): number {
  return lookupTimeoutOf(requestTimeoutMs) + Math.ceil(Math.max(1, batch) / Math.max(1, concurrency)) * requestTimeoutMs + LEASE_MARGIN_MS;
}

interface Batch {
  totals: StreamTotals;
  /** The endpoint as written, still claimed: there is more to send now. */
  next: EndpointRow | null;
}

export class OrderedDelivery {
  /** Per endpoint: a position already found to have no subscribed event up to `checkedTo`. */
  private readonly idle = new Map<string, { position: number; checkedTo: number }>();

  constructor(
    private readonly ctx: Runtime,
    private readonly log: EventLog,
    private readonly dispatcher: Dispatcher,
    private readonly hooks: StreamHooks,
  ) {}

  private get batchSize(): number {
    return Math.max(1, this.ctx.settings.WEBHOOK_BATCH_SIZE);
  }

  private get lease(): number {
    const { settings } = this.ctx;
    return endpointLeaseOf(settings.WEBHOOK_TIMEOUT, this.batchSize, settings.WEBHOOK_CONCURRENCY);
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
    const [next] = await this.log.after(from, 1, c.events);
    if (next) return !bounded || next.sequence <= bound;
    if (this.idle.size >= 10_000) this.idle.clear();
    this.idle.set(c.id, { position: c.position, checkedTo: bound });
    return false;
  }

  /**
   * Works a claimed endpoint, batch after batch, until it has caught up (with the log's head,
   * or with `until`), fails, loses its claim, or `keepGoing` says stop.
   */
  async work(claimed: EndpointRow, options: { until?: number; keepGoing: () => boolean }): Promise<StreamTotals> {
    const totals = emptyStreamTotals();
    let endpoint: EndpointRow | null = claimed;
    while (endpoint) {
      const batch = await this.batch(endpoint, options);
      for (const key of Object.keys(totals) as (keyof StreamTotals)[]) totals[key] += batch.totals[key];
      endpoint = batch.next;
    }
    return totals;
  }

  private async batch(endpoint: EndpointRow, options: { until?: number; keepGoing: () => boolean }): Promise<Batch> {
    const size = this.batchSize;
    // The head first: every event up to it has committed, so a batch shorter than `size`
    // holds every subscribed event up to the head.
    const head = await this.log.lastSequence();
    const events = await this.log.after(endpoint.position, size, endpoint.events);
    const started = performance.now();
    const responses: WebhookResponse[] = [];
    if (events.length > 0) {
      const vetted = await this.dispatcher.vet(endpoint.url);
      if (vetted.ok) await this.sendInOrder(endpoint, events, vetted.connectTo, responses);
      else responses.push({ statusCode: null, error: vetted.error, durationMs: 0 });
    }
    const outcome = settle(endpoint, events, responses, head, size);
    const now = this.ctx.clock.now();
    const { settings } = this.ctx;

    let failingSince: number | null = null;
    let attempts = 0;
    let nextAttemptAt = now;
    let disabledReason: string | null = null;
    if (outcome.gone) disabledReason = 'the endpoint answered 410 Gone';
    else if (outcome.failure) {
      failingSince = outcome.handed > 0 || endpoint.failingSince === null ? now : endpoint.failingSince;
      attempts = outcome.handed > 0 ? 1 : endpoint.attempts + 1;
      nextAttemptAt = now + retryDelay(attempts, settings.WEBHOOK_RETRY_BACKOFF);
      if (now - failingSince >= settings.WEBHOOK_DISABLE_AFTER) disabledReason = `failing continuously since ${new Date(failingSince).toISOString()}`;
    }
    const more =
      !outcome.failure &&
      !outcome.gone &&
      options.keepGoing() &&
      (options.until === undefined || outcome.position < options.until) &&
      (events.length === size || (await this.log.lastSequence()) > outcome.position);
    const lastError = outcome.failure
      ? errorOf(outcome.failure.response)
      : outcome.dead.length > 0
        ? errorOf(outcome.dead[outcome.dead.length - 1]!.response)
        : null;
    const elapsed = Math.round(performance.now() - started);

    const written = await this.ctx.db.write(async ({ tx }) => {
      const [row] = await tx
        .update(webhookEndpoints)
        .set({
          position: outcome.position,
          attempts,
          nextAttemptAt,
          failingSince,
          lastError,
          ...(outcome.delivered > 0 ? { lastDeliveredAt: now } : {}),
          ...(disabledReason ? { active: false, disabledReason } : {}),
          leaseUntil: more ? now + this.lease : null,
          claimToken: more ? endpoint.claimToken : null,
        })
        .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.claimToken, endpoint.claimToken ?? '')))
        .returning();
      if (!row) return null;
      if (outcome.dead.length > 0) {
        await tx
          .insert(webhookMessages)
          .values(
            outcome.dead.map(({ event, response }) => ({
              endpointId: endpoint.id,
              eventSequence: event.sequence,
              eventId: event.id,
              eventType: event.type,
              eventAt: event.at,
              status: 'dead' as const,
              attempts: 1,
              nextAttemptAt: now,
              lastError: errorOf(response),
              createdAt: now,
            })),
          )
          .onConflictDoNothing();
      }
      const log = attemptLog(endpoint, events, responses, outcome, { now, nextAttemptAt, elapsed });
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
      return row;
    });

    const totals = emptyStreamTotals();
    if (!written) {
      totals.stale = 1;
      return { totals, next: null };
    }
    totals.delivered = outcome.delivered;
    totals.dead = outcome.dead.length;
    totals.retrying = responses.filter((r) => verdictOf(r) === 'retry').length;
    const { metrics } = this.ctx;
    if (outcome.delivered > 0) metrics.webhookDeliveries.inc({ outcome: 'delivered' }, outcome.delivered);
    if (outcome.dead.length > 0) metrics.webhookDeliveries.inc({ outcome: 'dead' }, outcome.dead.length);
    const failed = responses.filter((r) => verdictOf(r) === 'retry' || verdictOf(r) === 'gone').length;
    if (failed > 0) metrics.webhookDeliveries.inc({ outcome: 'failed' }, failed);
    if (disabledReason) this.ctx.log.warn(`webhook endpoint disabled: ${disabledReason}`, { endpoint: endpoint.id });
    else if (outcome.failure) this.hooks.retryAt(nextAttemptAt);
    return { totals, next: more ? written : null };
  }

  /** Starts the requests in sequence order, up to WEBHOOK_CONCURRENCY at once; none after a failure. */
  private async sendInOrder(endpoint: EndpointRow, events: LoggedEvent[], connectTo: string | undefined, responses: WebhookResponse[]): Promise<void> {
    const window = Math.max(1, Math.min(this.ctx.settings.WEBHOOK_CONCURRENCY, events.length));
    let next = 0;
    let broken = false;
    const lane = async () => {
      while (!broken && next < events.length) {
        const i = next++;
        const response = await this.dispatcher.send(endpoint, eventMessage(events[i]!), connectTo);
        responses[i] = response;
        const verdict = verdictOf(response);
        if (verdict === 'retry' || verdict === 'gone') broken = true;
      }
    };
    await Promise.all(Array.from({ length: window }, lane));
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

interface Settled {
  /** The new position. */
  position: number;
  /** Events of the unbroken run handed off (delivered or dead). */
  handed: number;
  delivered: number;
  /** The last delivered event of the run, with its answer. */
  lastDelivered: { event: LoggedEvent; response: WebhookResponse } | null;
  dead: { event: LoggedEvent; response: WebhookResponse }[];
  /** The first retryable failure, where the run broke. */
  failure: { index: number; response: WebhookResponse } | null;
  /** Some answer was 410. */
  gone: boolean;
}

/** What a batch's answers mean for the endpoint: how far the position moves, what died. */
function settle(endpoint: EndpointRow, events: LoggedEvent[], responses: WebhookResponse[], head: number, size: number): Settled {
  const out: Settled = { position: endpoint.position, handed: 0, delivered: 0, lastDelivered: null, dead: [], failure: null, gone: false };
  out.gone = responses.some((r) => r !== undefined && verdictOf(r) === 'gone');
  let broken = -1;
  for (let i = 0; i < events.length; i++) {
    const response = responses[i];
    const verdict = response ? verdictOf(response) : 'retry';
    if (verdict === 'delivered') {
      out.delivered++;
      out.lastDelivered = { event: events[i]!, response: response! };
    } else if (verdict === 'refused') {
      out.dead.push({ event: events[i]!, response: response! });
    } else {
      broken = i;
      if (verdict === 'retry' && response) out.failure = { index: i, response };
      break;
    }
    out.handed++;
  }
  if (broken === -1) {
    // Every event was handed off; a short batch means nothing else of ours up to the head.
    const last = events[events.length - 1]?.sequence ?? endpoint.position;
    out.position = events.length < size ? Math.max(head, last, endpoint.position) : last;
  } else if (broken === 0) {
    out.position = Math.max(endpoint.position, events[0]!.sequence - 1);
  } else {
    out.position = events[broken - 1]!.sequence;
  }
  return out;
}

/**
 * The batch's rows of the attempt log: every failed attempt (with its next retry when it will be
 * retried), and one row for the run of in-order successes.
 */
function attemptLog(
  endpoint: EndpointRow,
  events: LoggedEvent[],
  responses: WebhookResponse[],
  outcome: Settled,
  at: { now: number; nextAttemptAt: number; elapsed: number },
): (typeof webhookDeliveries.$inferInsert)[] {
  const rows: (typeof webhookDeliveries.$inferInsert)[] = [];
  const firstAttempt = endpoint.attempts + 1;
  responses.forEach((response, i) => {
    if (response === undefined) return;
    const verdict = verdictOf(response);
    if (verdict === 'delivered') return;
    const retried = outcome.failure !== null && verdict !== 'gone' && (verdict === 'retry' || i > outcome.failure.index);
    rows.push({
      messageId: events[i]!.id,
      endpointId: endpoint.id,
      attempt: i === 0 ? firstAttempt : 1,
      count: 1,
      statusCode: response.statusCode,
      error: errorOf(response),
      durationMs: response.durationMs,
      nextRetryAt: retried ? at.nextAttemptAt : null,
      createdAt: at.now,
    });
  });
  if (outcome.lastDelivered) {
    rows.push({
      messageId: outcome.lastDelivered.event.id,
      endpointId: endpoint.id,
      attempt: firstAttempt,
      count: outcome.delivered,
      statusCode: outcome.lastDelivered.response.statusCode,
      error: null,
      durationMs: at.elapsed,
      nextRetryAt: null,
      createdAt: at.now,
    });
  }
  return rows;
}
