/**
 * Webhook endpoints and their messages: create (with a `whsec_` secret shown once), list,
 * delete, re-enable, a test send, the attempt log, the messages (derived from the event log and
 * the endpoint's position), redelivery of one message and recovery since an instant. Delivery
 * itself is the worker's; the messages and sending them again are message-history.ts's, the
 * answer shapes views.ts's.
 */
import { and, desc, eq, gt, lt } from 'drizzle-orm';
import { FpaError, notFound } from '../../platform/errors';
import { integerCursor, type Page, pageOf, textCursor } from '../../platform/http/paging';
import { audit } from '../audit';
import type { EventLog } from '../events';
import { errorOf, testMessage } from './dispatch';
import { MessageHistory } from './message-history';
import { MAX_URL_LENGTH } from './model';
import type { WebhookRuntime } from './runtime';
import { sealWebhookSecret } from './secrets';
import { generateWebhookSecret } from './signing';
import { checkWebhookUrl } from './ssrf';
import { webhookDeliveries, webhookEndpoints, webhookMessages } from './tables';
import {
  deliveryView,
  endpointView,
  iso,
  isTestMessage,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookMessageView,
  type WebhookTestResult,
} from './views';
import type { DeliveryTotals, DeliveryWorker } from './worker';

export type {
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookMessageView,
  WebhookTestResult,
} from './views';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

export class WebhookService {
  /** The messages and sending them again (message-history.ts). */
  private readonly history: MessageHistory;

  constructor(
    private readonly ctx: WebhookRuntime,
    private readonly log: EventLog,
    private readonly worker: DeliveryWorker,
    /** The event types an endpoint may subscribe to. */
    readonly eventTypes: readonly string[],
  ) {
    this.history = new MessageHistory(ctx, log, worker, (id) => this.find(id));
  }

  /**
   * Creates an endpoint; the answer is the only place its secret is ever shown. It receives the
   * events recorded from now on (the log's head is its starting position; no history replay).
   */
  async create(input: { url: string; events?: string[]; by: string }): Promise<WebhookEndpointView & { secret: string }> {
    const events = this.validateEvents(input.events);
    const url = await this.acceptableUrl(input.url, { added: true });
    const secret = generateWebhookSecret();
    const id = crypto.randomUUID();
    // Stored sealed under the key ring, bound to this endpoint (secrets.ts); never in clear.
    const sealed = await sealWebhookSecret(this.ctx.keyRing, id, secret);
    const now = this.ctx.clock.now();
    const head = await this.log.lastSequence();
    const row = await this.ctx.db.write(async ({ tx }) => {
      const [created] = await tx
        .insert(webhookEndpoints)
        .values({ id, url, secret: sealed, events, active: true, createdBy: input.by, createdAt: now, startSequence: head, position: head })
        .returning();
      await audit(tx, now, { actor: input.by, action: 'webhook.created', targetType: 'webhook', targetId: created!.id, details: { url, events } });
      return created!;
    });
    return { ...this.endpointView(row), secret };
  }

  async list(options: { cursor?: string; limit: number }): Promise<Page<WebhookEndpointView>> {
    const after = textCursor('webhooks', options.cursor);
    const rows = await this.ctx.db.orm
      .select()
      .from(webhookEndpoints)
      .where(after !== null ? gt(webhookEndpoints.id, after) : undefined)
      .orderBy(webhookEndpoints.id)
      .limit(options.limit + 1);
    return pageOf(
      'webhooks',
      rows,
      options.limit,
      (r) => r.id,
      (page) => page.map((r) => this.endpointView(r)),
    );
  }

  async get(id: string): Promise<WebhookEndpointView> {
    return this.endpointView(await this.find(id));
  }

  /**
   * Gives the endpoint a new signing secret, answered this one time and sealed at rest like the
   * first. For WEBHOOK_SECRET_ROTATION_OVERLAP every delivery is signed with both the new and
   * the old secret (two `v1,` entries in `webhook-signature`), so receivers can switch at their
   * own pace; then the old one is dropped. Rotating again during an overlap replaces the old
   * secret with the one current until now: at most two secrets sign at once.
   */
  async rotateSecret(id: string, options: { by: string }): Promise<WebhookEndpointView & { secret: string }> {
    const current = await this.find(id);
    const secret = generateWebhookSecret();
    const sealed = await sealWebhookSecret(this.ctx.keyRing, id, secret);
    const now = this.ctx.clock.now();
    const overlap = this.ctx.settings.WEBHOOK_SECRET_ROTATION_OVERLAP;
    const until = overlap > 0 ? now + overlap : null;
    const row = await this.ctx.db.write(async ({ tx }) => {
      // Compare-and-set on the secret read: of two rotations at once, one wins and the other is told.
      const [updated] = await tx
        .update(webhookEndpoints)
        .set({ secret: sealed, previousSecret: until === null ? null : current.secret, previousSecretUntil: until })
        .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.secret, current.secret)))
        .returning();
      if (!updated) throw new FpaError('conflict', 'the secret was rotated or the endpoint removed meanwhile; try again', { webhook: id });
      await audit(tx, now, {
        actor: options.by,
        action: 'webhook.secret_rotated',
        targetType: 'webhook',
        targetId: id,
        details: { previous_secret_valid_until: iso(until) },
      });
      return updated;
    });
    return { ...this.endpointView(row), secret };
  }

  /** Deletes the endpoint with its message rows and attempt log; nothing more is sent to it. */
  async remove(id: string, options: { by: string }): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      const [deleted] = await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning();
      if (!deleted) throw notFound('Webhook', id);
      await tx.delete(webhookMessages).where(eq(webhookMessages.endpointId, id));
      await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
      await audit(tx, now, { actor: options.by, action: 'webhook.deleted', targetType: 'webhook', targetId: id, details: { url: deleted.url } });
    });
  }

  /**
   * Re-enables an endpoint (its URL is checked again). Delivery resumes where it stopped: the
   * events held since it was disabled go out in order, due now, and its pending message rows
   * are sent again. Dead messages stay dead until recovered or redelivered.
   */
  async enable(id: string, options: { by: string }): Promise<WebhookEndpointView> {
    const current = await this.find(id);
    await this.acceptableUrl(current.url, { added: false });
    const held = await this.log.countAfter(current.position, current.events);
    const now = this.ctx.clock.now();
    const row = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const [updated] = await tx
        .update(webhookEndpoints)
        .set({ active: true, disabledReason: null, failingSince: null, attempts: 0, tries: [], nextAttemptAt: now, leaseUntil: null, claimToken: null })
        .where(eq(webhookEndpoints.id, id))
        .returning();
      if (!updated) throw notFound('Webhook', id);
      await audit(tx, now, {
        actor: options.by,
        action: 'webhook.enabled',
        targetType: 'webhook',
        targetId: id,
        details: { resumed_after: updated.position, held: held.count },
      });
      afterCommit(() => this.worker.wake());
      return updated;
    });
    return this.endpointView(row);
  }

  /**
   * Sends a `webhook_test` event now, signed, and answers the attempt. Nothing is stored but an
   * audit entry; the endpoint's state does not change, whether it is enabled or not.
   */
  async test(id: string, options: { by: string }): Promise<WebhookTestResult> {
    const endpoint = await this.find(id);
    const message = testMessage(id, this.ctx.clock.now());
    const response = await this.worker.dispatcher.vetAndSend(endpoint, message);
    const result = { status_code: response.statusCode, error: errorOf(response), duration_ms: response.durationMs };
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      // In the attempt log too (marked as a test by its message id), so the deliveries show it.
      await tx.insert(webhookDeliveries).values({
        messageId: message.id,
        endpointId: id,
        attempt: 1,
        count: 1,
        statusCode: result.status_code,
        error: result.error,
        durationMs: result.duration_ms,
        nextRetryAt: null,
        createdAt: now,
      });
      await audit(tx, now, {
        actor: options.by,
        action: 'webhook.tested',
        targetType: 'webhook',
        targetId: id,
        details: { status_code: result.status_code, error: result.error },
      });
    });
    return result;
  }

  /** The attempt log of an endpoint, newest first. */
  async deliveries(id: string, options: { cursor?: string; limit: number; message?: string }): Promise<Page<WebhookDeliveryView>> {
    await this.find(id);
    const before = integerCursor('webhook-deliveries', options.cursor);
    const conditions = [eq(webhookDeliveries.endpointId, id)];
    if (before !== null) conditions.push(lt(webhookDeliveries.id, before));
    if (options.message) conditions.push(eq(webhookDeliveries.messageId, options.message));
    const rows = await this.ctx.db.orm
      .select()
      .from(webhookDeliveries)
      .where(and(...conditions))
      .orderBy(desc(webhookDeliveries.id))
      .limit(options.limit + 1);
    // The event type of each (a few dozen rows a page: one look-up per distinct event).
    const types = new Map<string, string | null>();
    for (const r of rows.slice(0, options.limit)) {
      if (isTestMessage(r.messageId) || types.has(r.messageId)) continue;
      types.set(r.messageId, (await this.log.find(r.messageId))?.type ?? null);
    }
    return pageOf(
      'webhook-deliveries',
      rows,
      options.limit,
      (r) => r.id,
      (page) => page.map((r) => deliveryView(r, types.get(r.messageId) ?? null)),
    );
  }

  /** The messages of an endpoint, newest first (message-history.ts). */
  messages(id: string, options: { cursor?: string; limit: number; status?: string }): Promise<Page<WebhookMessageView>> {
    return this.history.messages(id, options);
  }

  /** Sends one message again by hand (message-history.ts). */
  redeliver(id: string, messageId: string, options: { by: string }): Promise<WebhookMessageView> {
    return this.history.redeliver(id, messageId, options);
  }

  /** Sends again every message not delivered since `since` (message-history.ts). */
  recover(id: string, since: string, options: { by: string }): Promise<{ requeued: number }> {
    return this.history.recover(id, since, options);
  }

  /** Delivers what is due once (the `deliver-webhooks` job). */
  deliverDue(): Promise<DeliveryTotals> {
    return this.worker.deliverDue();
  }

  private async find(id: string): Promise<EndpointRow> {
    const [row] = await this.ctx.db.orm.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).limit(1);
    if (!row) throw notFound('Webhook', id);
    return row;
  }

  /** `added`: a new endpoint's URL, which must be https across the internet (an older one keeps its http). */
  private async acceptableUrl(url: string, options: { added: boolean }): Promise<string> {
    if (url.length > MAX_URL_LENGTH) {
      throw new FpaError('validation_error', `url must be at most ${MAX_URL_LENGTH} characters`, { field: 'url' });
    }
    const check = await checkWebhookUrl(url, { ...this.worker.dispatcher.urlPolicy, httpsAcrossTheInternet: options.added });
    if (!check.ok) throw new FpaError('webhook_url_refused', `the webhook URL is refused: ${check.reason}`, { reason: check.reason });
    return check.url.toString();
  }

  private validateEvents(events: string[] | undefined): string[] {
    if (events === undefined) return ['punch_received'];
    const unknown = events.filter((e) => !this.eventTypes.includes(e));
    if (unknown.length > 0 || events.length === 0) {
      throw new FpaError('validation_error', `events must be a non-empty list of: ${this.eventTypes.join(', ')}`, { field: 'events', unknown });
    }
    return [...new Set(events)];
  }

  endpointView(row: EndpointRow): WebhookEndpointView {
    return endpointView(row, this.ctx.clock.now());
  }
}
