/**
 * The webhook worker: works endpoints along the event log in order (stream.ts), and sends the
 * message rows queued by hand (redeliver, recover) on their own, each claimed with a lease and a
 * claim token and recorded under it (recorder.ts). Any number of workers may share one
 * database: an endpoint, like a message row, is worked by one of them at a time.
 *
 * Runs in-process (woken after every commit that appended events, polling every second for
 * what other instances wrote, and at the retry times it scheduled) and as the
 * `deliver-webhooks` job, which delivers what is due once.
 */

import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { CoalescingPass } from '../../platform/coalescing-pass';
import type { Queryable } from '../../platform/db/client';
import { describeError } from '../../platform/errors';
import type { EventLog, LoggedEvent } from '../events';
import { Dispatcher, eventMessage, lookupTimeoutOf, Slots } from './dispatch';
import { type EndpointRow, emptyStreamTotals, OrderedDelivery, type StreamTotals } from './ordered-delivery';
import { type DeliveryOutcome, type MessageRow, OutcomeRecorder } from './recorder';
import type { WebhookRuntime } from './runtime';
import type { WebhookResponse, WebhookSender } from './sender';
import { webhookEndpoints, webhookMessages } from './tables';

export interface DeliveryTotals extends StreamTotals {
  /** Endpoints worked along the log. */
  endpoints: number;
  /** Message rows (queued by hand) claimed. */
  messages: number;
}

/** A claimed message row with its endpoint and event as read right after the claim (null: gone). */
interface ClaimedRow {
  row: MessageRow;
  endpoint: EndpointRow | null;
  event: LoggedEvent | null;
}

/** How often the in-process worker looks for work it was not woken for (other instances). */
export const POLL_INTERVAL_MS = 1_000;
/** Extra lease beyond the lookups and requests: database writes, scheduling. */
const LEASE_MARGIN_MS = 30_000;
/** Endpoints one instance works at once. */
const MAX_ENDPOINTS_AT_ONCE = 32;

/**
 * How long a message row's claim lasts: a claimed row may wait for one round of requests to free
 * a slot (the worker claims at most two rounds ahead), then makes its own attempt; each attempt
 * is one bounded lookup plus one bounded request.
 */
export function leaseDurationOf(requestTimeoutMs: number): number {
  return 2 * (lookupTimeoutOf(requestTimeoutMs) + requestTimeoutMs) + LEASE_MARGIN_MS;
}

export class DeliveryWorker {
  readonly dispatcher: Dispatcher;
  private readonly stream: OrderedDelivery;
  private readonly recorder: OutcomeRecorder;
  private readonly slots: Slots;
  private readonly concurrency: number;
  /** Endpoints being worked by this instance, by id. */
  private readonly working = new Map<string, Promise<unknown>>();
  /** Claimed message rows whose outcome is not recorded yet (sending, or waiting for the recorder). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /**
   * Endpoints this worker disabled since their rows were claimed: those rows are not sent.
   * Forgotten when a later claim reads the endpoint active again (enabled by an admin).
   */
  private readonly disabledHere = new Set<string>();
  /**
   * Per endpoint, the last failed attempt of a message row whose outcome is not recorded yet.
   * The next row to that endpoint waits for it, so a 410 stops the rows claimed behind it.
   */
  private readonly unrecordedFailure = new Map<string, Promise<void>>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private soon: ReturnType<typeof setTimeout> | null = null;
  private active = false;
  private readonly pump = new CoalescingPass(
    () => this.pass(),
    () => this.active,
  );
  /** The last claim of rows was full: more may be due, so claim again when a slot frees. */
  private rowBacklog = false;

  constructor(
    private readonly ctx: WebhookRuntime,
    private readonly log: EventLog,
    send?: WebhookSender,
  ) {
    this.concurrency = Math.max(1, ctx.settings.WEBHOOK_CONCURRENCY);
    this.slots = new Slots(this.concurrency);
    this.dispatcher = new Dispatcher(ctx, send);
    this.stream = new OrderedDelivery(ctx, log, this.dispatcher, { retryAt: (at) => this.wakeAt(at) });
    this.recorder = new OutcomeRecorder(ctx, {
      retryAt: (at) => this.wakeAt(at),
      endpointDisabled: (id) => this.disabledHere.add(id),
    });
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.timer = setInterval(() => this.wake(), POLL_INTERVAL_MS);
    this.wake();
  }

  /** Stops claiming and waits for the work in flight (each request bounded by WEBHOOK_TIMEOUT) and its records. */
  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    this.timer = null;
    this.soon = null;
    this.stream.notify();
    while (this.inFlight.size > 0 || this.working.size > 0 || this.pump.busy) {
      await Promise.allSettled([...this.inFlight, ...this.working.values()]);
      if (this.pump.busy) await Bun.sleep(5);
    }
    await this.recorder.drain();
  }

  /** There may be work (events appended, the poll timer, a retry coming up, a change by hand). */
  wake(): void {
    if (!this.active) return;
    // Endpoints being worked here that caught up look for the new events at once.
    this.stream.notify();
    this.rowBacklog = true;
    void this.pump.trigger().catch((error: unknown) => this.ctx.log.error('webhook worker pass failed', { error: describeError(error) }));
  }

  /**
   * Delivers what is due now, once (the `deliver-webhooks` job and script): every endpoint
   * with work up to the log's present head, and every message row due. Retries that fall due
   * during the run are left for the next run or the in-process worker.
   */
  async deliverDue(): Promise<DeliveryTotals> {
    const until = await this.log.lastSequence();
    const dueBy = this.ctx.clock.now();
    const totals: DeliveryTotals = { endpoints: 0, messages: 0, ...emptyStreamTotals() };
    for (;;) {
      const claimed = await this.stream.claim(MAX_ENDPOINTS_AT_ONCE, until, new Set(this.working.keys()));
      if (claimed.length === 0) break;
      totals.endpoints += claimed.length;
      const worked = await Promise.all(
        claimed.map((e) => {
          const work = this.stream.work(e, { until, keepGoing: () => true }).finally(() => this.working.delete(e.id));
          this.working.set(e.id, work);
          return work;
        }),
      );
      for (const t of worked) for (const key of Object.keys(t) as (keyof StreamTotals)[]) totals[key] += t[key];
    }
    const perClaim = Math.max(1, Math.min(this.ctx.settings.WEBHOOK_BATCH_SIZE, this.concurrency));
    for (;;) {
      const claimed = await this.claimRows(perClaim, dueBy);
      if (claimed.length === 0) break;
      totals.messages += claimed.length;
      const outcomes = await Promise.all(claimed.map((c) => this.deliverRow(c)));
      for (const outcome of outcomes) if (outcome !== 'held') totals[outcome]++;
    }
    return totals;
  }

  /** One pass: claims endpoints and message rows while there is room. */
  private async pass(): Promise<boolean> {
    const claimed = await this.stream.claim(MAX_ENDPOINTS_AT_ONCE - this.working.size, undefined, new Set(this.working.keys()));
    for (const endpoint of claimed) this.trackEndpoint(endpoint);
    await this.claimRowsWhileRoom();
    return false;
  }

  private trackEndpoint(endpoint: EndpointRow): void {
    const work = this.stream
      .work(endpoint, { keepGoing: () => this.active })
      .catch((error: unknown) => {
        this.ctx.log.error('webhook delivery failed unexpectedly', { endpoint: endpoint.id, error: describeError(error) });
      })
      .finally(() => {
        this.working.delete(endpoint.id);
        // Events appended while the claim was being released are picked up now, not at the next poll.
        this.wake();
      });
    this.working.set(endpoint.id, work);
  }

  private async claimRowsWhileRoom(): Promise<void> {
    while (this.active && this.rowBacklog) {
      // Claim ahead, in batches: up to two rounds of slots may be claimed (a queued row waits
      // for at most one round of requests, well inside its lease), and no claim is made for
      // fewer than half a round while work is in flight.
      const room = 2 * this.concurrency - this.inFlight.size;
      if (room <= 0 || (this.inFlight.size > 0 && room < Math.ceil(this.concurrency / 2))) break;
      const want = Math.min(room, Math.max(1, this.ctx.settings.WEBHOOK_BATCH_SIZE));
      const claimed = await this.claimRows(want, this.ctx.clock.now());
      this.rowBacklog = claimed.length === want;
      for (const c of claimed) this.trackRow(c);
    }
  }

  private trackRow(claimed: ClaimedRow): void {
    const work = this.deliverRow(claimed)
      .catch((error: unknown) => {
        this.ctx.log.error('webhook delivery failed unexpectedly', { message_id: claimed.row.eventId, error: describeError(error) });
      })
      .finally(() => {
        this.inFlight.delete(work);
        if (this.rowBacklog) this.wake();
      });
    this.inFlight.add(work);
  }

  /**
   * Leases up to `limit` pending message rows due by `dueBy` whose endpoint is active, each with
   * its endpoint as read in the same transaction and its event.
   */
  async claimRows(limit: number, dueBy: number): Promise<ClaimedRow[]> {
    const now = this.ctx.clock.now();
    // A read first, so an idle poll (every second, every instance) takes no write lock.
    const [anyDue] = await this.ctx.db.orm
      .select({ sequence: webhookMessages.eventSequence })
      .from(webhookMessages)
      .where(rowsDue(this.ctx.db.orm, dueBy, now))
      .limit(1);
    if (anyDue === undefined) return [];
    const token = crypto.randomUUID();
    const leaseUntil = now + leaseDurationOf(this.ctx.settings.WEBHOOK_TIMEOUT);
    const { rows, endpoints } = await this.ctx.db.write(async ({ tx }) => {
      const due = tx
        .select({ rowid: sql<number>`rowid` })
        .from(webhookMessages)
        .where(rowsDue(tx, dueBy, now))
        .orderBy(asc(webhookMessages.nextAttemptAt))
        .limit(limit);
      const claimed = await tx.update(webhookMessages).set({ claimToken: token, leaseUntil }).where(inArray(sql`rowid`, due)).returning();
      const ids = [...new Set(claimed.map((r) => r.endpointId))];
      const found = ids.length === 0 ? [] : await tx.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, ids));
      return { rows: claimed, endpoints: found };
    });
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    for (const endpoint of endpoints) if (endpoint.active) this.disabledHere.delete(endpoint.id);
    const events = new Map((await this.log.bySequence([...new Set(rows.map((r) => r.eventSequence))])).map((e) => [e.sequence, e]));
    // RETURNING order is unspecified; deliver the oldest first.
    rows.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.eventSequence - b.eventSequence);
    return rows.map((row) => ({ row, endpoint: byId.get(row.endpointId) ?? null, event: events.get(row.eventSequence) ?? null }));
  }

  /** One attempt of one claimed row, recorded; `held` when its endpoint was disabled meanwhile. */
  private async deliverRow({ row, endpoint, event }: ClaimedRow): Promise<DeliveryOutcome | 'held'> {
    if (!endpoint?.active) return this.release(row);
    if (!event) return this.bury(row, 'the event is no longer in the log');
    let response: WebhookResponse | null;
    await this.slots.take();
    try {
      response = await this.attemptRow(endpoint, event);
    } finally {
      // The slot bounds requests in flight; recording happens without it.
      this.slots.give();
    }
    if (!response) return this.release(row);
    const outcome = this.recorder.record(row, response);
    if (response.statusCode === null || response.statusCode >= 300) this.noteFailure(endpoint.id, outcome);
    return outcome;
  }

  private noteFailure(endpointId: string, outcome: Promise<DeliveryOutcome>): void {
    const recorded = outcome.then(noop, noop);
    this.unrecordedFailure.set(endpointId, recorded);
    void recorded.then(() => {
      if (this.unrecordedFailure.get(endpointId) === recorded) this.unrecordedFailure.delete(endpointId);
    });
  }

  /** Vets the URL and sends; null when the endpoint was disabled here while the row waited. */
  private async attemptRow(endpoint: EndpointRow, event: LoggedEvent): Promise<WebhookResponse | null> {
    const failure = this.unrecordedFailure.get(endpoint.id);
    if (failure) await failure;
    if (this.disabledHere.has(endpoint.id)) return null;
    return this.dispatcher.vetAndSend(endpoint, eventMessage(event));
  }

  /** The endpoint is disabled: the row is left pending, held until it is enabled again. */
  private async release(row: MessageRow): Promise<'held'> {
    await this.ctx.db.write(({ tx }) =>
      tx
        .update(webhookMessages)
        .set({ leaseUntil: null, claimToken: null })
        .where(and(rowKey(row), eq(webhookMessages.claimToken, row.claimToken ?? ''))),
    );
    return 'held';
  }

  /** A row that can never be sent dies without an attempt. */
  private async bury(row: MessageRow, reason: string): Promise<DeliveryOutcome> {
    return this.ctx.db.write(async ({ tx }) => {
      const updated = await tx
        .update(webhookMessages)
        .set({ status: 'dead', nextAttemptAt: this.ctx.clock.now(), leaseUntil: null, claimToken: null, lastError: reason })
        .where(and(rowKey(row), eq(webhookMessages.claimToken, row.claimToken ?? '')))
        .returning({ sequence: webhookMessages.eventSequence });
      return updated.length > 0 ? 'dead' : 'stale';
    });
  }

  /** A retry falls due before the next poll: wake for it rather than wait for the poll. */
  private wakeAt(at: number): void {
    if (!this.active) return;
    const delay = at - this.ctx.clock.now();
    if (delay >= POLL_INTERVAL_MS || this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      this.wake();
    }, Math.max(0, delay) + 5);
  }
}

function rowKey(row: MessageRow) {
  return and(eq(webhookMessages.endpointId, row.endpointId), eq(webhookMessages.eventSequence, row.eventSequence));
}

/** Pending, due by `dueBy`, not leased (or the lease ran out), and its endpoint active. */
function rowsDue(q: Queryable, dueBy: number, now: number) {
  return and(
    eq(webhookMessages.status, 'pending'),
    lte(webhookMessages.nextAttemptAt, dueBy),
    or(isNull(webhookMessages.leaseUntil), lt(webhookMessages.leaseUntil, now)),
    inArray(webhookMessages.endpointId, q.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.active, true))),
  );
}

function noop(): void {}
