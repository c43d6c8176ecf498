/**
 * The one way modules affect each other. A module announces what happened by recording a domain
 * event in the write transaction that caused it: the event is appended to the durable log
 * (fpa_events) with a gap-free sequence, and three kinds of followers react:
 *
 * - reactors run inside that same transaction (the rules that must commit with the cause: a
 *   device approved is backfilled, a withdrawn consent destroys templates);
 * - in-process listeners (`fpa.events.on`) run after the commit, never for a rollback;
 * - followers of the log (webhooks, streams) read it by sequence, so they catch up after a
 *   restart; `onAppended` wakes them after each commit.
 *
 * A module never reaches into another module's tables: it records events, reacts to the events
 * of the modules below it, and calls their services.
 */

import { and, asc, desc, eq, getTableName, gt, gte, inArray, lt, lte, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { insertSequenced } from '../../platform/db/json-results';
import { insertFromJsonSql, jsonRows } from '../../platform/db/json-rows';
import { headBehind, refuseCursorAhead } from '../../platform/db/sequences';
import { describeError } from '../../platform/errors';
import type { StreamSource } from '../../platform/http/stream';
import { type ScopeMembers, sees } from '../../platform/scope';
import type { EventView } from './model';
import { readBack } from './newest';
import { LogPruning } from './pruning';
import type { EventRuntime } from './runtime';
import { ShownCache } from './shown-cache';
import { subjectsOf } from './subjects';
import { eventLog, logFollowers } from './tables';

/** Event type → the data recorded with it (JSON-safe: ids and facts); modules declare theirs as interfaces. */
export type EventMap<M> = { [K in keyof M]: object };

export interface LoggedEvent<T extends string = string, D = Record<string, unknown>> {
  sequence: number;
  id: string;
  type: T;
  /** When it was recorded (ms since the epoch), or the instant of the change it announces when its module says (RecordOptions). */
  at: number;
  data: D;
}

/** One event to record; `local` is handed to in-process listeners only and never stored. */
export interface NewEvent<D> {
  data: D;
  local?: object;
}

/**
 * How the log keeps a type whose data is a view of rows its module keeps (a punch): the log
 * stores a reference, and its readers (`events/`, streams, webhooks, followers) get the view of
 * those rows as they are when read. A punch then adds a few bytes to the log instead of a copy
 * (the copy was most of what an upload wrote), and what retention purges from the rows is gone
 * from the log as well. In-process listeners and reactors still get the data as recorded.
 */
export interface StoredForm<D> {
  /** What the log keeps of the data. */
  store(data: D): object;
  /** The data to show for these stored values, in their order, read with `q`. */
  show(q: Queryable, stored: readonly Record<string, unknown>[]): Promise<object[]>;
}

/** How one event is recorded, beside its data. */
export interface RecordOptions {
  /** Handed to in-process listeners only, never stored. */
  local?: object;
  /**
   * The instant of the change it announces (ms), taken once by the write that made the change,
   * so the event, the audit entries and the rows of that change carry the same time (a
   * withdrawal's `withdrawn_at`, its audit entries, its deletion proof); default: now.
   */
  at?: number;
}

export type Reactor<K extends string, D> = (w: WriteContext, events: readonly LoggedEvent<K, D>[]) => Promise<void>;

/** A reaction to one type of a module's events (what a module's `reactions.ts` exports). */
export type ReactionTo<M, K extends keyof M & string> = Reactor<K, M[K]>;

/** A module's typed view of the log, over its own event map. */
export interface EventChannel<M extends EventMap<M>> {
  record<K extends keyof M & string>(w: WriteContext, type: K, data: M[K], options?: RecordOptions): Promise<LoggedEvent<K, M[K]>>;
  recordMany<K extends keyof M & string>(w: WriteContext, type: K, events: readonly NewEvent<M[K]>[]): Promise<LoggedEvent<K, M[K]>[]>;
  /** Runs `reactor` inside every transaction that records `type`, once per record call, with its events. */
  react<K extends keyof M & string>(type: K, reactor: Reactor<K, M[K]>): void;
  /** Keeps `type` in the log in a stored form (see StoredForm); set at start-up, before any record. */
  storeAs<K extends keyof M & string>(type: K, form: StoredForm<M[K]>): void;
}

/** The typed in-process surface a host sees as `fpa.events`. */
export interface EventBus<M extends EventMap<M>> {
  on<K extends keyof M & string>(type: K, listener: (payload: M[K], event: LoggedEvent<K>) => void | Promise<void>): () => void;
  once<K extends keyof M & string>(type: K, listener: (payload: M[K], event: LoggedEvent<K>) => void | Promise<void>): () => void;
  listenerCount(type: keyof M & string): number;
}

type StoredReactor = (w: WriteContext, events: readonly never[]) => Promise<void>;
type StoredListener = (payload: never, event: never) => void | Promise<void>;
type StoredFormOfAny = StoredForm<never>;
type CallableForm = StoredForm<object>;
type CallableReactor = (w: WriteContext, events: readonly LoggedEvent<string, object>[]) => Promise<void>;
type CallableListener = (payload: object, event: LoggedEvent<string, object>) => void | Promise<void>;

/** What `events/` asks of the log (EventLog.page). */
export interface EventPageQuery {
  after: number;
  limit: number;
  types?: readonly string[];
  /** The people and terminals of a caller limited to areas; null for an unlimited one. */
  members: ScopeMembers | null;
  /** `order=desc`: the newest first, before `before` (default: from the end of the log). */
  back?: { before?: number } | null;
}

/** Events per insert statement: bounds the JSON text of one. */
const INSERT_CHUNK = 1000;
const INSERT_SQL = insertFromJsonSql(getTableName(eventLog), ['id', 'type', 'at', 'data', 'about_enrollee', 'about_device'], '', ['data']);

export class EventLog {
  private readonly reactors = new Map<string, StoredReactor[]>();
  private readonly listeners = new Map<string, Set<StoredListener>>();
  private readonly forms = new Map<string, StoredFormOfAny>();
  private readonly shown = new ShownCache();
  private readonly appendedListeners = new Set<(lastSequence: number) => void>();
  /** Retention of the log: redaction and purge behind its followers (pruning.ts). */
  readonly pruning: LogPruning;

  constructor(private readonly runtime: EventRuntime) {
    this.pruning = new LogPruning(runtime.db, () => this.lastSequence());
    // How far each reader of the log (attendance days, the anomalies of leave) is behind its head:
    // the attendance lag an operator watches (a soak tester could read it only in the database).
    runtime.metrics.gauge(
      'fpa_log_follower_lag_events',
      'Events recorded that a follower of the event log (attendance days…) has not read yet.',
      ['follower'],
      async () => {
        const head = await this.lastSequence();
        const rows = await runtime.db.orm.select({ name: logFollowers.name, position: logFollowers.position }).from(logFollowers);
        return rows.map((r) => ({ labels: { follower: r.name }, value: Math.max(0, head - r.position) }));
      },
    );
  }

  channel<M extends EventMap<M>>(): EventChannel<M> {
    return {
      record: async (w, type, data, options = {}) => {
        const [event] = await this.append(w, type, [{ data, local: options.local }], options.at);
        return event as LoggedEvent<typeof type, M[typeof type]>;
      },
      recordMany: async (w, type, events) => (await this.append(w, type, events)) as LoggedEvent<typeof type, M[typeof type]>[],
      react: (type, reactor) => {
        const list = this.reactors.get(type) ?? [];
        list.push(reactor);
        this.reactors.set(type, list);
      },
      storeAs: (type, form) => {
        this.forms.set(type, form);
      },
    };
  }

  on(type: string, listener: StoredListener): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    set.add(listener);
    return () => this.listeners.get(type)?.delete(listener);
  }

  once(type: string, listener: StoredListener): () => void {
    const off = this.on(type, (payload: never, event: never) => {
      off();
      return (listener as CallableListener)(payload, event);
    });
    return off;
  }

  listenerCount(type: string): number {
    return this.listeners.get(type)?.size ?? 0;
  }

  /** Called after every commit that appended events, with the last sequence it holds. */
  onAppended(callback: (lastSequence: number) => void): () => void {
    this.appendedListeners.add(callback);
    return () => this.appendedListeners.delete(callback);
  }

  /**
   * Events after `sequence`, oldest first, optionally of some types only. `cached`: stored forms
   * may be shown as read a moment ago (shown-cache.ts), for webhook endpoints reading in turn.
   */
  async after(sequence: number, limit: number, types?: readonly string[], options: { cached?: boolean } = {}): Promise<LoggedEvent[]> {
    const rows = await this.runtime.db.orm
      .select()
      .from(eventLog)
      .where(and(gt(eventLog.sequence, sequence), types && types.length > 0 ? inArray(eventLog.type, [...types]) : undefined))
      .orderBy(asc(eventLog.sequence))
      .limit(limit);
    return this.read(this.runtime.db.orm, rows, options);
  }

  /**
   * `events/`: the events after a sequence a caller sees (`members`: its areas' people and
   * terminals, null for an unlimited one). `last_sequence` is the last event read, seen or not,
   * so a poller limited to areas moves on past what it may not see; and a page of `types` that
   * is not full read the log to its head, matched or not, so a poller of a rare type moves on to
   * the head instead of reading the same stretch for ever. `back` (`order=desc`): the newest
   * first instead (`pageBack`).
   */
  async page(query: EventPageQuery) {
    if (query.back) return this.pageBack(query, query.back.before);
    const { after, limit, types, members } = query;
    // The head first: every event up to it has committed, so a short read holds every match up to it.
    const head = await this.lastSequence();
    const read = await this.after(after, limit, types);
    // A cursor beyond every sequence handed out is from before a restore (platform/db/sequences.ts).
    if (read.length === 0) await refuseCursorAhead(this.runtime.db, getTableName(eventLog), after);
    const results = read.filter((e) => sees(members, subjectsOf(e.data))).map(eventView);
    const lastRead = read.length > 0 ? read[read.length - 1]!.sequence : after;
    return { results, last_sequence: read.length < limit ? Math.max(after, head, lastRead) : lastRead };
  }

  /**
   * `events/?order=desc`: the events a caller sees before `before` (default: the newest), after
   * `after`, newest first (newest.ts: the caller's areas and the types are conditions of the
   * query). `last_sequence` is where the read stopped, the `before` of the page before it: the
   * oldest event read, or `after` once nothing is left.
   */
  private async pageBack(query: EventPageQuery, before?: number) {
    const from = before ?? (await this.lastSequence()) + 1;
    const { rows, lastSequence } = await readBack(this.runtime.db, { ...query, before: from, floor: query.after });
    if (rows.length === 0) await refuseCursorAhead(this.runtime.db, getTableName(eventLog), query.after);
    // As `page` shows them: a punch through its person as it is now (one attributed since it was recorded).
    const shown = (await this.read(this.runtime.db.orm, rows)).filter((e) => sees(query.members, subjectsOf(e.data)));
    return { results: shown.map(eventView), last_sequence: lastSequence };
  }

  /**
   * Events before `sequence` (exclusive) and after `floor`, newest first, optionally of some
   * types only: paging backwards through the log (an endpoint's messages, newest first).
   */
  async before(sequence: number, limit: number, options: { floor?: number; types?: readonly string[] } = {}): Promise<LoggedEvent[]> {
    const { floor = 0, types } = options;
    const rows = await this.runtime.db.orm
      .select()
      .from(eventLog)
      .where(and(lt(eventLog.sequence, sequence), gt(eventLog.sequence, floor), types && types.length > 0 ? inArray(eventLog.type, [...types]) : undefined))
      .orderBy(desc(eventLog.sequence))
      .limit(limit);
    return this.read(this.runtime.db.orm, rows);
  }

  /** The events with these sequences (in no particular order); a sequence not in the log is left out. */
  async bySequence(sequences: readonly number[]): Promise<LoggedEvent[]> {
    if (sequences.length === 0) return [];
    const rows = await this.runtime.db.orm
      .select()
      .from(eventLog)
      .where(inArray(eventLog.sequence, [...sequences]));
    return this.read(this.runtime.db.orm, rows);
  }

  /**
   * One event by its id, looked for after `floor` only, newest first (ids are not indexed: a
   * lookup by hand, such as redelivering a message, scans back from the head until it finds it).
   */
  async find(id: string, floor = 0): Promise<LoggedEvent | null> {
    const [row] = await this.runtime.db.orm
      .select()
      .from(eventLog)
      .where(and(eq(eventLog.id, id), gt(eventLog.sequence, floor)))
      .orderBy(desc(eventLog.sequence))
      .limit(1);
    if (!row) return null;
    const [event] = await this.read(this.runtime.db.orm, [row]);
    return event!;
  }

  /**
   * How many events of these types follow `sequence` (recorded at or after `since`, when given),
   * and when the first of them was recorded.
   */
  async countAfter(sequence: number, types: readonly string[], since?: number): Promise<{ count: number; oldestAt: number | null }> {
    return this.countWhere(types, and(gt(eventLog.sequence, sequence), since === undefined ? undefined : gte(eventLog.at, since)));
  }

  /**
   * The same of the events in (`after`, `upTo`]: a count a reader may keep and add to, since
   * the log below the head it read is final (one writer; sequences only grow) and what a follower
   * has not processed is never purged.
   */
  async countBetween(after: number, upTo: number, types: readonly string[]): Promise<{ count: number; oldestAt: number | null }> {
    if (upTo <= after) return { count: 0, oldestAt: null };
    return this.countWhere(types, and(gt(eventLog.sequence, after), lte(eventLog.sequence, upTo)));
  }

  private async countWhere(types: readonly string[], range: SQL | undefined): Promise<{ count: number; oldestAt: number | null }> {
    if (types.length === 0) return { count: 0, oldestAt: null };
    const [row] = await this.runtime.db.orm
      .select({ n: sql<number>`count(*)`, oldest: sql<number | null>`min(${eventLog.at})` })
      .from(eventLog)
      .where(and(range, inArray(eventLog.type, [...types])));
    return { count: row?.n ?? 0, oldestAt: row?.oldest ?? null };
  }

  /** The log as a stream (`events/stream/`): each event as its public view. */
  streamSource(): StreamSource {
    return {
      read: async (after, limit) =>
        (await this.after(after, limit)).map((e) => ({ position: e.sequence, kind: e.type, message: JSON.stringify(eventView(e)), about: subjectsOf(e.data) })),
      head: () => this.lastSequence(),
      beyondHead: (after) => headBehind(this.runtime.db, getTableName(eventLog), after),
    };
  }

  async lastSequence(): Promise<number> {
    const [row] = await this.runtime.db.orm.select({ max: sql<number | null>`max(${eventLog.sequence})` }).from(eventLog);
    return row?.max ?? 0;
  }

  /** Rows of the log as events, with each stored form shown (read with `q`: a follower's write transaction, or the database). */
  async read(q: Queryable, rows: readonly (typeof eventLog.$inferSelect)[], options: { cached?: boolean } = {}): Promise<LoggedEvent[]> {
    const events = rows.map(loggedEventOf);
    const stored = new Map<string, LoggedEvent[]>();
    const now = performance.now();
    for (const event of events) {
      if (!this.forms.has(event.type)) continue;
      const cachedView = options.cached ? this.shown.get(event.sequence, now) : undefined;
      if (cachedView) {
        event.data = cachedView as Record<string, unknown>;
        continue;
      }
      const list = stored.get(event.type);
      if (list) list.push(event);
      else stored.set(event.type, [event]);
    }
    for (const [type, list] of stored) {
      const shown = await (this.forms.get(type) as CallableForm).show(
        q,
        list.map((e) => e.data),
      );
      list.forEach((event, i) => {
        event.data = shown[i] as Record<string, unknown>;
        // Only views read outside a transaction are shared: one inside may see what it then rolls back.
        if (options.cached) this.shown.set(event.sequence, event.data, now);
      });
    }
    return events;
  }

  private async append(
    w: WriteContext,
    type: string,
    events: readonly NewEvent<object>[],
    at: number = this.runtime.clock.now(),
  ): Promise<LoggedEvent<string, object>[]> {
    if (events.length === 0) return [];
    const logged: LoggedEvent<string, object>[] = [];
    for (const chunk of chunks(events, INSERT_CHUNK)) {
      const ids = chunk.map(() => newEventId());
      const form = this.forms.get(type) as CallableForm | undefined;
      // Whom it is about, from the data as recorded (a stored form keeps only a reference to it).
      const stored = chunk.map((e, j) => {
        const about = subjectsOf(e.data);
        return [ids[j]!, type, at, form ? form.store(e.data) : e.data, about.enrollee ?? null, about.device ?? null];
      });
      const inserted = await insertSequenced(w.execute, getTableName(eventLog), INSERT_SQL, [jsonRows(stored)]);
      const sequenceOf = new Map(inserted.map((r) => [r.id, r.sequence]));
      chunk.forEach((e, j) => {
        logged.push({ sequence: sequenceOf.get(ids[j]!)!, id: ids[j]!, type, at, data: e.data });
      });
    }
    // Delivered in the log's order: registered before the reactors run, since what they record
    // comes after these events in the log and registers its own delivery.
    w.afterCommit(() => this.deliver(type, logged, events));
    for (const reactor of this.reactors.get(type) ?? []) await (reactor as CallableReactor)(w, logged);
    return logged;
  }

  private deliver(type: string, logged: readonly LoggedEvent<string, object>[], events: readonly NewEvent<object>[]): void {
    const listeners = this.listeners.get(type);
    if (listeners && listeners.size > 0) {
      logged.forEach((event, i) => {
        const local = events[i]?.local;
        const payload = local ? { ...event.data, ...local } : event.data;
        for (const listener of listeners) {
          try {
            const result = (listener as CallableListener)(payload, event);
            if (result instanceof Promise) result.catch((error: unknown) => this.listenerFailed(type, error));
          } catch (error) {
            this.listenerFailed(type, error);
          }
        }
      });
    }
    const last = logged[logged.length - 1]!.sequence;
    for (const callback of this.appendedListeners) callback(last);
  }

  private listenerFailed(type: string, error: unknown): void {
    this.runtime.log.error(`a listener of ${type} failed`, { error: describeError(error) });
  }
}

function loggedEventOf(r: typeof eventLog.$inferSelect): LoggedEvent {
  return { sequence: r.sequence, id: r.id, type: r.type, at: r.at, data: JSON.parse(r.data) as Record<string, unknown> };
}

/** A public event id: usable as `webhook-id` (no '.', no spaces), stable for the event's life. */
export function newEventId(): string {
  return `evt_${crypto.randomUUID().replaceAll('-', '')}`;
}

export function eventView(e: LoggedEvent): EventView {
  return { sequence: e.sequence, id: e.id, type: e.type, at: new Date(e.at).toISOString(), data: e.data };
}
