/**
 * The webhook worker: claims due outbox rows with a lease and a claim token, delivers each
 * outside any transaction, and records the outcome under the same claim token, so a worker
 * that stalled past its lease can no longer overwrite what a newer claim decided.
 *
 * Runs in-process (woken by new punches and outbox changes, polling every second for rows
 * written by other instances) and as the `deliver-webhooks` job, which drains what is due once.
 * Any number of workers may share one database: a row is claimed by one of them at a time.
 */
import { describeError } from '../shared/errors';
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Context } from '../core/context';
import type { Queryable, Tx } from '../db/client';
import { webhookDeliveries, webhookEndpoints, webhookOutbox } from '../db/schema';
import { audit } from '../audit/audit';
import { retryDelay } from './backoff';
import { fetchSender, type WebhookResponse, type WebhookSender } from './sender';
import { signWebhook } from './signing';
import { checkWebhookUrl, DNS_LOOKUP_TIMEOUT_MS } from './ssrf';

export type OutboxRow = typeof webhookOutbox.$inferSelect;
type EndpointRow = typeof webhookEndpoints.$inferSelect;

export type DeliveryOutcome = 'delivered' | 'retrying' | 'dead' | 'stale';

export interface DeliveryTotals {
  claimed: number;
  delivered: number;
  retrying: number;
  dead: number;
  /** Outcomes discarded because the lease had passed to another worker meanwhile. */
  stale: number;
}

/** How often the in-process worker looks for rows it was not woken for (other instances). */
export const POLL_INTERVAL_MS = 1_000;
/** Extra lease beyond the lookups and requests: database writes, scheduling. */
const LEASE_MARGIN_MS = 30_000;

/** The DNS lookup of one attempt is bounded too, by the request timeout or 5 s, whichever is less. */
export function lookupTimeoutOf(requestTimeoutMs: number): number {
  return Math.max(1, Math.min(requestTimeoutMs, DNS_LOOKUP_TIMEOUT_MS));
}

/**
 * How long a claim lasts: a claimed row may wait for one round of requests to free a slot
 * (the worker claims at most two rounds ahead), then makes its own attempt; each attempt is
 * one bounded lookup plus one bounded request.
 */
export function leaseDurationOf(requestTimeoutMs: number): number {
  return 2 * (lookupTimeoutOf(requestTimeoutMs) + requestTimeoutMs) + LEASE_MARGIN_MS;
}

const USER_AGENT = 'fingerprint-attendance-webhooks/1';

/** Counts free request slots, shared by the worker loop and job runs of one instance. */
class Slots {
  private readonly waiting: Array<() => void> = [];
  constructor(private free: number) {}

  get available(): number {
    return this.free;
  }

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

export class DeliveryWorker {
  private readonly slots: Slots;
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<unknown>>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private soon: ReturnType<typeof setTimeout> | null = null;
  private active = false;
  private pumping = false;
  private again = false;
  /** The last claim was full: more rows may be due, so claim again when a slot frees. */
  private backlog = false;

  constructor(
    private readonly ctx: Context,
    private readonly send: WebhookSender = fetchSender,
  ) {
    this.concurrency = Math.max(1, ctx.settings.WEBHOOK_CONCURRENCY);
    this.slots = new Slots(this.concurrency);
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.timer = setInterval(() => this.wake(), POLL_INTERVAL_MS);
    this.wake();
  }

  /** Stops claiming and waits for the requests in flight (each bounded by WEBHOOK_TIMEOUT). */
  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    this.timer = null;
    this.soon = null;
    while (this.inFlight.size > 0 || this.pumping) {
      await Promise.allSettled([...this.inFlight]);
      if (this.pumping) await Bun.sleep(5);
    }
  }

  /** New rows may be due (signals, the poll timer, a retry coming up). */
  wake(): void {
    if (!this.active) return;
    this.backlog = true;
    void this.pump().catch((error: unknown) => this.ctx.log.error('webhook worker pass failed', { error: describe(error) }));
  }

  /**
   * Delivers every row due now, once (the `deliver-webhooks` job and script). Retries that
   * fall due during the run are left for the next run or the in-process worker.
   */
  async deliverDue(): Promise<DeliveryTotals> {
    const dueBy = this.ctx.clock.now();
    const totals: DeliveryTotals = { claimed: 0, delivered: 0, retrying: 0, dead: 0, stale: 0 };
    const perClaim = Math.max(1, Math.min(this.ctx.settings.WEBHOOK_BATCH_SIZE, this.ctx.settings.WEBHOOK_CONCURRENCY));
    for (;;) {
      const rows = await this.claim(perClaim, dueBy);
      if (rows.length === 0) break;
      totals.claimed += rows.length;
      const outcomes = await Promise.all(rows.map((row) => this.withSlot(row)));
      for (const outcome of outcomes) totals[outcome]++;
    }
    return totals;
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        while (this.active && this.backlog) {
          // Claim ahead, in batches: up to two rounds of slots may be claimed (a queued row
          // waits for at most one round of requests, well inside its lease), and no claim is
          // made for fewer than half a round while work is in flight, so a busy worker does
          // not pay one claim transaction per finished delivery.
          const room = 2 * this.concurrency - this.inFlight.size;
          if (room <= 0 || (this.inFlight.size > 0 && room < Math.ceil(this.concurrency / 2))) break;
          const want = Math.min(room, Math.max(1, this.ctx.settings.WEBHOOK_BATCH_SIZE));
          const rows = await this.claim(want, this.ctx.clock.now());
          this.backlog = rows.length === want;
          for (const row of rows) this.track(row);
        }
      } while (this.again && this.active);
    } finally {
      this.pumping = false;
    }
  }

  private track(row: OutboxRow): void {
    const work = this.withSlot(row)
      .catch((error: unknown) => {
        this.ctx.log.error('webhook delivery failed unexpectedly', { message_id: row.id, error: describe(error) });
      })
      .finally(() => {
        this.inFlight.delete(work);
        if (this.backlog) this.wake();
      });
    this.inFlight.add(work);
  }

  private async withSlot(row: OutboxRow): Promise<DeliveryOutcome> {
    await this.slots.take();
    try {
      return await this.deliver(row);
    } finally {
      this.slots.give();
    }
  }

  /** Leases up to `limit` pending rows due by `dueBy` whose endpoint is active. */
  async claim(limit: number, dueBy: number): Promise<OutboxRow[]> {
    const now = this.ctx.clock.now();
    // A read first, so an idle poll (every second, every instance) takes no write lock.
    const [anyDue] = await this.ctx.db.orm.select({ id: webhookOutbox.id }).from(webhookOutbox).where(dueCondition(this.ctx.db.orm, dueBy, now)).limit(1);
    if (!anyDue) return [];
    const token = crypto.randomUUID();
    const leaseUntil = now + leaseDurationOf(this.ctx.settings.WEBHOOK_TIMEOUT);
    return this.ctx.db.write(async ({ tx }) => {
      const due = tx
        .select({ id: webhookOutbox.id })
        .from(webhookOutbox)
        .where(dueCondition(tx, dueBy, now))
        .orderBy(asc(webhookOutbox.nextAttemptAt))
        .limit(limit);
      const claimed = await tx.update(webhookOutbox).set({ claimToken: token, leaseUntil }).where(inArray(webhookOutbox.id, due)).returning();
      // RETURNING order is unspecified; deliver the oldest first.
      return claimed.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.punchSequence ?? 0) - (b.punchSequence ?? 0));
    });
  }

  /** One attempt of one claimed row. */
  private async deliver(row: OutboxRow): Promise<DeliveryOutcome> {
    const endpoint = await this.ctx.db.orm.query.webhookEndpoints.findFirst({ where: eq(webhookEndpoints.id, row.endpointId) });
    if (!endpoint || !endpoint.active) return this.abandon(row, endpoint ? 'the endpoint is disabled' : 'the endpoint was deleted');

    let response: WebhookResponse;
    // Checked before every attempt, not only at creation: DNS may have changed since.
    const { settings } = this.ctx;
    const check = await checkWebhookUrl(endpoint.url, {
      allowPrivateNetworks: settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      lookupTimeoutMs: lookupTimeoutOf(settings.WEBHOOK_TIMEOUT),
    });
    if (!check.ok) {
      response = { statusCode: null, error: `URL refused: ${check.reason}`, durationMs: 0 };
    } else {
      const signed = signWebhook(endpoint.secret, { id: row.id, timestamp: new Date(this.ctx.clock.now()), body: row.payload });
      response = await this.send({
        url: endpoint.url,
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signed },
        body: row.payload,
        timeoutMs: settings.WEBHOOK_TIMEOUT,
        // The vetted address, so fetch does not resolve the name a second time (rebinding).
        connectTo: preferredAddress(check.addresses),
      });
    }
    return this.record(row, endpoint, response);
  }

  /** Stores the attempt and the row's new state; endpoint health follows. */
  private async record(row: OutboxRow, endpoint: EndpointRow, response: WebhookResponse): Promise<DeliveryOutcome> {
    const { settings } = this.ctx;
    const now = this.ctx.clock.now();
    const attempt = row.attempts + 1;
    const code = response.statusCode;
    const ok = code !== null && code >= 200 && code < 300;
    const gone = code === 410;
    const error = ok ? null : (response.error ?? statusError(code));
    let outcome: DeliveryOutcome;
    let nextAttemptAt = row.nextAttemptAt;
    if (ok) outcome = 'delivered';
    else if (gone || attempt >= settings.WEBHOOK_MAX_ATTEMPTS) outcome = 'dead';
    else {
      outcome = 'retrying';
      nextAttemptAt = now + retryDelay(attempt, settings.WEBHOOK_RETRY_BACKOFF);
    }

    const final = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const settled = await this.settle(tx, row, endpoint, { outcome, attempt, nextAttemptAt, error, now, ok, gone }, afterCommit);
      // Every attempt is recorded, even one whose outcome came too late to count (stale).
      await tx.insert(webhookDeliveries).values({
        outboxId: row.id,
        endpointId: row.endpointId,
        attempt,
        statusCode: code,
        error,
        durationMs: response.durationMs,
        nextRetryAt: settled === 'retrying' ? nextAttemptAt : null,
        createdAt: now,
      });
      return settled;
    });
    if (final === 'retrying') this.wakeAt(nextAttemptAt);
    return final;
  }

  /** Writes the row's new state under its claim token, then the endpoint's health. */
  private async settle(
    tx: Tx,
    row: OutboxRow,
    endpoint: EndpointRow,
    a: { outcome: DeliveryOutcome; attempt: number; nextAttemptAt: number; error: string | null; now: number; ok: boolean; gone: boolean },
    afterCommit: (callback: () => void) => void,
  ): Promise<DeliveryOutcome> {
    const updated = await tx
      .update(webhookOutbox)
      .set({
        status: a.outcome === 'delivered' ? 'delivered' : a.outcome === 'dead' ? 'dead' : 'pending',
        attempts: a.attempt,
        nextAttemptAt: a.nextAttemptAt,
        leaseUntil: null,
        claimToken: null,
        lastError: a.error,
        deliveredAt: a.ok ? a.now : null,
      })
      .where(and(eq(webhookOutbox.id, row.id), eq(webhookOutbox.claimToken, row.claimToken ?? '')))
      .returning({ id: webhookOutbox.id });
    if (updated.length === 0) return 'stale';

    if (a.ok) {
      await tx
        .update(webhookEndpoints)
        .set({ failingSince: null })
        .where(and(eq(webhookEndpoints.id, endpoint.id), sql`${webhookEndpoints.failingSince} is not null`));
      return a.outcome;
    }
    if (a.gone) {
      await disableEndpoint(tx, endpoint.id, 'the endpoint answered 410 Gone', a.now);
      afterCommit(() => this.ctx.log.warn('webhook endpoint disabled: it answered 410 Gone', { endpoint: endpoint.id }));
      return a.outcome;
    }
    const [health] = await tx
      .update(webhookEndpoints)
      .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${a.now})` })
      .where(eq(webhookEndpoints.id, endpoint.id))
      .returning({ failingSince: webhookEndpoints.failingSince, active: webhookEndpoints.active });
    if (health && !health.active) {
      // Disabled while this attempt was in flight: no retry, like the endpoint's other rows.
      await tx.update(webhookOutbox).set({ status: 'dead' }).where(eq(webhookOutbox.id, row.id));
      return 'dead';
    }
    const since = health?.failingSince ?? a.now;
    if (a.now - since >= this.ctx.settings.WEBHOOK_DISABLE_AFTER) {
      // Dead-letters this row too: its lease was just cleared.
      await disableEndpoint(tx, endpoint.id, `failing continuously since ${new Date(since).toISOString()}`, a.now);
      afterCommit(() => this.ctx.log.warn('webhook endpoint disabled: failing continuously', { endpoint: endpoint.id }));
      return 'dead';
    }
    return a.outcome;
  }

  /** The endpoint is gone or disabled: the row dies without an attempt (redeliverable by hand). */
  private async abandon(row: OutboxRow, reason: string): Promise<DeliveryOutcome> {
    return this.ctx.db.write(async ({ tx }) => {
      const updated = await tx
        .update(webhookOutbox)
        .set({ status: 'dead', leaseUntil: null, claimToken: null, lastError: reason })
        .where(and(eq(webhookOutbox.id, row.id), eq(webhookOutbox.claimToken, row.claimToken ?? '')))
        .returning({ id: webhookOutbox.id });
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

/** Pending, due by `dueBy`, not leased (or the lease ran out), and its endpoint active. */
function dueCondition(q: Queryable, dueBy: number, now: number) {
  return and(
    eq(webhookOutbox.status, 'pending'),
    lte(webhookOutbox.nextAttemptAt, dueBy),
    or(isNull(webhookOutbox.leaseUntil), lt(webhookOutbox.leaseUntil, now)),
    inArray(webhookOutbox.endpointId, q.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.active, true))),
  );
}

/** Disables an endpoint and dead-letters its pending messages (they can be redelivered by hand). */
export async function disableEndpoint(tx: Tx, endpointId: string, reason: string, now: number): Promise<void> {
  const changed = await tx
    .update(webhookEndpoints)
    .set({ active: false, disabledReason: reason })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.active, true)))
    .returning({ id: webhookEndpoints.id });
  if (changed.length === 0) return;
  await tx
    .update(webhookOutbox)
    .set({ status: 'dead', leaseUntil: null, claimToken: null, lastError: `endpoint disabled: ${reason}` })
    // Rows leased by an attempt in flight are left to that attempt, which sees the endpoint disabled.
    .where(
      and(
        eq(webhookOutbox.endpointId, endpointId),
        eq(webhookOutbox.status, 'pending'),
        or(isNull(webhookOutbox.leaseUntil), lt(webhookOutbox.leaseUntil, now)),
      ),
    );
  await audit(tx, now, { actor: 'system', action: 'webhook.disabled', targetType: 'webhook', targetId: endpointId, details: { reason } });
}

/** IPv4 first, like the system resolver's usual order: many hosts have no IPv6 route out. */
function preferredAddress(addresses: string[]): string | undefined {
  return addresses.find((a) => !a.includes(':')) ?? addresses[0];
}

function statusError(code: number | null): string {
  if (code === null) return 'no response';
  if (code >= 300 && code < 400) return `HTTP ${code}: redirects are not followed`;
  return `HTTP ${code}`;
}

function describe(error: unknown): string {
  return describeError(error);
}
