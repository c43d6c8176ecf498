/**
 * What `health/` and `/metrics` say of webhook delivery (README "Check it"): the messages not
 * delivered yet, the held ones of disabled endpoints included (payroll gets nothing while they
 * wait), the endpoints disabled, and the dead letters kept. A disabled endpoint and its dead
 * letters vanished from monitoring: the backlog counted the active endpoints only.
 *
 * Scraped often, so nothing here reads more than it must. A message row is counted on an index
 * (`fpa_webhook_messages_due`: status, then when due; a dead row's `next_attempt_at` is when it
 * died). An endpoint's messages are the subscribed events after its position: a disabled one's
 * grow for as long as it stays disabled (millions of events over weeks), so each endpoint's count
 * is kept with the log's head it was made up to and, while its position and subscription stay as
 * they were, only the events recorded since are counted again (the log below the head is final,
 * and what an endpoint has not handed off is never purged).
 */
import { and, eq, gte, sql } from 'drizzle-orm';
import type { ModuleRuntime } from '../../platform/runtime';
import type { EventLog } from '../events';
import { webhookEndpoints, webhookMessages } from './tables';

/**
 * An endpoint that needs someone: disabled (its messages held), holding dead letters, or failing
 * for FAILING_ATTENTION_MS and more (its receiver refuses or does not answer: payroll falls behind
 * while the retries back off, for up to WEBHOOK_DISABLE_AFTER before it is disabled).
 */
export interface EndpointAttention {
  endpoint: string;
  disabled: boolean;
  /** Since when every delivery to it failed, once that is FAILING_ATTENTION_MS or more (null otherwise). */
  failing_since: string | null;
  /** Its messages waiting for it to be enabled (0 while it is active). */
  held: number;
  dead_letters: number;
}

export interface WebhookBacklog {
  /** Messages not delivered yet: the subscribed events after each endpoint's position and the pending rows, held ones included. */
  pending: number;
  /** Of them, those waiting for a disabled endpoint to be enabled. */
  held: number;
  /** When the oldest of them was recorded. */
  oldest_at: string | null;
  endpoints_disabled: number;
  /** Messages dead-lettered within RETENTION_DELIVERIES_DAYS (ever, at 0) and not sent again since. */
  dead_letters: number;
  /** The endpoints disabled or holding dead letters, in the order they were created. */
  attention: EndpointAttention[];
}

interface Counted {
  /** The position and subscription the count is of. */
  key: string;
  /** The log's head it was counted up to. */
  upTo: number;
  count: number;
  oldestAt: number | null;
}

type Ahead = { count: number; oldestAt: number | null };

const DAY_MS = 86_400_000;
/** How long an active endpoint fails before `health/` says so (a receiver restarting is not news). */
export const FAILING_ATTENTION_MS = 10 * 60_000;

export class BacklogCounter {
  private readonly counted = new Map<string, Counted>();
  private reading: Promise<WebhookBacklog> | null = null;

  constructor(
    private readonly ctx: Pick<ModuleRuntime<'RETENTION_DELIVERIES_DAYS'>, 'db' | 'clock' | 'settings'>,
    private readonly log: Pick<EventLog, 'lastSequence' | 'countBetween'>,
  ) {}

  /** One reading; callers at the same moment (the gauges of one scrape, read together) share it. */
  read(): Promise<WebhookBacklog> {
    this.reading ??= this.count().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async count(): Promise<WebhookBacklog> {
    const endpoints = await this.ctx.db.orm
      .select({
        id: webhookEndpoints.id,
        position: webhookEndpoints.position,
        events: webhookEndpoints.events,
        active: webhookEndpoints.active,
        failingSince: webhookEndpoints.failingSince,
      })
      .from(webhookEndpoints)
      .orderBy(webhookEndpoints.createdAt, webhookEndpoints.id);
    const now = this.ctx.clock.now();
    const head = await this.log.lastSequence();
    const rows = await this.pendingRows();
    const dead = await this.deadLetters();
    for (const id of this.counted.keys()) if (!endpoints.some((e) => e.id === id)) this.counted.delete(id);
    const out: WebhookBacklog = { pending: 0, held: 0, oldest_at: null, endpoints_disabled: 0, dead_letters: 0, attention: [] };
    let oldest: number | null = null;
    for (const e of endpoints) {
      const ahead = await this.ahead(e, head);
      const row = rows.get(e.id) ?? { count: 0, oldestAt: null };
      const waiting = ahead.count + row.count;
      for (const at of [ahead.oldestAt, row.oldestAt]) if (at !== null && (oldest === null || at < oldest)) oldest = at;
      out.pending += waiting;
      if (!e.active) {
        out.held += waiting;
        out.endpoints_disabled += 1;
      }
      const deadHere = dead.get(e.id) ?? 0;
      out.dead_letters += deadHere;
      // Failing with messages waiting: one whose last messages died and that has nothing to send is
      // not behind. A disabled one says since when it failed, as its own view (webhooks/{id}/) does.
      const behind = e.active && waiting > 0 && e.failingSince !== null && now - e.failingSince >= FAILING_ATTENTION_MS;
      const failing = (behind || !e.active) && e.failingSince !== null ? new Date(e.failingSince).toISOString() : null;
      if (!e.active || deadHere > 0 || failing) {
        out.attention.push({ endpoint: e.id, disabled: !e.active, failing_since: failing, held: e.active ? 0 : waiting, dead_letters: deadHere });
      }
    }
    out.oldest_at = oldest === null ? null : new Date(oldest).toISOString();
    return out;
  }

  /** The subscribed events after an endpoint's position, up to `head`: what was counted before, and the events since. */
  private async ahead(e: { id: string; position: number; events: string[] }, head: number): Promise<Ahead> {
    const key = `${e.position} ${e.events.join(',')}`;
    const before = this.counted.get(e.id);
    const kept = before?.key === key && before.upTo <= head ? before : { key, upTo: e.position, count: 0, oldestAt: null };
    const since = await this.log.countBetween(kept.upTo, head, e.events);
    const now: Counted = {
      key,
      upTo: Math.max(kept.upTo, head),
      count: kept.count + since.count,
      oldestAt: kept.oldestAt ?? since.oldestAt,
    };
    this.counted.set(e.id, now);
    return now;
  }

  /** The pending message rows (queued by hand) of each endpoint: how many, and the oldest event's time. */
  private async pendingRows(): Promise<Map<string, Ahead>> {
    const m = webhookMessages;
    const rows = await this.ctx.db.orm
      .select({ endpoint: m.endpointId, n: sql<number>`count(*)`, oldest: sql<number | null>`min(${m.eventAt})` })
      .from(m)
      .where(eq(m.status, 'pending'))
      .groupBy(m.endpointId);
    return new Map(rows.map((r) => [r.endpoint, { count: r.n, oldestAt: r.oldest }]));
  }

  /** The dead letters of each endpoint that died within RETENTION_DELIVERIES_DAYS (the window its attempts are kept in). */
  private async deadLetters(): Promise<Map<string, number>> {
    const m = webhookMessages;
    const days = this.ctx.settings.RETENTION_DELIVERIES_DAYS;
    const since = days > 0 ? this.ctx.clock.now() - days * DAY_MS : null;
    const rows = await this.ctx.db.orm
      .select({ endpoint: m.endpointId, n: sql<number>`count(*)` })
      .from(m)
      .where(and(eq(m.status, 'dead'), since === null ? undefined : gte(m.nextAttemptAt, since)))
      .groupBy(m.endpointId);
    return new Map(rows.map((r) => [r.endpoint, r.n]));
  }
}
