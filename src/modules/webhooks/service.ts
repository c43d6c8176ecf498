/**
 * Webhooks: endpoints (Standard Webhooks signatures), the outbox written with the punches it
 * announces (it reacts to `punch_received` in the same transaction), and the delivery worker.
 *
 * The worker is part of serving, not a periodic job: it runs in every serving instance
 * whatever TASK_BACKEND says, unless WEBHOOK_WORKER is off; then `deliver-webhooks` (job,
 * script, or its every-minute schedule under TASK_BACKEND=cron) drains the outbox.
 */
import { and, inArray, lt, sql } from 'drizzle-orm';
import { deleteInBatches } from '../../platform/db/purge';
import type { Runtime } from '../../platform/runtime';
import type { EventLog } from '../events';
import type { PunchService } from '../punches';
import { WebhookService } from './endpoints';
import { writePunchMessages } from './outbox';
import { webhookDeliveries, webhookOutbox } from './tables';
import { DeliveryWorker } from './worker';

export class Webhooks {
  readonly worker: DeliveryWorker;
  readonly service: WebhookService;

  constructor(
    readonly ctx: Runtime,
    log: EventLog,
    punches: PunchService,
  ) {
    this.worker = new DeliveryWorker(ctx);
    this.service = new WebhookService(ctx, this.worker);
    // Outbox rows commit in the same transaction as the punches they announce.
    punches.events.react('punch_received', async (w, received) => {
      await writePunchMessages(w.tx, received, ctx.clock.now());
    });
    log.onAppended(() => this.worker.wake());
    ctx.metrics.gauge('fpa_webhook_messages_pending', 'Webhook messages not delivered yet (pending or held), every endpoint.', [], async () => [
      { value: (await this.backlog()).pending },
    ]);
  }

  /**
   * Retention: delivery attempts, and delivered, dead or held outbox rows, older than `cutoff`;
   * a pending outbox row always stays (its payload is self-contained).
   */
  async purgeBefore(cutoff: number): Promise<{ webhook_deliveries: number; webhook_outbox: number }> {
    const { db } = this.ctx;
    return {
      webhook_deliveries: await deleteInBatches(db, webhookDeliveries, lt(webhookDeliveries.createdAt, cutoff)),
      webhook_outbox: await deleteInBatches(
        db,
        webhookOutbox,
        and(inArray(webhookOutbox.status, ['delivered', 'dead', 'held']), lt(sql`coalesce(${webhookOutbox.deliveredAt}, ${webhookOutbox.createdAt})`, cutoff))!,
      ),
    };
  }

  /** Messages not delivered yet (pending or held) and the age of the oldest, over every endpoint. */
  async backlog(): Promise<{ pending: number; oldest_at: string | null }> {
    const [row] = await this.ctx.db.orm
      .select({ n: sql<number>`count(*)`, oldest: sql<number | null>`min(${webhookOutbox.createdAt})` })
      .from(webhookOutbox)
      .where(inArray(webhookOutbox.status, ['pending', 'held']));
    return { pending: row?.n ?? 0, oldest_at: row?.oldest ? new Date(row.oldest).toISOString() : null };
  }

  /** Starts the in-process worker unless WEBHOOK_WORKER is off. */
  startWorker(): void {
    if (this.ctx.settings.WEBHOOK_WORKER) this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}
