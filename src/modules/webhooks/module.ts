/**
 * Webhooks: endpoints (Standard Webhooks signatures), each following the event log from its own
 * position for the event types it subscribes to, and the delivery worker. Nothing is written
 * when events are recorded: a terminal's upload costs the same whatever the number of
 * endpoints, and the worker is woken after the commit.
 *
 * The worker is part of serving, not a periodic job: it runs in every serving instance
 * whatever TASK_BACKEND says, unless WEBHOOK_WORKER is off; then `deliver-webhooks` (job,
 * script, or its every-minute schedule under TASK_BACKEND=cron) delivers what is due.
 */
import { and, eq, inArray, isNotNull, lt } from 'drizzle-orm';
import { deleteInBatches } from '../../platform/db/purge';
import type { EventLog } from '../events';
import { BacklogCounter, type WebhookBacklog } from './backlog';
import type { WebhookRuntime } from './runtime';
import { sealClearWebhookSecrets } from './secrets';
import type { WebhookSender } from './sender';
import { WebhookService } from './service';
import { webhookDeliveries, webhookEndpoints, webhookMessages } from './tables';
import { DeliveryWorker } from './worker';

export interface WebhookOptions {
  /** The event types an endpoint may subscribe to (every type the service records). */
  eventTypes: readonly string[];
  /** The HTTP call (default: fetch); hosts and tests may vary it. */
  sender?: WebhookSender;
}

export class Webhooks {
  readonly worker: DeliveryWorker;
  readonly service: WebhookService;
  private readonly counter: BacklogCounter;

  constructor(
    readonly ctx: WebhookRuntime,
    private readonly log: EventLog,
    options: WebhookOptions,
  ) {
    this.worker = new DeliveryWorker(ctx, log, options.sender);
    this.service = new WebhookService(ctx, log, this.worker, options.eventTypes);
    this.counter = new BacklogCounter(ctx, log);
    const gauge = (name: string, help: string, value: (b: WebhookBacklog) => number) =>
      ctx.metrics.gauge(name, help, [], async () => [{ value: value(await this.backlog()) }]);
    gauge('fpa_webhook_messages_pending', 'Webhook messages not delivered yet, those held for disabled endpoints included.', (b) => b.pending);
    gauge(
      'fpa_webhook_endpoints_disabled',
      'Webhook endpoints disabled (410 Gone, or failing for WEBHOOK_DISABLE_AFTER): their messages are held.',
      (b) => b.endpoints_disabled,
    );
    gauge('fpa_webhook_dead_letters', 'Webhook messages dead-lettered within RETENTION_DELIVERIES_DAYS and not sent again since.', (b) => b.dead_letters);
  }

  /**
   * Retention: delivery attempts older than `cutoff`, and message rows delivered before it.
   * Dead and pending rows stay (a dead one is what `recover` sends again; without its row the
   * message would look delivered).
   */
  async purgeBefore(cutoff: number): Promise<{ webhook_deliveries: number; webhook_messages: number }> {
    const { db } = this.ctx;
    return {
      webhook_deliveries: await deleteInBatches(db, webhookDeliveries, lt(webhookDeliveries.createdAt, cutoff)),
      webhook_messages: await deleteInBatches(db, webhookMessages, and(eq(webhookMessages.status, 'delivered'), lt(webhookMessages.deliveredAt, cutoff))!),
    };
  }

  /**
   * Retention: of these events, those an endpoint still has to hand off (a subscribed type after
   * its position, active or disabled: a disabled endpoint holds its messages for when it is
   * resumed), or queued by hand (a pending message row). Their data must stay as recorded.
   */
  async stillOwed(events: readonly { sequence: number; type: string }[]): Promise<Set<number>> {
    const owed = new Set<number>();
    if (events.length === 0) return owed;
    const endpoints = await this.ctx.db.orm.select({ position: webhookEndpoints.position, events: webhookEndpoints.events }).from(webhookEndpoints);
    for (const e of events) {
      if (endpoints.some((endpoint) => e.sequence > endpoint.position && endpoint.events.includes(e.type))) owed.add(e.sequence);
    }
    const pending = await this.ctx.db.orm
      .select({ sequence: webhookMessages.eventSequence })
      .from(webhookMessages)
      .where(
        and(
          eq(webhookMessages.status, 'pending'),
          inArray(
            webhookMessages.eventSequence,
            events.map((e) => e.sequence),
          ),
        ),
      );
    for (const row of pending) owed.add(row.sequence);
    return owed;
  }

  /**
   * What monitoring says of delivery (backlog.ts): the messages not delivered yet (held ones of
   * disabled endpoints included) and when the oldest was recorded, the endpoints disabled, the
   * dead letters kept, and the endpoints that need someone.
   */
  backlog(): Promise<WebhookBacklog> {
    return this.counter.read();
  }

  /**
   * Frees every claim of an endpoint or a message row. Only for a process that has just taken a
   * `file:` database's single-writer lock: no other process can hold a claim then, so every
   * claim left belongs to one that crashed, and its work is sent again now instead of after its
   * lease (up to WEBHOOK_TIMEOUT times a batch's rounds of requests) runs out.
   */
  async releaseClaims(): Promise<number> {
    const released = await this.ctx.db.write(async ({ tx }) => {
      const endpoints = await tx
        .update(webhookEndpoints)
        .set({ leaseUntil: null, claimToken: null })
        .where(isNotNull(webhookEndpoints.claimToken))
        .returning({ id: webhookEndpoints.id });
      const rows = await tx
        .update(webhookMessages)
        .set({ leaseUntil: null, claimToken: null })
        .where(isNotNull(webhookMessages.claimToken))
        .returning({ id: webhookMessages.eventId });
      return endpoints.length + rows.length;
    });
    if (released > 0) this.ctx.log.info('webhook claims of a previous process released', { released });
    return released;
  }

  /** Encrypts the signing secrets an earlier release stored in clear (at start-up; secrets.ts). */
  sealClearSecrets(): Promise<number> {
    return sealClearWebhookSecrets(this.ctx);
  }

  /** Starts the in-process worker unless WEBHOOK_WORKER is off. */
  startWorker(): void {
    if (this.ctx.settings.WEBHOOK_WORKER) this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}
