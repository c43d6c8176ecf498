/**
 * The messages of a webhook endpoint, derived from the event log and the endpoint's position
 * (with the message rows of those retried on their own), and sending them again by hand: one
 * message (redelivery) or every one not delivered since an instant (recovery).
 */
import { and, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { FpaError, notFound } from '../../platform/errors';
import { cursorOf, integerCursor, type Page } from '../../platform/http/paging';
import { audit } from '../audit';
import type { EventLog, LoggedEvent } from '../events';
import { MESSAGE_VIEW_STATUSES } from './model';
import type { WebhookRuntime } from './runtime';
import { webhookEndpoints, webhookMessages } from './tables';
import { sendsOf } from './tries';
import { iso, type MessageViewStatus, type WebhookMessageView } from './views';
import type { DeliveryWorker } from './worker';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type MessageRow = typeof webhookMessages.$inferSelect;

/** Events scanned per step while looking for delivered messages. */
const SCAN = 500;

export class MessageHistory {
  constructor(
    private readonly ctx: WebhookRuntime,
    private readonly log: EventLog,
    private readonly worker: DeliveryWorker,
    /** The endpoint of an id, or not found. */
    private readonly find: (id: string) => Promise<EndpointRow>,
  ) {}

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
    const before = integerCursor('webhook-messages', options.cursor) ?? Number.MAX_SAFE_INTEGER;
    const want = options.limit + 1;
    const views = await this.messagesBefore(endpoint, before, want, status as MessageViewStatus | undefined);
    const page = views.slice(0, options.limit);
    const last = page[page.length - 1];
    return { results: page, next_cursor: views.length > options.limit && last ? cursorOf('webhook-messages', [last.event_sequence]) : null };
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
          attempts: sendsOf(endpoint.tries, e.sequence),
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
}
