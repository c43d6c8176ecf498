/**
 * Records the attempts of message rows (events queued by hand) in batches: finished attempts are
 * collected and written together, one write transaction every few milliseconds (or as soon as a
 * batch is full), instead of one transaction per attempt.
 *
 * Batching changes no guarantee: every attempt gets its row in the attempt log, and each
 * message's new state is written only under the claim token it was claimed with, so an outcome
 * that arrives after the claim was voided (redelivered by hand meanwhile) or passed to another
 * worker is discarded ("stale"). Outcomes are applied in the order they finished.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client';
import { describeError } from '../../platform/errors';
import { audit } from '../audit';
import { retryDelay } from './backoff';
import { errorOf, verdictOf } from './dispatch';
import type { WebhookRuntime } from './runtime';
import type { WebhookResponse } from './sender';
import { webhookDeliveries, webhookEndpoints, webhookMessages } from './tables';

export type MessageRow = typeof webhookMessages.$inferSelect;

export type DeliveryOutcome = 'delivered' | 'retrying' | 'dead' | 'stale';

/** A batch is written once this many attempts are waiting… */
const MAX_BATCH = 128;
/** …or this long after the first of them finished, whichever comes first. */
const FLUSH_DELAY_MS = 2;

/** One finished attempt, its outcome decided when its answer came. */
interface Attempt {
  row: MessageRow;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** When the answer came: the attempt's time in the log, and the base of its retry delay. */
  now: number;
  gone: boolean;
  /** Since when the message has been failing; null once delivered or refused. */
  failingSince: number | null;
  /** The outcome before the claim is checked. */
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
  /** This attempt disabled its endpoint (410). */
  disabled?: boolean;
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
    private readonly ctx: WebhookRuntime,
    private readonly hooks: RecorderHooks,
  ) {}

  /** Queues the outcome of one attempt; resolves once it is committed, with what it became. */
  record(row: MessageRow, response: WebhookResponse): Promise<DeliveryOutcome> {
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

  private decide(row: MessageRow, response: WebhookResponse): Attempt {
    const { settings } = this.ctx;
    const now = this.ctx.clock.now();
    const attempt = row.attempts + 1;
    const verdict = verdictOf(response, attempt, settings.WEBHOOK_MAX_ATTEMPTS);
    let outcome: Attempt['outcome'] = 'delivered';
    let nextAttemptAt = row.nextAttemptAt;
    let failingSince: number | null = null;
    let error = errorOf(response);
    if (verdict === 'refused' || verdict === 'gone') outcome = 'dead';
    else if (verdict === 'retry') {
      // The horizon of the endpoint's own delivery: retried on the same backoff until it has
      // failed for WEBHOOK_DISABLE_AFTER (then the endpoint would be disabled; this row dies).
      failingSince = row.failingSince ?? now;
      if (now - failingSince >= settings.WEBHOOK_DISABLE_AFTER) {
        outcome = 'dead';
        error = `${error ?? 'failed'} (failing since ${new Date(failingSince).toISOString()})`;
      } else {
        outcome = 'retrying';
        nextAttemptAt = now + retryDelay(attempt, settings.WEBHOOK_RETRY_BACKOFF);
      }
    }
    // A dead row's `next_attempt_at` is when it died: the window of the dead letters monitoring counts (backlog.ts).
    if (outcome === 'dead') nextAttemptAt = now;
    return {
      row,
      attempt,
      statusCode: response.statusCode,
      error,
      failingSince,
      durationMs: response.durationMs,
      now,
      gone: verdict === 'gone',
      outcome,
      nextAttemptAt,
    };
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

  /** After commit: metrics, log lines and wake-ups for what the batch decided. */
  private announce(attempt: Attempt, settled: Settled): void {
    const endpointId = attempt.row.endpointId;
    if (settled.disabled) {
      this.hooks.endpointDisabled(endpointId);
      this.ctx.log.warn('webhook endpoint disabled: it answered 410 Gone', { endpoint: endpointId });
    }
    if (settled.outcome === 'stale') return;
    this.ctx.metrics.webhookDeliveries.inc({ outcome: settled.outcome === 'retrying' ? 'failed' : settled.outcome });
    if (settled.outcome === 'retrying') this.hooks.retryAt(attempt.nextAttemptAt);
  }

  /**
   * Writes a batch in order, each message under its own claim token, logs every attempt, and
   * marks the endpoints that accepted one as healthy.
   */
  private async apply(tx: Tx, attempts: Attempt[]): Promise<Settled[]> {
    const settled: Settled[] = [];
    for (const a of attempts) settled.push(await this.settle(tx, a));
    await acceptedBy(
      tx,
      attempts.filter((_, i) => settled[i]!.outcome === 'delivered'),
    );
    // Every attempt is logged, even one whose outcome came too late to count (stale). One
    // statement over a JSON array: building a many-row insert costs more than running it.
    const log = JSON.stringify(
      attempts.map((a, i) => [
        a.row.eventId,
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
      insert into ${webhookDeliveries} (message_id, endpoint_id, attempt, status_code, error, duration_ms, next_retry_at, created_at)
      select j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6, j.value ->> 7
      from json_each(${log}) as j order by j.key`);
    return settled;
  }

  private async settle(tx: Tx, a: Attempt): Promise<Settled> {
    const { row } = a;
    const delivered = a.outcome === 'delivered';
    const updated = await tx
      .update(webhookMessages)
      .set({
        status: a.outcome === 'retrying' ? 'pending' : a.outcome,
        attempts: a.attempt,
        nextAttemptAt: a.nextAttemptAt,
        leaseUntil: null,
        claimToken: null,
        lastError: a.error,
        failingSince: a.failingSince,
        deliveredAt: delivered ? a.now : null,
      })
      .where(
        and(
          eq(webhookMessages.endpointId, row.endpointId),
          eq(webhookMessages.eventSequence, row.eventSequence),
          eq(webhookMessages.claimToken, row.claimToken ?? ''),
        ),
      )
      .returning({ status: webhookMessages.status });
    if (updated.length === 0) return { outcome: 'stale' };
    if (!a.gone) return { outcome: a.outcome };
    const disabled = await tx
      .update(webhookEndpoints)
      .set({ active: false, disabledReason: 'the endpoint answered 410 Gone' })
      .where(and(eq(webhookEndpoints.id, row.endpointId), eq(webhookEndpoints.active, true)))
      .returning({ id: webhookEndpoints.id });
    if (disabled.length > 0) {
      await audit(tx, a.now, {
        actor: 'system',
        action: 'webhook.disabled',
        targetType: 'webhook',
        targetId: row.endpointId,
        details: { reason: 'the endpoint answered 410 Gone' },
      });
    }
    return { outcome: a.outcome, disabled: disabled.length > 0 };
  }
}

/**
 * A message the receiver accepted (2xx) ends its endpoint's failing period, whichever way it was
 * sent (README "Only a message the receiver accepts (2xx) ends a failing period"):
 * `failing_since` and `last_error` are cleared and `last_delivered_at` moves on, as after the
 * ordered delivery's accepted messages (run-writes.ts). One statement per endpoint of the batch.
 */
async function acceptedBy(tx: Tx, delivered: readonly Attempt[]): Promise<void> {
  const latest = new Map<string, number>();
  for (const a of delivered) latest.set(a.row.endpointId, Math.max(latest.get(a.row.endpointId) ?? 0, a.now));
  for (const [endpointId, at] of latest) {
    await tx
      .update(webhookEndpoints)
      .set({ failingSince: null, lastError: null, lastDeliveredAt: sql`max(coalesce(${webhookEndpoints.lastDeliveredAt}, 0), ${at})` })
      .where(eq(webhookEndpoints.id, endpointId));
  }
}
