/**
 * Webhook endpoints and their messages: create (with a `whsec_` secret shown once), list,
 * delete, re-enable, the attempt log, and redelivery by hand. Delivery itself is the worker's.
 */
import { and, asc, desc, eq, gt, lt, or } from 'drizzle-orm';
import { FpaError, notFound } from '../../platform/errors';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { type Page, pageOf, readCursor } from '../../platform/http/paging';
import type { Runtime } from '../../platform/runtime';
import { audit } from '../audit';
import { WEBHOOK_EVENTS, type WebhookEvent } from './outbox';
import { generateWebhookSecret } from './signing';
import { checkWebhookUrl } from './ssrf';
import { OUTBOX_STATUSES, webhookDeliveries, webhookEndpoints, webhookOutbox } from './tables';
import type { DeliveryTotals, DeliveryWorker } from './worker';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type MessageRow = typeof webhookOutbox.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type MessageStatus = (typeof OUTBOX_STATUSES)[number];

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_by: string;
  created_at: string;
}

export interface WebhookMessageView {
  id: string;
  event_type: string;
  punch_sequence: number | null;
  status: MessageStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookDeliveryView {
  id: number;
  message_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
  created_at: string;
}

export const MAX_URL_LENGTH = 2048;

export class WebhookService {
  constructor(
    private readonly ctx: Runtime,
    private readonly worker: DeliveryWorker,
  ) {}

  /** Creates an endpoint; the answer is the only place its secret is ever shown. */
  async create(input: { url: string; events?: string[]; by: string }): Promise<WebhookEndpointView & { secret: string }> {
    const events = validateEvents(input.events);
    const url = await this.acceptableUrl(input.url);
    const secret = generateWebhookSecret();
    const now = this.ctx.clock.now();
    const row = await this.ctx.db.write(async ({ tx }) => {
      const [created] = await tx
        .insert(webhookEndpoints)
        .values({ id: crypto.randomUUID(), url, secret, events, active: true, createdBy: input.by, createdAt: now })
        .returning();
      await audit(tx, now, { actor: input.by, action: 'webhook.created', targetType: 'webhook', targetId: created!.id, details: { url, events } });
      return created!;
    });
    return { ...endpointView(row), secret };
  }

  async list(options: { cursor?: string; limit: number }): Promise<Page<WebhookEndpointView>> {
    const after = readCursor(options.cursor);
    const rows = await this.ctx.db.orm
      .select()
      .from(webhookEndpoints)
      .where(after !== null ? gt(webhookEndpoints.id, String(after)) : undefined)
      .orderBy(asc(webhookEndpoints.id))
      .limit(options.limit + 1);
    return pageOf(
      rows,
      options.limit,
      (r) => r.id,
      (page) => page.map(endpointView),
    );
  }

  async get(id: string): Promise<WebhookEndpointView> {
    return endpointView(await this.find(id));
  }

  /** Deletes the endpoint with its messages and attempt log; nothing more is sent to it. */
  async remove(id: string, options: { by: string }): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      const [deleted] = await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning();
      if (!deleted) throw notFound('Webhook', id);
      await tx.delete(webhookOutbox).where(eq(webhookOutbox.endpointId, id));
      await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
      await audit(tx, now, { actor: options.by, action: 'webhook.deleted', targetType: 'webhook', targetId: id, details: { url: deleted.url } });
    });
  }

  /**
   * Re-enables a disabled endpoint (its URL is checked again). The messages held while it was
   * disabled become pending, due now; dead messages stay dead until redelivered.
   */
  async enable(id: string, options: { by: string }): Promise<WebhookEndpointView> {
    const current = await this.find(id);
    await this.acceptableUrl(current.url);
    const now = this.ctx.clock.now();
    const row = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const [updated] = await tx
        .update(webhookEndpoints)
        .set({ active: true, disabledReason: null, failingSince: null })
        .where(eq(webhookEndpoints.id, id))
        .returning();
      if (!updated) throw notFound('Webhook', id);
      const released = await tx
        .update(webhookOutbox)
        .set({ status: 'pending', nextAttemptAt: now, leaseUntil: null, claimToken: null })
        .where(and(eq(webhookOutbox.endpointId, id), eq(webhookOutbox.status, 'held')))
        .returning({ id: webhookOutbox.id });
      await audit(tx, now, { actor: options.by, action: 'webhook.enabled', targetType: 'webhook', targetId: id, details: { released: released.length } });
      if (released.length > 0) afterCommit(() => this.worker.wake());
      return updated;
    });
    return endpointView(row);
  }

  /** The attempt log of an endpoint, newest first. */
  async deliveries(id: string, options: { cursor?: string; limit: number; message?: string }): Promise<Page<WebhookDeliveryView>> {
    await this.find(id);
    const before = readCursor(options.cursor);
    const conditions = [eq(webhookDeliveries.endpointId, id)];
    if (before !== null) conditions.push(lt(webhookDeliveries.id, Number(before)));
    if (options.message) conditions.push(eq(webhookDeliveries.outboxId, options.message));
    const rows = await this.ctx.db.orm
      .select()
      .from(webhookDeliveries)
      .where(and(...conditions))
      .orderBy(desc(webhookDeliveries.id))
      .limit(options.limit + 1);
    return pageOf(
      rows,
      options.limit,
      (r) => r.id,
      (page) => page.map(deliveryView),
    );
  }

  /** The messages of an endpoint, newest first, optionally by status (find dead ones to redeliver). */
  async messages(id: string, options: { cursor?: string; limit: number; status?: string }): Promise<Page<WebhookMessageView>> {
    await this.find(id);
    const status = options.status;
    if (status !== undefined && !(OUTBOX_STATUSES as readonly string[]).includes(status)) {
      throw new FpaError('validation_error', `status must be one of ${OUTBOX_STATUSES.join(', ')}`, { field: 'status' });
    }
    const conditions = [eq(webhookOutbox.endpointId, id)];
    if (status) conditions.push(eq(webhookOutbox.status, status as MessageStatus));
    if (options.cursor) {
      const [createdAt, messageId] = decodeCursor(options.cursor) ?? [];
      if (typeof createdAt !== 'number' || typeof messageId !== 'string') throw new FpaError('invalid_cursor', 'the cursor is not valid', {});
      conditions.push(or(lt(webhookOutbox.createdAt, createdAt), and(eq(webhookOutbox.createdAt, createdAt), lt(webhookOutbox.id, messageId)))!);
    }
    const rows = await this.ctx.db.orm
      .select()
      .from(webhookOutbox)
      .where(and(...conditions))
      .orderBy(desc(webhookOutbox.createdAt), desc(webhookOutbox.id))
      .limit(options.limit + 1);
    const page = rows.slice(0, options.limit);
    const last = page[page.length - 1];
    return { results: page.map(messageView), next_cursor: rows.length > options.limit && last ? encodeCursor([last.createdAt, last.id]) : null };
  }

  /**
   * Sends a message again by hand, whatever its state: it becomes pending now with a fresh
   * attempt budget, under the same `webhook-id` (receivers de-duplicate on it). Any claim in
   * flight is voided, so its outcome no longer counts.
   */
  async redeliver(id: string, messageId: string, options: { by: string }): Promise<WebhookMessageView> {
    const endpoint = await this.find(id);
    if (!endpoint.active) {
      throw new FpaError('conflict', 'the endpoint is disabled; enable it first', { webhook: id, disabled_reason: endpoint.disabledReason });
    }
    const now = this.ctx.clock.now();
    const row = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const [updated] = await tx
        .update(webhookOutbox)
        .set({ status: 'pending', attempts: 0, nextAttemptAt: now, leaseUntil: null, claimToken: null, deliveredAt: null })
        .where(and(eq(webhookOutbox.id, messageId), eq(webhookOutbox.endpointId, id)))
        .returning();
      if (!updated) throw notFound('Message', messageId);
      await audit(tx, now, { actor: options.by, action: 'webhook.redelivered', targetType: 'webhook', targetId: id, details: { message_id: messageId } });
      afterCommit(() => this.worker.wake());
      return updated;
    });
    return messageView(row);
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

  private async acceptableUrl(url: string): Promise<string> {
    if (url.length > MAX_URL_LENGTH) {
      throw new FpaError('validation_error', `url must be at most ${MAX_URL_LENGTH} characters`, { field: 'url' });
    }
    const check = await checkWebhookUrl(url, { allowPrivateNetworks: this.ctx.settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS });
    if (!check.ok) throw new FpaError('webhook_url_refused', `the webhook URL is refused: ${check.reason}`, { reason: check.reason });
    return check.url.toString();
  }
}

function validateEvents(events: string[] | undefined): WebhookEvent[] {
  if (events === undefined) return ['punch_received'];
  const unknown = events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0 || events.length === 0) {
    throw new FpaError('validation_error', `events must be a non-empty list of: ${WEBHOOK_EVENTS.join(', ')}`, { field: 'events', unknown });
  }
  return [...new Set(events)] as WebhookEvent[];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function endpointView(row: EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    disabled_reason: row.disabledReason,
    failing_since: iso(row.failingSince),
    created_by: row.createdBy,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

function messageView(row: MessageRow): WebhookMessageView {
  return {
    id: row.id,
    event_type: row.eventType,
    punch_sequence: row.punchSequence,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    last_error: row.lastError,
    created_at: new Date(row.createdAt).toISOString(),
    delivered_at: iso(row.deliveredAt),
  };
}

function deliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    message_id: row.outboxId,
    attempt: row.attempt,
    status_code: row.statusCode,
    error: row.error,
    duration_ms: row.durationMs,
    next_retry_at: iso(row.nextRetryAt),
    created_at: new Date(row.createdAt).toISOString(),
  };
}
