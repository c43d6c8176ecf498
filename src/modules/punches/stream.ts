/**
 * `punches/stream/` (API.md): a WebSocket for administrators that replays punches after a
 * sequence, then follows live, one JSON message per punch (the punch view), oldest first.
 *
 * One hub per instance serves every subscriber. On each wake-up (a local commit, or a poll
 * every second so punches written by other instances arrive too) it reads the punches after
 * each distinct subscriber position once, serializes each punch once, and fans the messages
 * out to every subscriber at that position; live subscribers all sit at the head, so 1,000 of
 * them cost one query. A client that does not keep up is paused until its socket drains and
 * catches up from the database afterwards; one whose buffer passes WEBSOCKET_MAX_BUFFERED_BYTES,
 * or that stays paused for STALL_MS, is closed with 4008 rather than slowing anyone else.
 */

import type { ServerWebSocket } from 'bun';
import { asc, gt } from 'drizzle-orm';
import { CoalescingPass } from '../../platform/coalescing-pass';
import { describeError, FpaError } from '../../platform/errors';
import { apiRouter, type Http, SECURITY_SCHEMES } from '../../platform/http/router';
import type { Runtime } from '../../platform/runtime';
import { StreamQuery } from './model';
import type { PunchService } from './service';
import { punches } from './tables';
import { punchView } from './view';

/** What the hub needs of a socket (Bun's ServerWebSocket has it). */
export interface StreamSocket {
  /** Bytes sent (> 0), -1 when queued under backpressure, 0 when dropped. */
  send(message: string): number;
  getBufferedAmount(): number;
  close(code?: number, reason?: string): void;
}

export interface Subscriber {
  readonly socket: StreamSocket;
  /** The last sequence this subscriber was sent. */
  position: number;
  /** When it stopped keeping up (waiting for its socket to drain), or null. */
  pausedSince: number | null;
  closed: boolean;
}

export const STREAM_BATCH = 500;
export const STREAM_POLL_MS = 1_000;
/** A paused subscriber whose socket does not drain for this long is dropped. */
export const STALL_MS = 10_000;
export const CLOSE_TOO_SLOW = 4008;

export class PunchStreamHub {
  private readonly subscribers = new Set<Subscriber>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly pump = new CoalescingPass(
    () => this.round(),
    () => !this.stopped,
  );
  private stopped = false;

  constructor(private readonly ctx: Runtime) {}

  get size(): number {
    return this.subscribers.size;
  }

  add(socket: StreamSocket, position: number): Subscriber {
    const subscriber: Subscriber = { socket, position, pausedSince: null, closed: false };
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
    void this.pump.trigger().catch((error: unknown) => this.ctx.log.error('punch stream pass failed', { error: describeError(error) }));
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
      const rows = await this.ctx.db.orm.select().from(punches).where(gt(punches.sequence, position)).orderBy(asc(punches.sequence)).limit(STREAM_BATCH);
      if (rows.length === 0) continue;
      const messages = rows.map((row) => JSON.stringify(punchView(row)));
      const last = rows[rows.length - 1]!.sequence;
      for (const subscriber of group) this.send(subscriber, messages, last);
      if (rows.length === STREAM_BATCH) more = true;
    }
    return more;
  }

  private send(subscriber: Subscriber, messages: string[], last: number): void {
    // It may have been dropped or paused while this round awaited the database.
    if (subscriber.closed || subscriber.pausedSince !== null) return;
    const limit = this.ctx.settings.WEBSOCKET_MAX_BUFFERED_BYTES;
    for (const message of messages) {
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

  /** Takes a place for `subject`, or throws 429 `rate_limited` when it holds the maximum. */
  take(subject: string): () => void {
    const held = this.counts.get(subject) ?? 0;
    const max = this.max();
    if (held >= max) {
      throw new FpaError('rate_limited', `at most ${max} open punch streams per administrator`, { limit: max, open_streams: held });
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

export const CLOSE_TOKEN_EXPIRED = 4401;
/** A place taken for a handshake whose socket has not opened after this long is given back. */
const UPGRADE_GRACE_MS = 10_000;
/** setTimeout's limit (about 24.8 days); a later expiry is re-armed when the first timer fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Connection {
  subscriber: Subscriber | null;
  release: () => void;
  expiry: ReturnType<typeof setTimeout> | null;
}

/**
 * The WebSocket route; authenticates before upgrading (401 body, no socket), refuses an
 * administrator past WEBSOCKET_MAX_PER_ADMIN (429), and closes the socket with 4401 when the
 * token it was opened with expires.
 */
export function punchStreamRoutes(http: Http, deps: { hub: PunchStreamHub; punches: PunchService }) {
  const { hub, punches: service } = deps;
  const quota = new StreamQuota(() => http.runtime.settings.WEBSOCKET_MAX_PER_ADMIN);
  /** Handshakes that passed, by their request, until their socket opens. */
  const accepted = new WeakMap<Request, { release: () => void; expiresAt: number | undefined; grace: ReturnType<typeof setTimeout> }>();
  const bySocket = new WeakMap<ServerWebSocket<unknown>, Connection>();

  const end = (raw: ServerWebSocket<unknown>) => {
    const connection = bySocket.get(raw);
    if (!connection) return;
    bySocket.delete(raw);
    if (connection.expiry) clearTimeout(connection.expiry);
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

  return apiRouter(http, 'punch-stream', { security: [{ [SECURITY_SCHEMES.admin]: [] }] }).ws('/punches/stream', {
    query: StreamQuery,
    detail: {
      summary: 'WebSocket: one JSON message per punch, oldest first, then live',
      tags: ['punches'],
      description:
        'Upgrade to a WebSocket with `Authorization: Bearer <JWT>`, or `?access_token=` from a browser (a browser cannot set headers on a WebSocket). Resumes after `?after=<sequence>`; without it only live punches come. Each message is one punch (the `Punch` schema). Closed with 4008 when the client falls behind, 4401 when its token expires. An administrator (token subject) holding WEBSOCKET_MAX_PER_ADMIN open streams on the instance is refused with 429 `rate_limited` before the upgrade; a plain GET without the handshake is 426 `upgrade_required`.',
    },
    async beforeHandle({ request, query }) {
      const identity = await http.auth.authenticate(request, { queryToken: true });
      void query;
      // Elysia runs a WebSocket route's beforeHandle twice (as a route hook and again before
      // upgrading): one handshake takes one place.
      if (accepted.has(request)) return;
      const release = quota.take(identity.by);
      const grace = setTimeout(() => {
        accepted.delete(request);
        release();
      }, UPGRADE_GRACE_MS);
      grace.unref();
      accepted.set(request, { release, expiresAt: identity.expiresAt, grace });
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
      const connection: Connection = { subscriber: null, release: handshake.release, expiry: null };
      bySocket.set(raw, connection);
      if (handshake.expiresAt !== undefined) armExpiry(raw, connection, handshake.expiresAt);
      const after = ws.data.query.after;
      // Without `after` the stream starts at the head: live punches only.
      const position = after === undefined || after === '' ? await service.maxSequence() : Number(after);
      if (raw.readyState !== WebSocket.OPEN || !bySocket.has(raw)) return;
      connection.subscriber = hub.add(raw, position);
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
