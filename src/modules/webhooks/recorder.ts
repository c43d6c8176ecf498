/**
 * Records webhook attempts in batches: finished attempts are collected and written together,
 * one write transaction every few milliseconds (or as soon as a batch is full), instead of one
 * transaction (and one commit) per attempt.
 *
 * Batching changes no guarantee: every attempt still gets its delivery row, and each row's new
 * state is written only under the claim token it was claimed with, so an outcome that arrives
 * after the lease passed to another worker is discarded ("stale") exactly as before. Outcomes
 * are applied in the order they finished, so endpoint health (failing since, disabling) follows
 * the same sequence as if each had its own transaction.
 */
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client';
import { describeError } from '../../platform/errors';
import type { Runtime } from '../../platform/runtime';
import { audit } from '../audit';
import { retryDelay } from './backoff';
import type { WebhookResponse } from './sender';
import { webhookDeliveries, webhookEndpoints, webhookOutbox } from './tables';

export type OutboxRow = typeof webhookOutbox.$inferSelect;

export type DeliveryOutcome = 'delivered' | 'retrying' | 'dead' | 'stale';

/** A batch is written once this many attempts are waiting… */
const MAX_BATCH = 128;
/** …or this long after the first of them finished, whichever comes first. */
const FLUSH_DELAY_MS = 2;

/** One finished attempt, its outcome decided when its response came. */
interface Attempt {
  row: OutboxRow;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** When the response came: the attempt's time in the log, and the base of its retry delay. */
  now: number;
  ok: boolean;
  gone: boolean;
  /** The outcome before the claim and the endpoint's health are checked. */
  outcome: 'delivered' | 'retrying' | 'dead';
  nextAttemptAt: number;
}

interface Waiting {
  attempt: Attempt;
  resolve(outcome: DeliveryOutcome): void;
  reject(error: unknown): void;
}

/** What the transaction decided, acted on only after it committed. */
interface Settled {
  outcome: DeliveryOutcome;
  /** This attempt disabled its endpoint (log line and notice after commit). */
  disabled?: 'gone' | 'failing';
}

export interface RecorderHooks {
  /** A retry was scheduled for `at`. */
  retryAt(at: number): void;
  /** This worker disabled the endpoint (so messages already claimed for it are not sent). */
  endpointDisabled(endpointId: string): void;
}

export class OutcomeRecorder {
  private pending: Waiting[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly ctx: Runtime,
    private readonly hooks: RecorderHooks,
  ) {}

  /** Queues the outcome of one attempt; resolves once it is committed, with what it became. */
  record(row: OutboxRow, response: WebhookResponse): Promise<DeliveryOutcome> {
    const attempt = this.decide(row, response);
    return new Promise<DeliveryOutcome>((resolve, reject) => {
      this.pending.push({ attempt, resolve, reject });
      this.schedule();
    });
  }

  /** Writes whatever is waiting now (used when stopping). */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.flushing) {
      if (this.flushing) await this.flushing;
      else this.flush();
    }
  }

  private decide(row: OutboxRow, response: WebhookResponse): Attempt {
    const { settings } = this.ctx;
    const now = this.ctx.clock.now();
    const attempt = row.attempts + 1;
    const code = response.statusCode;
    const ok = isSuccess(response);
    const gone = code === 410;
    const error = ok ? null : (response.error ?? statusError(code));
    let outcome: Attempt['outcome'] = 'delivered';
    let nextAttemptAt = row.nextAttemptAt;
    if (!ok) {
      if (gone || attempt >= settings.WEBHOOK_MAX_ATTEMPTS) outcome = 'dead';
      else {
        outcome = 'retrying';
        nextAttemptAt = now + retryDelay(attempt, settings.WEBHOOK_RETRY_BACKOFF);
      }
    }
    return { row, attempt, statusCode: code, error, durationMs: response.durationMs, now, ok, gone, outcome, nextAttemptAt };
  }

  private schedule(): void {
    // One flush at a time: attempts finishing meanwhile form the next batch.
    if (this.flushing) return;
    if (this.pending.length >= MAX_BATCH) {
      this.flush();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, FLUSH_DELAY_MS);
    }
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.flushing || this.pending.length === 0) return;
    const batch = this.pending.splice(0, MAX_BATCH);
    this.flushing = this.write(batch).finally(() => {
      this.flushing = null;
      if (this.pending.length > 0) this.schedule();
    });
  }

  private async write(batch: Waiting[]): Promise<void> {
    let settled: Settled[];
    try {
      settled = await this.ctx.db.write(({ tx }) =>
        this.apply(
          tx,
          batch.map((w) => w.attempt),
        ),
      );
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // One attempt must not cost the others their record: write each alone. An attempt that
      // still cannot be written keeps its lease until it runs out, then is sent again.
      this.ctx.log.warn('webhook outcomes could not be recorded together; recording them one by one', { count: batch.length, error: describeError(error) });
      for (const waiting of batch) await this.write([waiting]);
      return;
    }
    batch.forEach((waiting, i) => {
      const result = settled[i]!;
      this.announce(waiting.attempt, result);
      waiting.resolve(result.outcome);
    });
  }

  /** After commit: log lines and wake-ups for what the batch decided. */
  private announce(attempt: Attempt, settled: Settled): void {
    const endpointId = attempt.row.endpointId;
    if (settled.disabled) {
      this.hooks.endpointDisabled(endpointId);
      if (settled.disabled === 'gone') this.ctx.log.warn('webhook endpoint disabled: it answered 410 Gone', { endpoint: endpointId });
      else this.ctx.log.warn('webhook endpoint disabled: failing continuously', { endpoint: endpointId });
    }
    if (settled.outcome === 'retrying') this.hooks.retryAt(attempt.nextAttemptAt);
  }

  /** Writes a batch in order: consecutive successes together, anything else one by one. */
  private async apply(tx: Tx, attempts: Attempt[]): Promise<Settled[]> {
    const settled: Settled[] = [];
    for (let i = 0; i < attempts.length; ) {
      let end = i;
      while (end < attempts.length && attempts[end]!.ok) end++;
      if (end > i) {
        settled.push(...(await this.settleSuccesses(tx, attempts.slice(i, end))));
        i = end;
      } else {
        settled.push(await this.settleFailure(tx, attempts[i]!));
        i++;
      }
    }
    // Every attempt is logged, even one whose outcome came too late to count (stale). One
    // statement over a JSON array: building a many-row insert costs more than running it.
    const log = JSON.stringify(
      attempts.map((a, i) => [
        a.row.id,
        a.row.endpointId,
        a.attempt,
        a.statusCode,
        a.error,
        a.durationMs,
        settled[i]!.outcome === 'retrying' ? a.nextAttemptAt : null,
        a.now,
      ]),
    );
    await tx.run(sql`
      insert into ${webhookDeliveries} (outbox_id, endpoint_id, attempt, status_code, error, duration_ms, next_retry_at, created_at)
      select j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6, j.value ->> 7
      from json_each(${log}) as j order by j.key`);
    return settled;
  }

  /**
   * Successful attempts: one statement marks all of them delivered, each only under its own
   * claim token; the endpoints they went to are healthy again.
   */
  private async settleSuccesses(tx: Tx, attempts: Attempt[]): Promise<Settled[]> {
    const items = JSON.stringify(attempts.map((a) => [a.row.id, a.row.claimToken ?? '', a.attempt, a.now]));
    const updated = await tx.all<{ id: string }>(sql`
      update fpa_webhook_outbox
      set status = 'delivered', attempts = j.value ->> 2, lease_until = null, claim_token = null, last_error = null, delivered_at = j.value ->> 3
      from json_each(${items}) as j
      where fpa_webhook_outbox.id = j.value ->> 0 and fpa_webhook_outbox.claim_token = j.value ->> 1
      returning fpa_webhook_outbox.id as id`);
    const current = new Set(updated.map((r) => r.id));
    const healthy = new Set(attempts.filter((a) => current.has(a.row.id)).map((a) => a.row.endpointId));
    for (const endpointId of healthy) {
      await tx
        .update(webhookEndpoints)
        .set({ failingSince: null })
        .where(and(eq(webhookEndpoints.id, endpointId), sql`${webhookEndpoints.failingSince} is not null`));
    }
    return attempts.map((a) => ({ outcome: current.has(a.row.id) ? 'delivered' : 'stale' }));
  }

  /** A failed attempt: the row's new state under its claim token, then the endpoint's health. */
  private async settleFailure(tx: Tx, a: Attempt): Promise<Settled> {
    const { row } = a;
    const updated = await tx
      .update(webhookOutbox)
      .set({
        status: a.outcome === 'dead' ? 'dead' : 'pending',
        attempts: a.attempt,
        nextAttemptAt: a.nextAttemptAt,
        leaseUntil: null,
        claimToken: null,
        lastError: a.error,
        deliveredAt: null,
      })
      .where(and(eq(webhookOutbox.id, row.id), eq(webhookOutbox.claimToken, row.claimToken ?? '')))
      .returning({ id: webhookOutbox.id });
    if (updated.length === 0) return { outcome: 'stale' };

    if (a.gone) {
      const disabled = await disableEndpoint(tx, row.endpointId, 'the endpoint answered 410 Gone', a.now);
      return { outcome: a.outcome, ...(disabled ? { disabled: 'gone' as const } : {}) };
    }
    const [health] = await tx
      .update(webhookEndpoints)
      .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${a.now})` })
      .where(eq(webhookEndpoints.id, row.endpointId))
      .returning({ failingSince: webhookEndpoints.failingSince, active: webhookEndpoints.active });
    if (health && !health.active) {
      // Disabled while this attempt was in flight: no retry, like the endpoint's other rows.
      await tx.update(webhookOutbox).set({ status: 'dead' }).where(eq(webhookOutbox.id, row.id));
      return { outcome: 'dead' };
    }
    const since = health?.failingSince ?? a.now;
    if (a.now - since >= this.ctx.settings.WEBHOOK_DISABLE_AFTER) {
      // Dead-letters this row too: its lease was just cleared.
      const disabled = await disableEndpoint(tx, row.endpointId, `failing continuously since ${new Date(since).toISOString()}`, a.now);
      return { outcome: 'dead', ...(disabled ? { disabled: 'failing' as const } : {}) };
    }
    return { outcome: a.outcome };
  }
}

/**
 * Disables an endpoint and dead-letters its pending messages (they can be redelivered by hand).
 * Returns false when it was already disabled.
 */
export async function disableEndpoint(tx: Tx, endpointId: string, reason: string, now: number): Promise<boolean> {
  const changed = await tx
    .update(webhookEndpoints)
    .set({ active: false, disabledReason: reason })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.active, true)))
    .returning({ id: webhookEndpoints.id });
  if (changed.length === 0) return false;
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
  return true;
}

/** A 2xx answer; anything else (3xx included: redirects are not followed) is a failure. */
export function isSuccess(response: WebhookResponse): boolean {
  return response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
}

function statusError(code: number | null): string {
  if (code === null) return 'no response';
  if (code >= 300 && code < 400) return `HTTP ${code}: redirects are not followed`;
  return `HTTP ${code}`;
}
