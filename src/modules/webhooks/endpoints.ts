/**
 * Webhook endpoints and their messages: create (with a `whsec_` secret shown once), list,
 * delete, re-enable, a test send, the attempt log, the messages (derived from the event log and
 * the endpoint's position), redelivery of one message and recovery since an instant. Delivery
 * itself is the worker's.
 */
import { and, desc, eq, gt, gte, inArray, lt, sql } from 'drizzle-orm';
import { FpaError, notFound } from '../../platform/errors';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { type Page, pageOf, readCursor } from '../../platform/http/paging';
import type { Runtime } from '../../platform/runtime';
import { audit } from '../audit';
import type { EventLog, LoggedEvent } from '../events';
import { errorOf, testMessage } from './dispatch';
import { sealWebhookSecret } from './secrets';
import { generateWebhookSecret } from './signing';
import { checkWebhookUrl } from './ssrf';
import { webhookDeliveries, webhookEndpoints, webhookMessages } from './tables';
import type { DeliveryTotals, DeliveryWorker } from './worker';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type MessageRow = typeof webhookMessages.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A message as shown: `held` is a pending one whose endpoint is disabled. */
export const MESSAGE_VIEW_STATUSES = ['pending', 'held', 'delivered', 'dead'] as const;
export type MessageViewStatus = (typeof MESSAGE_VIEW_STATUSES)[number];

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_by: string;
  created_at: string;
  /** Every subscribed event up to this sequence was handed off. */
  position: number;
  /** Consecutive failed attempts of the next event. */
  attempts: number;
  /** While backing off: when delivery is tried again. */
  next_attempt_at: string | null;
  last_error: string | null;
  last_delivered_at: string | null;
  /** During a secret rotation's overlap: until when deliveries are also signed with the previous secret. */
  previous_secret_valid_until: string | null;
}

export interface WebhookMessageView {
  /** The event's id: the `webhook-id` of every attempt. */
  id: string;
  event_type: string;
  event_sequence: number;
  status: MessageViewStatus;
  /** Attempts counted for this message; null for one delivered in order (not counted per event). */
  attempts: number | null;
  next_attempt_at: string | null;
  last_error: string | null;
  /** When the event was recorded. */
  created_at: string;
  /** When it was delivered, where known (a message row); null for one delivered in order. */
  delivered_at: string | null;
}

export interface WebhookDeliveryView {
  id: number;
  message_id: string;
  attempt: number;
  /** Messages the row accounts for: 1, or a run of in-order deliveries ending with `message_id`. */
  count: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
  created_at: string;
}

export interface WebhookTestResult {
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export const MAX_URL_LENGTH = 2048;
/** Events scanned per step while looking for delivered messages. */
const SCAN = 500;

export class WebhookService {
  constructor(
    private readonly ctx: Runtime,
    private readonly log: EventLog,
    private readonly worker: DeliveryWorker,
    /** The event types an endpoint may subscribe to. */
    readonly eventTypes: readonly string[],
  ) {}

  /**
   * Creates an endpoint; the answer is the only place its secret is ever shown. It receives the
   * events recorded from now on (the log's head is its starting position; no history replay).
   */
  async create(input: { url: string; events?: string[]; by: string }): Promise<WebhookEndpointView & { secret: string }> {
    const events = this.validateEvents(input.events);
    const url = await this.acceptableUrl(input.url);
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
    const after = readCursor(options.cursor);
    const rows = await this.ctx.db.orm
      .select()
      .from(webhookEndpoints)
      .where(after !== null ? gt(webhookEndpoints.id, String(after)) : undefined)
      .orderBy(webhookEndpoints.id)
      .limit(options.limit + 1);
    return pageOf(
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
    await this.acceptableUrl(current.url);
    const held = await this.log.countAfter(current.position, current.events);
    const now = this.ctx.clock.now();
    const row = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const [updated] = await tx
        .update(webhookEndpoints)
        .set({ active: true, disabledReason: null, failingSince: null, attempts: 0, nextAttemptAt: now, leaseUntil: null, claimToken: null })
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
    await this.ctx.db.write(({ tx }) =>
      audit(tx, now, {
        actor: options.by,
        action: 'webhook.tested',
        targetType: 'webhook',
        targetId: id,
        details: { status_code: result.status_code, error: result.error },
      }),
    );
    return result;
  }

  /** The attempt log of an endpoint, newest first. */
  async deliveries(id: string, options: { cursor?: string; limit: number; message?: string }): Promise<Page<WebhookDeliveryView>> {
    await this.find(id);
    const before = readCursor(options.cursor);
    const conditions = [eq(webhookDeliveries.endpointId, id)];
    if (before !== null) conditions.push(lt(webhookDeliveries.id, Number(before)));
    if (options.message) conditions.push(eq(webhookDeliveries.messageId, options.message));
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

  /**
   * The messages of an endpoint, newest first: the events of its types since it was created,
   * each `delivered` (at or before its position), `dead` or `pending` (a message row), or
   * `pending` after its position (`held` while it is disabled). Optionally of one status.
   */
  async messages(id: string, options: { cursor?: string; limit: number; status?: string }): Promise<Page<WebhookMessageView>> {
    const endpoint = await this.find(id);
    const status = options.status;
    if (status !== undefined && !(MESSAGE_VIEW_STATUSES as readonly string[]).includes(status)) {
      throw new FpaError('validation_error', `status must be one of ${MESSAGE_VIEW_STATUSES.join(', ')}`, { field: 'status' });
    }
    let before = Number.MAX_SAFE_INTEGER;
    if (options.cursor) {
      const [sequence] = decodeCursor(options.cursor) ?? [];
      if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence)) throw new FpaError('invalid_cursor', 'the cursor is not valid', {});
      before = sequence;
    }
    const want = options.limit + 1;
    const views = await this.messagesBefore(endpoint, before, want, status as MessageViewStatus | undefined);
    const page = views.slice(0, options.limit);
    const last = page[page.length - 1];
    return { results: page, next_cursor: views.length > options.limit && last ? encodeCursor([last.event_sequence]) : null };
  }

  private async messagesBefore(endpoint: EndpointRow, before: number, want: number, status: MessageViewStatus | undefined): Promise<WebhookMessageView[]> {
    const floor = endpoint.startSequence;
    const types = endpoint.events;
    const view = await this.viewer(endpoint);
    if (status === 'dead') {
      const rows = await this.rowsBefore(endpoint.id, before, want, ['dead']);
      return rows.map((r) => view.row(r));
    }
    if (status === 'pending' || status === 'held') {
      if ((status === 'pending') !== endpoint.active) return [];
      // After the position: the ordered stream; at or before it: rows queued by hand.
      const ahead = await this.log.before(before, want, { floor: Math.max(floor, endpoint.position), types });
      const out = ahead.map((e) => view.event(e, null));
      if (out.length < want) {
        const rows = await this.rowsBefore(endpoint.id, Math.min(before, endpoint.position + 1), want - out.length, ['pending']);
        out.push(...rows.map((r) => view.row(r)));
      }
      return out;
    }
    if (status === 'delivered') {
      const out: WebhookMessageView[] = [];
      let cursor = Math.min(before, endpoint.position + 1);
      while (out.length < want) {
        const events = await this.log.before(cursor, SCAN, { floor, types });
        if (events.length === 0) break;
        const rows = await this.rowsOf(endpoint.id, events);
        for (const e of events) {
          const v = view.event(e, rows.get(e.sequence) ?? null);
          if (v.status === 'delivered') out.push(v);
          if (out.length >= want) break;
        }
        cursor = events[events.length - 1]!.sequence;
      }
      return out;
    }
    const events = await this.log.before(before, want, { floor, types });
    const rows = await this.rowsOf(endpoint.id, events);
    return events.map((e) => view.event(e, rows.get(e.sequence) ?? null));
  }

  /** Builds message views for one endpoint as it stands now. */
  private async viewer(endpoint: EndpointRow) {
    // The first event after the position carries the endpoint's attempts and last error.
    const [next] = await this.log.after(endpoint.position, 1, endpoint.events);
    const backingOff = endpoint.active && endpoint.attempts > 0 ? iso(endpoint.nextAttemptAt) : null;
    const rowView = (r: MessageRow): WebhookMessageView => ({
      id: r.eventId,
      event_type: r.eventType,
      event_sequence: r.eventSequence,
      status: r.status === 'pending' && !endpoint.active ? 'held' : r.status,
      attempts: r.attempts,
      next_attempt_at: r.status === 'pending' && endpoint.active ? iso(r.nextAttemptAt) : null,
      last_error: r.lastError,
      created_at: new Date(r.eventAt).toISOString(),
      delivered_at: iso(r.deliveredAt),
    });
    return {
      row: rowView,
      event: (e: LoggedEvent, row: MessageRow | null): WebhookMessageView => {
        if (row) return rowView(row);
        const base = { id: e.id, event_type: e.type, event_sequence: e.sequence, created_at: new Date(e.at).toISOString() };
        if (e.sequence <= endpoint.position) {
          return { ...base, status: 'delivered', attempts: null, next_attempt_at: null, last_error: null, delivered_at: null };
        }
        const head = next?.sequence === e.sequence;
        return {
          ...base,
          status: endpoint.active ? 'pending' : 'held',
          attempts: head ? endpoint.attempts : 0,
          next_attempt_at: backingOff,
          last_error: head ? endpoint.lastError : null,
          delivered_at: null,
        };
      },
    };
  }

  private async rowsBefore(endpointId: string, before: number, limit: number, statuses: MessageRow['status'][]): Promise<MessageRow[]> {
    return this.ctx.db.orm
      .select()
      .from(webhookMessages)
      .where(and(eq(webhookMessages.endpointId, endpointId), inArray(webhookMessages.status, statuses), lt(webhookMessages.eventSequence, before)))
      .orderBy(desc(webhookMessages.eventSequence))
      .limit(limit);
  }

  private async rowsOf(endpointId: string, events: readonly LoggedEvent[]): Promise<Map<number, MessageRow>> {
    if (events.length === 0) return new Map();
    const rows = await this.ctx.db.orm
      .select()
      .from(webhookMessages)
      .where(
        and(
          eq(webhookMessages.endpointId, endpointId),
          inArray(
            webhookMessages.eventSequence,
            events.map((e) => e.sequence),
          ),
        ),
      );
    return new Map(rows.map((r) => [r.eventSequence, r]));
  }

  /**
   * Sends one message again by hand, whatever its state, under the same `webhook-id`
   * (receivers de-duplicate on it): it becomes a message row, pending now with a fresh attempt
   * budget; any claim of it in flight is voided, so that attempt's outcome no longer counts. A
   * message still ahead in the endpoint's ordered delivery is pending already: its backoff is
   * cut short instead.
   */
  async redeliver(id: string, messageId: string, options: { by: string }): Promise<WebhookMessageView> {
    const endpoint = await this.find(id);
    if (!endpoint.active) {
      throw new FpaError('conflict', 'the endpoint is disabled; enable it first', { webhook: id, disabled_reason: endpoint.disabledReason });
    }
    const [existing] = await this.ctx.db.orm
      .select({ sequence: webhookMessages.eventSequence })
      .from(webhookMessages)
      .where(and(eq(webhookMessages.endpointId, id), eq(webhookMessages.eventId, messageId)))
      .limit(1);
    const event = existing ? null : await this.log.find(messageId, endpoint.startSequence);
    if (!existing && (!event || !endpoint.events.includes(event.type))) throw notFound('Message', messageId);
    const now = this.ctx.clock.now();
    const fresh = {
      status: 'pending' as const,
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: null,
      claimToken: null,
      lastError: null,
      failingSince: null,
      deliveredAt: null,
    };
    const updated = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      let row: MessageRow | undefined;
      let current = endpoint;
      if (existing) {
        [row] = await tx
          .update(webhookMessages)
          .set(fresh)
          .where(and(eq(webhookMessages.endpointId, id), eq(webhookMessages.eventSequence, existing.sequence)))
          .returning();
      } else if (event && event.sequence <= endpoint.position) {
        [row] = await tx
          .insert(webhookMessages)
          .values({ endpointId: id, eventSequence: event.sequence, eventId: event.id, eventType: event.type, eventAt: event.at, createdAt: now, ...fresh })
          .onConflictDoUpdate({ target: [webhookMessages.endpointId, webhookMessages.eventSequence], set: fresh })
          .returning();
      } else {
        const [cut] = await tx.update(webhookEndpoints).set({ nextAttemptAt: now }).where(eq(webhookEndpoints.id, id)).returning();
        if (cut) current = cut;
      }
      await audit(tx, now, { actor: options.by, action: 'webhook.redelivered', targetType: 'webhook', targetId: id, details: { message_id: messageId } });
      afterCommit(() => this.worker.wake());
      return { row, current };
    });
    const view = await this.viewer(updated.current);
    if (updated.row) return view.row(updated.row);
    return view.event(event!, null);
  }

  /**
   * Sends again every message of the endpoint since `since` that was not delivered: dead and
   * pending message rows become pending, due now, with a fresh attempt budget; the messages
   * ahead in its ordered delivery (failing, or held while it is disabled) stay in order, and a
   * backoff is cut short. While the endpoint is disabled everything waits until it is enabled.
   * Answers how many messages will be sent.
   */
  async recover(id: string, since: string, options: { by: string }): Promise<{ requeued: number }> {
    const sinceMs = Date.parse(since);
    if (Number.isNaN(sinceMs)) throw new FpaError('validation_error', 'since must be an ISO 8601 instant', { field: 'since' });
    const endpoint = await this.find(id);
    const ahead = await this.log.countAfter(endpoint.position, endpoint.events, sinceMs);
    const now = this.ctx.clock.now();
    const requeued = await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const revived = await tx
        .update(webhookMessages)
        .set({ status: 'pending', attempts: 0, nextAttemptAt: now, leaseUntil: null, claimToken: null, lastError: null, failingSince: null, deliveredAt: null })
        .where(and(eq(webhookMessages.endpointId, id), inArray(webhookMessages.status, ['dead', 'pending']), gte(webhookMessages.eventAt, sinceMs)))
        .returning({ sequence: webhookMessages.eventSequence });
      await tx
        .update(webhookEndpoints)
        .set({ nextAttemptAt: sql`min(${webhookEndpoints.nextAttemptAt}, ${now})` })
        .where(eq(webhookEndpoints.id, id));
      const count = revived.length + ahead.count;
      await audit(tx, now, {
        actor: options.by,
        action: 'webhook.recovered',
        targetType: 'webhook',
        targetId: id,
        details: { since: new Date(sinceMs).toISOString(), requeued: count, rows: revived.length, active: endpoint.active },
      });
      afterCommit(() => this.worker.wake());
      return count;
    });
    return { requeued };
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
    const check = await checkWebhookUrl(url, this.worker.dispatcher.urlPolicy);
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
    return {
      id: row.id,
      url: row.url,
      events: row.events,
      active: row.active,
      disabled_reason: row.disabledReason,
      failing_since: iso(row.failingSince),
      created_by: row.createdBy,
      created_at: new Date(row.createdAt).toISOString(),
      position: row.position,
      attempts: row.attempts,
      next_attempt_at: row.active && row.attempts > 0 ? iso(row.nextAttemptAt) : null,
      last_error: row.lastError,
      last_delivered_at: iso(row.lastDeliveredAt),
      previous_secret_valid_until:
        row.previousSecret !== null && row.previousSecretUntil !== null && row.previousSecretUntil > this.ctx.clock.now() ? iso(row.previousSecretUntil) : null,
    };
  }
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function deliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    message_id: row.messageId,
    attempt: row.attempt,
    count: row.count,
    status_code: row.statusCode,
    error: row.error,
    duration_ms: row.durationMs,
    next_retry_at: iso(row.nextRetryAt),
    created_at: new Date(row.createdAt).toISOString(),
  };
}
