/**
 * The webhook worker: claims due outbox rows with a lease and a claim token, delivers each
 * outside any transaction, and records the outcome under the same claim token, so a worker
 * that stalled past its lease can no longer overwrite what a newer claim decided.
 *
 * Runs in-process (woken by new punches and outbox changes, polling every second for rows
 * written by other instances) and as the `deliver-webhooks` job, which drains what is due once.
 * Any number of workers may share one database: a row is claimed by one of them at a time.
 *
 * The hot path is kept cheap: a claim reads the endpoints of its rows in the same transaction
 * (not once per message), each endpoint's secret is decoded once (WebhookSigner), host lookups
 * are shared for a second (the address check itself still runs before every send), and
 * outcomes are written in batches (recorder.ts).
 */

import { and, asc, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import { CoalescingPass } from '../../platform/coalescing-pass';
import type { Queryable } from '../../platform/db/client';
import { describeError } from '../../platform/errors';
import type { Runtime } from '../../platform/runtime';
import { type DeliveryOutcome, isSuccess, type OutboxRow, OutcomeRecorder } from './recorder';
import { fetchSender, type WebhookResponse, type WebhookSender } from './sender';
import { WebhookSigner } from './signing';
import { cachingResolver, checkWebhookUrl, DNS_LOOKUP_TIMEOUT_MS, type Resolver } from './ssrf';
import { webhookEndpoints, webhookOutbox } from './tables';

export type { DeliveryOutcome, OutboxRow } from './recorder';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface DeliveryTotals {
  claimed: number;
  delivered: number;
  retrying: number;
  dead: number;
  /** Outcomes discarded because the lease had passed to another worker meanwhile. */
  stale: number;
}

/** A claimed row with its endpoint as the claim transaction read it (null: deleted or disabled). */
interface Claimed {
  row: OutboxRow;
  endpoint: EndpointRow | null;
}

/** How often the in-process worker looks for rows it was not woken for (other instances). */
export const POLL_INTERVAL_MS = 1_000;
/** Extra lease beyond the lookups and requests: database writes, scheduling. */
const LEASE_MARGIN_MS = 30_000;
/** How long a host's DNS answer is reused by the SSRF check (its addresses are still checked each time). */
const LOOKUP_REUSE_MS = 1_000;
/** Signers kept per instance; beyond this the cache starts over (secrets are only ever a handful). */
const MAX_SIGNERS = 1_000;

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
  /** Claimed rows whose outcome is not recorded yet (sending, or waiting for the recorder). */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly recorder: OutcomeRecorder;
  private readonly resolve: Resolver = cachingResolver(undefined, LOOKUP_REUSE_MS);
  private readonly signers = new Map<string, { secret: string; signer: WebhookSigner }>();
  /**
   * Endpoints this worker disabled since their rows were claimed: those rows are not sent.
   * Forgotten when a later claim reads the endpoint active again (enabled by an admin).
   */
  private readonly disabledHere = new Set<string>();
  /**
   * Per endpoint, the last failed attempt whose outcome is not recorded yet. The next attempt
   * to that endpoint waits for it, so a 410 or a failure that disables the endpoint stops the
   * messages behind it, as when each outcome was written before its slot was freed.
   */
  private readonly unrecordedFailure = new Map<string, Promise<void>>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private soon: ReturnType<typeof setTimeout> | null = null;
  private active = false;
  private readonly pump = new CoalescingPass(
    () => this.claimWhileRoom(),
    () => this.active,
  );
  /** The last claim was full: more rows may be due, so claim again when a slot frees. */
  private backlog = false;

  constructor(
    private readonly ctx: Runtime,
    private readonly send: WebhookSender = fetchSender,
  ) {
    this.concurrency = Math.max(1, ctx.settings.WEBHOOK_CONCURRENCY);
    this.slots = new Slots(this.concurrency);
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

  /** Stops claiming and waits for the requests in flight (each bounded by WEBHOOK_TIMEOUT) and their records. */
  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    this.timer = null;
    this.soon = null;
    while (this.inFlight.size > 0 || this.pump.busy) {
      await Promise.allSettled([...this.inFlight]);
      if (this.pump.busy) await Bun.sleep(5);
    }
    await this.recorder.drain();
  }

  /** New rows may be due (signals, the poll timer, a retry coming up). */
  wake(): void {
    if (!this.active) return;
    this.backlog = true;
    void this.pump.trigger().catch((error: unknown) => this.ctx.log.error('webhook worker pass failed', { error: describe(error) }));
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
      const claimed = await this.claim(perClaim, dueBy);
      if (claimed.length === 0) break;
      totals.claimed += claimed.length;
      const outcomes = await Promise.all(claimed.map((c) => this.deliver(c)));
      for (const outcome of outcomes) totals[outcome]++;
    }
    return totals;
  }

  /** One pass: claims work while there is room and a backlog. */
  private async claimWhileRoom(): Promise<boolean> {
    while (this.active && this.backlog) {
      // Claim ahead, in batches: up to two rounds of slots may be claimed (a queued row
      // waits for at most one round of requests, well inside its lease), and no claim is
      // made for fewer than half a round while work is in flight, so a busy worker does
      // not pay one claim transaction per finished delivery.
      const room = 2 * this.concurrency - this.inFlight.size;
      if (room <= 0 || (this.inFlight.size > 0 && room < Math.ceil(this.concurrency / 2))) break;
      const want = Math.min(room, Math.max(1, this.ctx.settings.WEBHOOK_BATCH_SIZE));
      const claimed = await this.claim(want, this.ctx.clock.now());
      this.backlog = claimed.length === want;
      for (const c of claimed) this.track(c);
    }
    return false;
  }

  private track(claimed: Claimed): void {
    const work = this.deliver(claimed)
      .catch((error: unknown) => {
        this.ctx.log.error('webhook delivery failed unexpectedly', { message_id: claimed.row.id, error: describe(error) });
      })
      .finally(() => {
        this.inFlight.delete(work);
        if (this.backlog) this.wake();
      });
    this.inFlight.add(work);
  }

  /**
   * Leases up to `limit` pending rows due by `dueBy` whose endpoint is active, each with its
   * endpoint as read in the same transaction.
   */
  async claim(limit: number, dueBy: number): Promise<Claimed[]> {
    const now = this.ctx.clock.now();
    // A read first, so an idle poll (every second, every instance) takes no write lock.
    const [anyDue] = await this.ctx.db.orm
      .select({ id: webhookOutbox.id })
      .from(webhookOutbox)
      .where(dueCondition(this.ctx.db.orm, dueBy, now))
      .limit(1);
    if (!anyDue) return [];
    const token = crypto.randomUUID();
    const leaseUntil = now + leaseDurationOf(this.ctx.settings.WEBHOOK_TIMEOUT);
    const { rows, endpoints } = await this.ctx.db.write(async ({ tx }) => {
      const due = tx
        .select({ id: webhookOutbox.id })
        .from(webhookOutbox)
        .where(dueCondition(tx, dueBy, now))
        .orderBy(asc(webhookOutbox.nextAttemptAt))
        .limit(limit);
      const claimed = await tx.update(webhookOutbox).set({ claimToken: token, leaseUntil }).where(inArray(webhookOutbox.id, due)).returning();
      const ids = [...new Set(claimed.map((r) => r.endpointId))];
      const found = ids.length === 0 ? [] : await tx.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, ids));
      return { rows: claimed, endpoints: found };
    });
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    for (const endpoint of endpoints) if (endpoint.active) this.disabledHere.delete(endpoint.id);
    // RETURNING order is unspecified; deliver the oldest first.
    rows.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.punchSequence ?? 0) - (b.punchSequence ?? 0));
    return rows.map((row) => ({ row, endpoint: byId.get(row.endpointId) ?? null }));
  }

  /** One attempt of one claimed row, recorded. */
  private async deliver({ row, endpoint }: Claimed): Promise<DeliveryOutcome> {
    if (!endpoint?.active) return this.abandon(row, endpoint ? 'the endpoint is disabled' : 'the endpoint was deleted');
    let response: WebhookResponse | null;
    await this.slots.take();
    try {
      response = await this.attempt(row, endpoint);
    } finally {
      // The slot bounds requests in flight; recording happens without it.
      this.slots.give();
    }
    if (!response) return this.abandon(row, 'the endpoint is disabled');
    const outcome = this.recorder.record(row, response);
    if (!isSuccess(response)) this.noteFailure(endpoint.id, outcome);
    return outcome;
  }

  private noteFailure(endpointId: string, outcome: Promise<DeliveryOutcome>): void {
    const recorded = outcome.then(noop, noop);
    this.unrecordedFailure.set(endpointId, recorded);
    void recorded.then(() => {
      if (this.unrecordedFailure.get(endpointId) === recorded) this.unrecordedFailure.delete(endpointId);
    });
  }

  /** Checks the URL and sends; null when the endpoint was disabled here while the row waited. */
  private async attempt(row: OutboxRow, endpoint: EndpointRow): Promise<WebhookResponse | null> {
    const failure = this.unrecordedFailure.get(endpoint.id);
    if (failure) await failure;
    if (this.disabledHere.has(endpoint.id)) return null;
    const { settings } = this.ctx;
    // Checked before every attempt, not only at creation: DNS may have changed since.
    const check = await checkWebhookUrl(endpoint.url, {
      allowPrivateNetworks: settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      lookupTimeoutMs: lookupTimeoutOf(settings.WEBHOOK_TIMEOUT),
      resolve: this.resolve,
    });
    if (!check.ok) return { statusCode: null, error: `URL refused: ${check.reason}`, durationMs: 0 };
    const signed = this.signerOf(endpoint).sign({ id: row.id, timestamp: new Date(this.ctx.clock.now()), body: row.payload });
    return this.send({
      url: endpoint.url,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signed },
      body: row.payload,
      timeoutMs: settings.WEBHOOK_TIMEOUT,
      // The vetted address, so fetch does not resolve the name a second time (rebinding).
      connectTo: preferredAddress(check.addresses),
    });
  }

  /** The endpoint's signer, made once per secret. */
  private signerOf(endpoint: EndpointRow): WebhookSigner {
    const known = this.signers.get(endpoint.id);
    if (known && known.secret === endpoint.secret) return known.signer;
    if (this.signers.size >= MAX_SIGNERS) this.signers.clear();
    const signer = new WebhookSigner(endpoint.secret);
    this.signers.set(endpoint.id, { secret: endpoint.secret, signer });
    return signer;
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

/** IPv4 first, like the system resolver's usual order: many hosts have no IPv6 route out. */
function preferredAddress(addresses: string[]): string | undefined {
  return addresses.find((a) => !a.includes(':')) ?? addresses[0];
}

function noop(): void {}

function describe(error: unknown): string {
  return describeError(error);
}
