/**
 * Live streams over WebSocket for administrators (`punches/stream/`, `events/stream/`): replay
 * after a position, then follow live, one JSON message per item, oldest first.
 *
 * One hub per stream and instance serves every subscriber. On each wake-up (a local commit, or
 * a poll every second so what other instances wrote arrives too) it reads the items after each
 * distinct subscriber position once, serializes each once, and fans the messages out to every
 * subscriber at that position (a subscriber may filter by kind); live subscribers all sit at
 * the head, so 1,000 of them cost one query. A client that does not keep up is paused until its
 * socket drains and catches up from the database afterwards; one whose buffer passes WEBSOCKET_MAX_BUFFERED_BYTES,
 * or that stays paused for STALL_MS, is closed with 4008 rather than slowing anyone else.
 */

import type { TObject } from '@sinclair/typebox';
import type { ServerWebSocket } from 'bun';
import { CoalescingPass } from '../coalescing-pass';
import type { Settings } from '../config/settings';
import { describeError, FpaError } from '../errors';
import type { ModuleRuntime } from '../runtime';
import { type AreaScope, isLimited, type MembersOf, ScopeWatch, type Subjects } from '../scope';
import { type AdmitContext, admitAdmin, apiRouter, type Http, readmitAdmin, SECURITY_SCHEMES } from './router';

/** One item of a stream: its position, kind, serialized message, and whom it is about (the area filter). */
export interface StreamItem {
  position: number;
  kind: string;
  message: string;
  about?: Subjects;
}

/** What a stream reads: items after a position, oldest first, each already serialized. */
export interface StreamSource {
  read(after: number, limit: number): Promise<StreamItem[]>;
  /** The newest position now (a stream opened without `after` starts there). */
  head(): Promise<number>;
  /**
   * The highest position ever handed out when `after` is beyond it, null when it is not: a
   * cursor from before a restore (platform/db/sequences.ts), closed with CLOSE_CURSOR_AHEAD.
   */
  beyondHead(after: number): Promise<number | null>;
}

/** What the hub needs of a socket (Bun's ServerWebSocket has it). */
export interface StreamSocket {
  /** Bytes sent (> 0), -1 when queued under backpressure, 0 when dropped. */
  send(message: string): number;
  getBufferedAmount(): number;
  close(code?: number, reason?: string): void;
}

export interface Subscriber {
  readonly socket: StreamSocket;
  /** The last sequence this subscriber was sent (or skipped: not of its kinds). */
  position: number;
  /** Only items of these kinds are sent; null: all. */
  kinds: ReadonlySet<string> | null;
  /** Only items about people and terminals of the caller's areas (a limited caller); null: all. */
  watch: ScopeWatch | null;
  /** When it stopped keeping up (waiting for its socket to drain), or null. */
  pausedSince: number | null;
  closed: boolean;
}

export const STREAM_BATCH = 500;
export const STREAM_POLL_MS = 1_000;
/** A paused subscriber whose socket does not drain for this long is dropped. */
export const STALL_MS = 10_000;
export const CLOSE_TOO_SLOW = 4008;
/**
 * `?after=` beyond every position handed out (409 `cursor_ahead` on the polls). Told after the
 * upgrade, as a close code, because a browser's WebSocket cannot read a refused handshake's
 * status; the reason carries the head: `cursor_ahead last_sequence=<n>`.
 */
export const CLOSE_CURSOR_AHEAD = 4409;

/** The settings the streams read: each subscriber's buffer, and the open streams per administrator. */
export const STREAM_SETTINGS = ['WEBSOCKET_MAX_BUFFERED_BYTES', 'WEBSOCKET_MAX_PER_ADMIN'] as const satisfies readonly (keyof Settings)[];

export class StreamHub {
  private readonly subscribers = new Set<Subscriber>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly pump = new CoalescingPass(
    () => this.round(),
    () => !this.stopped,
  );
  private stopped = false;

  constructor(
    private readonly ctx: ModuleRuntime<(typeof STREAM_SETTINGS)[number]>,
    private readonly source: StreamSource,
  ) {}

  get size(): number {
    return this.subscribers.size;
  }

  add(socket: StreamSocket, position: number, kinds: ReadonlySet<string> | null = null, watch: ScopeWatch | null = null): Subscriber {
    const subscriber: Subscriber = { socket, position, kinds, watch, pausedSince: null, closed: false };
    if (this.stopped) {
      subscriber.closed = true;
      socket.close(1001, 'server shutting down');
      return subscriber;
    }
    this.subscribers.add(subscriber);
    if (!this.timer && !this.stopped) this.timer = setInterval(() => this.tick(), STREAM_POLL_MS);
    this.wake();
    return subscriber;
  }

  remove(subscriber: Subscriber): void {
    subscriber.closed = true;
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Its socket drained: resume sending. */
  drained(subscriber: Subscriber): void {
    if (subscriber.pausedSince === null) return;
    subscriber.pausedSince = null;
    this.wake();
  }

  wake(): void {
    if (this.stopped || this.subscribers.size === 0) return;
    void this.pump.trigger().catch((error: unknown) => this.ctx.log.error('stream pass failed', { error: describeError(error) }));
  }

  /** Closes every stream (the instance is shutting down). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const subscriber of [...this.subscribers]) this.drop(subscriber, 1001, 'server shutting down');
    while (this.pump.busy) await Bun.sleep(5);
  }

  private tick(): void {
    const now = this.ctx.clock.now();
    for (const subscriber of this.subscribers) {
      if (subscriber.pausedSince !== null && now - subscriber.pausedSince >= STALL_MS) {
        this.drop(subscriber, CLOSE_TOO_SLOW, 'client too slow');
      }
    }
    this.wake();
  }

  /** One read per distinct position, fanned out; true when a full batch suggests more. */
  private async round(): Promise<boolean> {
    const groups = new Map<number, Subscriber[]>();
    for (const subscriber of this.subscribers) {
      if (subscriber.closed || subscriber.pausedSince !== null) continue;
      const group = groups.get(subscriber.position);
      if (group) group.push(subscriber);
      else groups.set(subscriber.position, [subscriber]);
    }
    let more = false;
    for (const [position, group] of groups) {
      const items = await this.source.read(position, STREAM_BATCH);
      if (items.length === 0) continue;
      const last = items[items.length - 1]!.position;
      // Limited subscribers' members, read again when stale (one read per subscriber every few seconds).
      const watched = group.filter((subscriber) => subscriber.watch !== null);
      if (watched.length > 0) await Promise.all(watched.map((subscriber) => subscriber.watch!.fresh()));
      for (const subscriber of group) this.send(subscriber, items, last);
      if (items.length === STREAM_BATCH) more = true;
    }
    return more;
  }

  private send(subscriber: Subscriber, items: readonly StreamItem[], last: number): void {
    // It may have been dropped or paused while this round awaited the database.
    if (subscriber.closed || subscriber.pausedSince !== null) return;
    const limit = this.ctx.settings.WEBSOCKET_MAX_BUFFERED_BYTES;
    for (const { kind, message, about } of items) {
      if (subscriber.kinds && !subscriber.kinds.has(kind)) continue;
      if (subscriber.watch && !subscriber.watch.sees(about)) continue;
      if (subscriber.socket.send(message) === 0) {
        this.drop(subscriber, CLOSE_TOO_SLOW, 'client too slow');
        return;
      }
    }
    subscriber.position = last;
    const buffered = subscriber.socket.getBufferedAmount();
    if (buffered > limit) this.drop(subscriber, CLOSE_TOO_SLOW, 'client too slow');
    else if (buffered > limit / 2) subscriber.pausedSince = this.ctx.clock.now();
  }

  private drop(subscriber: Subscriber, code: number, reason: string): void {
    this.remove(subscriber);
    try {
      subscriber.socket.close(code, reason);
    } catch {
      // already closed
    }
  }
}

/**
 * Open streams per administrator (token subject) on this instance, WEBSOCKET_MAX_PER_ADMIN at
 * most. A place is taken before the upgrade, so parallel handshakes cannot overshoot; one
 * whose socket never opens (the upgrade failed) is given back after UPGRADE_GRACE_MS.
 */
export class StreamQuota {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: () => number) {}

  /** Takes a place for `subject`, or throws 429 `rate_limited` (with `Retry-After`) when it holds the maximum. */
  take(subject: string): () => void {
    const held = this.counts.get(subject) ?? 0;
    const max = this.max();
    if (held >= max) {
      throw new FpaError('rate_limited', `at most ${max} open streams per administrator`, { limit: max, open_streams: held, retry_after: QUOTA_RETRY_AFTER_S });
    }
    this.counts.set(subject, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.counts.get(subject) ?? 1) - 1;
      if (left <= 0) this.counts.delete(subject);
      else this.counts.set(subject, left);
    };
  }

  held(subject: string): number {
    return this.counts.get(subject) ?? 0;
  }
}

/** The token expired, or the caller's credentials no longer admit it (session ended, key revoked, account disabled). */
export const CLOSE_TOKEN_EXPIRED = 4401;
/** A place taken for a handshake whose socket has not opened after this long is given back. */
const UPGRADE_GRACE_MS = 10_000;
/**
 * The `Retry-After` of a refused stream (seconds). A place frees when one of the caller's
 * streams closes, at no time known in advance; by then a place held by a handshake whose socket
 * never opened has been given back, and each open stream's caller was admitted again twice
 * (STREAM_RECHECK_MS: the streams of an ended session or a revoked key are closed).
 */
const QUOTA_RETRY_AFTER_S = Math.ceil(UPGRADE_GRACE_MS / 1000);
/** setTimeout's limit (about 24.8 days); a later expiry is re-armed when the first timer fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How often an open stream's caller is checked again (disabled, key revoked, role or areas changed). */
export const STREAM_RECHECK_MS = 5_000;
/** The caller's role or areas changed since the socket opened: it connects again to get the new ones. */
export const CLOSE_ACCESS_CHANGED = 4403;

interface Connection {
  subscriber: Subscriber | null;
  release: () => void;
  expiry: ReturnType<typeof setTimeout> | null;
  recheck: ReturnType<typeof setInterval> | null;
}

/** A handshake that passed: its quota place, until its socket opens (or the grace runs out). */
interface Handshake {
  release: () => void;
  expiresAt: number | undefined;
  scope: AreaScope;
  grace: ReturnType<typeof setTimeout>;
  /** The caller admitted again now (throws when it no longer is); its role and areas as they are now. */
  readmit: () => Promise<{ role: string; areas: readonly string[] }>;
  /** Role and areas at the handshake. */
  access: string;
}

/** The door of a stream: the administrator checked, a quota place taken per handshake; `accepted` holds it by request until the socket opens. */
function handshakes(http: Http, quota: StreamQuota) {
  /** Handshakes that passed, by their request, until their socket opens. */
  const accepted = new WeakMap<Request, Handshake>();
  const admit = async (context: Parameters<typeof admitAdmin>[1]): Promise<void> => {
    const { request } = context;
    // The same door as every administrator route: who calls, and whether its role may (policy.ts).
    const { admin: identity, scope } = await admitAdmin(http, context, { queryToken: true });
    // Elysia runs a WebSocket route's beforeHandle twice (as a route hook and again before
    // upgrading): one handshake takes one place.
    if (accepted.has(request)) return;
    const release = quota.take(identity.by);
    const grace = setTimeout(() => {
      accepted.delete(request);
      release();
    }, UPGRADE_GRACE_MS);
    grace.unref();
    const door: AdmitContext = { request, route: context.route, server: context.server };
    const readmit = async () => (await readmitAdmin(http, door, { queryToken: true })).admin;
    accepted.set(request, { release, expiresAt: identity.expiresAt, scope, grace, readmit, access: accessOf(identity) });
  };
  return { accepted, admit };
}

/** The open sockets of a stream: each one's subscriber, quota place and expiry timer; `end` gives all three back. */
function connections(hub: StreamHub) {
  const bySocket = new WeakMap<ServerWebSocket<unknown>, Connection>();

  const end = (raw: ServerWebSocket<unknown>) => {
    const connection = bySocket.get(raw);
    if (!connection) return;
    bySocket.delete(raw);
    if (connection.expiry) clearTimeout(connection.expiry);
    if (connection.recheck) clearInterval(connection.recheck);
    if (connection.subscriber) hub.remove(connection.subscriber);
    connection.release();
  };

  /** Closes the socket when its token expires; jose checked `exp` against the real clock, so this does too. */
  const armExpiry = (raw: ServerWebSocket<unknown>, connection: Connection, expiresAt: number) => {
    const delay = expiresAt - Date.now();
    if (delay <= 0) {
      end(raw);
      raw.close(CLOSE_TOKEN_EXPIRED, 'token expired');
      return;
    }
    connection.expiry = setTimeout(() => armExpiry(raw, connection, expiresAt), Math.min(delay, MAX_TIMER_MS));
    connection.expiry.unref();
  };
  /**
   * Checks the caller again every STREAM_RECHECK_MS: a socket outlives neither its account, key or
   * session (4401) nor the role and areas it was opened with (4403: connecting again gives the
   * new ones). A check that fails for another reason (the database busy) is tried at the next.
   */
  const armRecheck = (raw: ServerWebSocket<unknown>, connection: Connection, handshake: Pick<Handshake, 'readmit' | 'access'>) => {
    // One check at a time: a check waiting on a busy database is not joined by the next.
    let checking = false;
    const check = async () => {
      if (checking) return;
      checking = true;
      const closing = await recheckVerdict(handshake).finally(() => {
        checking = false;
      });
      if (!closing || !bySocket.has(raw)) return;
      end(raw);
      raw.close(...closing);
    };
    connection.recheck = setInterval(() => void check(), STREAM_RECHECK_MS);
    connection.recheck.unref();
  };
  return { bySocket, end, armExpiry, armRecheck };
}

const ACCESS_ENDED: [number, string] = [CLOSE_TOKEN_EXPIRED, 'access ended'];
const ACCESS_CHANGED: [number, string] = [CLOSE_ACCESS_CHANGED, 'access changed: connect again'];

/** Why a stream must close now, its caller admitted again (close code and reason); null to keep it open. */
async function recheckVerdict(handshake: Pick<Handshake, 'readmit' | 'access'>): Promise<[number, string] | null> {
  try {
    return accessOf(await handshake.readmit()) === handshake.access ? null : ACCESS_CHANGED;
  } catch (error) {
    if (!(error instanceof FpaError)) return null;
    return error.code === 'unauthorized' ? ACCESS_ENDED : error.code === 'forbidden' ? ACCESS_CHANGED : null;
  }
}

/** A caller's role and areas, compared before and after. */
function accessOf(caller: { role: string; areas: readonly string[] }): string {
  return `${caller.role}:${[...caller.areas].sort().join(',')}`;
}

/**
 * A WebSocket route over a hub; authenticates before upgrading (401 body, no socket), refuses an
 * administrator past WEBSOCKET_MAX_PER_ADMIN open streams (429, counted over every stream of the
 * instance by the shared quota), and closes the socket with 4401 when its token expires.
 * `?after=` resumes after a position; without it the stream starts live. `kinds` reads the
 * subscriber's filter from the query (event types).
 */
export function streamRoute<Q extends TObject>(
  http: Http,
  options: {
    name: string;
    path: string;
    hub: StreamHub;
    source: StreamSource;
    quota: StreamQuota;
    query: Q;
    detail: { summary: string; tags: string[]; description: string };
    kinds?: (query: Record<string, string | undefined>) => ReadonlySet<string> | null;
    /** The people and terminals of a limited caller's areas: its stream carries only items about them. */
    members: MembersOf;
  },
) {
  const { hub, source, quota } = options;
  const { accepted, admit } = handshakes(http, quota);
  const { bySocket, end, armExpiry, armRecheck } = connections(hub);
  return apiRouter(http, options.name, { security: [{ [SECURITY_SCHEMES.admin]: [] }] }).ws(options.path, {
    query: options.query,
    detail: options.detail,
    async beforeHandle(context) {
      // Kinds it cannot serve (an unknown event type) are refused before the upgrade, as a 400.
      options.kinds?.(textQuery(context.query));
      await admit(context);
    },
    async open(ws) {
      const raw = ws.raw as ServerWebSocket<unknown>;
      const handshake = accepted.get(ws.data.request);
      accepted.delete(ws.data.request);
      if (!handshake) {
        // The grace period ran out before the socket opened: its place is gone, so is it.
        raw.close(1013, 'try again');
        return;
      }
      clearTimeout(handshake.grace);
      const connection: Connection = { subscriber: null, release: handshake.release, expiry: null, recheck: null };
      bySocket.set(raw, connection);
      if (handshake.expiresAt !== undefined) armExpiry(raw, connection, handshake.expiresAt);
      armRecheck(raw, connection, handshake);
      const query = textQuery(ws.data.query);
      const position = await startPosition(source, query.after);
      if (raw.readyState !== WebSocket.OPEN || !bySocket.has(raw)) return;
      if (typeof position !== 'number') return raw.close(CLOSE_CURSOR_AHEAD, `cursor_ahead last_sequence=${position.head}`);
      connection.subscriber = hub.add(
        raw,
        position,
        options.kinds?.(query) ?? null,
        isLimited(handshake.scope) ? new ScopeWatch(handshake.scope, options.members) : null,
      );
    },
    drain(ws) {
      const subscriber = bySocket.get(ws.raw as ServerWebSocket<unknown>)?.subscriber;
      if (subscriber) hub.drained(subscriber);
    },
    close(ws) {
      end(ws.raw as ServerWebSocket<unknown>);
    },
  });
}

/** Where a stream starts: the head without `after` (live items only), else after it; a cursor beyond the head is not a start. */
async function startPosition(source: StreamSource, after: string | undefined): Promise<number | { head: number }> {
  if (after === undefined || after === '') return source.head();
  const position = Number(after);
  const head = await source.beyondHead(position);
  return head === null ? position : { head };
}

/** A stream's query as the text values it reads. */
function textQuery(query: Record<string, unknown>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]));
}
