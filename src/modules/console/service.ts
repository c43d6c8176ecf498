/**
 * Console sign-in and sessions: one-time links, sessions in the database, the cookie and the CSRF
 * token. Every secret is random, shown once, and stored only as its SHA-256: a copy of the
 * database opens no session. The CSRF token is derived from the session id (not stored), so it
 * lives exactly as long as the session and needs no second secret.
 */
import { createHash } from 'node:crypto';
import { and, eq, isNull, lt, ne } from 'drizzle-orm';
import { constantTimeEqual } from '../../platform/crypto/secrets';
import type { Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { AdminIdentity, BrowserSessions } from '../../platform/http/admin-auth';
import type { Caller } from '../../platform/http/caller';
import { openedHere } from '../../platform/http/cross-site';
import { audit } from '../audit';
import type { ConsoleRuntime } from './runtime';
import { consoleLinks, consoleSessions } from './tables';

export const CSRF_HEADER = 'x-fpa-csrf';
const COOKIE = 'fpa_console';
/** Browsers keep a `__Host-` cookie only when it is Secure, host-only and for `/`: the name used over HTTPS. */
const SECURE_COOKIE = `__Host-${COOKIE}`;
/** `last_seen_at` is written at most this often: the idle timeout needs no write per request. */
const TOUCH_EVERY_MS = 60_000;
/** Used and expired links and ended sessions are deleted this long after they stop mattering. */
const KEEP_ENDED_MS = 24 * 3_600_000;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const random = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');

/** The CSRF token of a session: a one-way function of its id, so it cannot lead back to the cookie. */
const csrfTokenOf = (sessionId: string) => createHash('sha256').update(`fpa-console-csrf:${sessionId}`, 'utf8').digest('base64url');

export interface ConsoleSession {
  actor: string;
  origin: SessionOrigin;
  expiresAt: number;
  csrf: string;
  /** Who the session acts as on this request (a user's current role and areas). */
  caller: Caller;
}

export interface StartedSession {
  /** The cookie's value: the session id, given to the browser only. */
  id: string;
  actor: string;
  origin: SessionOrigin;
  expiresAt: number;
  csrf: string;
}

export interface CreatedLink {
  token: string;
  actor: string;
  expiresAt: number;
}

export type SessionOrigin = 'link' | 'host' | 'password' | 'invite' | 'sso';

/** Whom a new session is for: the caller it will stand for, and the user when it is one. */
export interface SessionSubject {
  caller: Caller;
  userId?: string | null;
  /** The session ends no later than this (the minting credential's expiry). */
  notAfter?: number | null;
}

/**
 * What the console needs of the users module (wired in src/app/modules.ts): a user's caller
 * with their current role and areas, or null when the account is disabled or gone.
 */
export interface UserResolver {
  callerOfUser(userId: string): Promise<Caller | null>;
  /** Whether a user (enabled or not) has this username, compared without case. */
  usernameTaken(name: string): Promise<boolean>;
}

/** Whether the request reached us over HTTPS (X-Forwarded-Proto only when a trusted proxy says so). */
export function isHttps(request: Request, trustProxy: boolean): boolean {
  if (new URL(request.url).protocol === 'https:') return true;
  if (!trustProxy) return false;
  const forwarded = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return forwarded === 'https';
}

function cookiesOf(request: Request): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) out.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return out;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class ConsoleService implements BrowserSessions {
  private users: UserResolver | null = null;

  constructor(private readonly ctx: ConsoleRuntime) {}

  /** Sessions of users resolve through the users module (src/app/modules.ts wires it). */
  resolveUsersWith(users: UserResolver): void {
    this.users = users;
  }

  /**
   * A one-time sign-in link valid CONSOLE_LINK_TTL, minted by `minter`. The session it opens
   * stands for the minter (its kind, role and areas; a user's session follows the user) under
   * the name `actor`, and never outlives the minter's credential (`expiresAt`).
   */
  async createLink(actor: string, minter: Caller): Promise<CreatedLink> {
    // The operator names whom a link signs in; a user's username would put the operator's
    // owner-level actions in the audit log under that user's readable name, among their own.
    if (minter.actor.kind === 'operator' && (await this.users?.usernameTaken(actor))) {
      throw new FpaError(
        'conflict',
        `"${actor}" is the username of a user here: a link for the operator needs a name of its own, or the audit log would mix its actions with that user's (they sign in themselves, by password)`,
        { actor, reason: 'username_taken' },
      );
    }
    const now = this.ctx.clock.now();
    const token = `fpc_${random()}`;
    const notAfter = minter.expiresAt ?? null;
    const expiresAt = Math.min(now + this.ctx.settings.CONSOLE_LINK_TTL, notAfter ?? Number.POSITIVE_INFINITY);
    const userId = minter.actor.kind === 'user' ? minter.actor.id : null;
    await this.ctx.db.write(async ({ tx }) => {
      // Housekeeping where it costs nothing: links long over are dropped here (sessions: insertSession).
      await tx.delete(consoleLinks).where(lt(consoleLinks.expiresAt, now - KEEP_ENDED_MS));
      await tx.insert(consoleLinks).values({
        tokenHash: sha256(token),
        actor,
        createdBy: minter.by,
        createdAt: now,
        expiresAt,
        notAfter,
        actorKind: minter.actor.kind,
        role: minter.role,
        areas: [...minter.areas],
        userId,
      });
      await audit(tx, now, {
        actor: minter.by,
        action: 'console_link_created',
        targetType: 'console',
        targetId: actor,
        details: { actor, expires_at: new Date(expiresAt).toISOString() },
      });
    });
    return { token, actor, expiresAt };
  }

  /**
   * Who a link would sign in, without using it (the sign-in page asks before it spends the link);
   * null when it signs nobody in: unknown, used, expired, or made by a user who has been disabled
   * or removed since (their session would be refused at once: the link is left as it is, and no
   * cookie is set).
   */
  async peekLink(token: string): Promise<{ actor: string } | null> {
    const [row] = await this.ctx.db.orm
      .select()
      .from(consoleLinks)
      .where(eq(consoleLinks.tokenHash, sha256(token)))
      .limit(1);
    if (!row || row.usedAt !== null || row.expiresAt <= this.ctx.clock.now()) return null;
    if (row.userId !== null && !(await this.users?.callerOfUser(row.userId))) return null;
    return { actor: row.actor };
  }

  /**
   * Spends a link without opening a session: one that came in the old form, its token in the
   * query string, has been written to every access log on the way and must not sign anyone in.
   */
  async cancelLink(token: string): Promise<void> {
    if (!(await this.peekLink(token))) return;
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      const [link] = await tx
        .update(consoleLinks)
        .set({ usedAt: now })
        .where(and(eq(consoleLinks.tokenHash, sha256(token)), isNull(consoleLinks.usedAt)))
        .returning();
      if (!link) return;
      await audit(tx, now, {
        actor: link.createdBy,
        action: 'console_link_cancelled',
        targetType: 'console',
        targetId: link.actor,
        details: { actor: link.actor, reason: 'token_in_query' },
      });
    });
  }

  /** Spends a link and opens a session; null when the link signs nobody in (`peekLink`). */
  async redeemLink(token: string): Promise<StartedSession | null> {
    // A read first: a made-up or spent token opens no write transaction.
    if (!(await this.peekLink(token))) return null;
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx }) => {
      // Compare-and-set on `used_at`: two tabs opening the same link get one session between them.
      const [link] = await tx
        .update(consoleLinks)
        .set({ usedAt: now })
        .where(and(eq(consoleLinks.tokenHash, sha256(token)), isNull(consoleLinks.usedAt)))
        .returning();
      if (!link || link.expiresAt <= now) return null;
      // A user's link stands for the user (by id); any other for the name it was made for.
      const caller: Caller = { actor: { kind: link.actorKind, id: link.userId ?? link.actor }, by: link.actor, role: link.role, areas: link.areas };
      return this.insertSession(tx, { caller, userId: link.userId, notAfter: link.notAfter }, 'link', now);
    });
  }

  /** A session for someone the embedding host's own sign-in (`authorizeAdmin`) vouches for. */
  async startHostSession(identity: AdminIdentity): Promise<StartedSession> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx }) => this.insertSession(tx, { caller: identity, notAfter: identity.expiresAt }, 'host', now));
  }

  /** A session for a user who proved who they are (a password, an invite); inside the caller's transaction. */
  async startUserSession(tx: Tx, subject: SessionSubject, origin: 'password' | 'invite' | 'sso'): Promise<StartedSession> {
    return this.insertSession(tx, subject, origin, this.ctx.clock.now());
  }

  private async insertSession(tx: Tx, subject: SessionSubject, origin: SessionOrigin, now: number): Promise<StartedSession> {
    const s = this.ctx.settings;
    const id = random();
    const { caller } = subject;
    const expiresAt = Math.min(now + s.CONSOLE_SESSION_TTL, subject.notAfter ?? Number.POSITIVE_INFINITY);
    // Housekeeping where it costs nothing: sessions long over are dropped as new ones begin.
    await tx.delete(consoleSessions).where(lt(consoleSessions.expiresAt, now - KEEP_ENDED_MS));
    await tx.insert(consoleSessions).values({
      idHash: sha256(id),
      actor: caller.by,
      origin,
      createdAt: now,
      expiresAt,
      idleTimeoutMs: s.CONSOLE_SESSION_IDLE_TIMEOUT,
      lastSeenAt: now,
      actorKind: caller.actor.kind,
      role: caller.role,
      areas: [...caller.areas],
      userId: subject.userId ?? null,
    });
    await audit(tx, now, {
      actor: caller.by,
      actorKind: caller.actor.kind,
      actorId: caller.actor.id,
      action: 'console_signed_in',
      targetType: 'console',
      targetId: caller.by,
      details: { by: origin },
    });
    return { id, actor: caller.by, origin, expiresAt, csrf: csrfTokenOf(id) };
  }

  /** The live session a session id stands for (refreshing its idle clock), or null. */
  async session(id: string): Promise<ConsoleSession | null> {
    const now = this.ctx.clock.now();
    const idHash = sha256(id);
    const [row] = await this.ctx.db.orm.select().from(consoleSessions).where(eq(consoleSessions.idHash, idHash)).limit(1);
    if (!row || row.endedAt !== null || row.expiresAt <= now || now - row.lastSeenAt >= row.idleTimeoutMs) return null;
    let caller: Caller | null = {
      actor: { kind: row.actorKind, id: row.userId ?? row.actor },
      by: row.actor,
      role: row.role,
      areas: row.areas,
    };
    // A user's session acts with the user's role and areas of now, and ends with the account.
    if (row.userId !== null) caller = this.users ? await this.users.callerOfUser(row.userId) : null;
    if (!caller) return null;
    // Touched well within the idle timeout, however short it is: a session in use never goes idle.
    if (now - row.lastSeenAt >= Math.min(TOUCH_EVERY_MS, Math.floor(row.idleTimeoutMs / 4))) {
      await this.ctx.db.write(async ({ tx }) => {
        await tx.update(consoleSessions).set({ lastSeenAt: now }).where(eq(consoleSessions.idHash, idHash));
      });
    }
    return { actor: row.actor, origin: row.origin, expiresAt: row.expiresAt, csrf: csrfTokenOf(id), caller: { ...caller, expiresAt: row.expiresAt } };
  }

  /** Ends a session (sign-out); ending one that is already over is harmless. */
  async end(id: string): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      const [row] = await tx
        .update(consoleSessions)
        .set({ endedAt: now })
        .where(and(eq(consoleSessions.idHash, sha256(id)), isNull(consoleSessions.endedAt)))
        .returning();
      if (row) {
        await audit(tx, now, {
          actor: row.actor,
          actorKind: row.actorKind,
          actorId: row.userId ?? row.actor,
          action: 'console_signed_out',
          targetType: 'console',
          targetId: row.actor,
        });
      }
    });
  }

  /** Ends every open session of a user (disabled, removed, reset, password changed), but `keep` (the session asking). */
  async endSessionsOf(tx: Tx, userId: string, keep?: string | null): Promise<number> {
    const now = this.ctx.clock.now();
    const conditions = [eq(consoleSessions.userId, userId), isNull(consoleSessions.endedAt)];
    if (keep) conditions.push(ne(consoleSessions.idHash, sha256(keep)));
    const ended = await tx
      .update(consoleSessions)
      .set({ endedAt: now })
      .where(and(...conditions))
      .returning({ idHash: consoleSessions.idHash });
    return ended.length;
  }

  /**
   * The session id a request's cookie carries, or null. Over HTTPS only the `__Host-` name counts:
   * a plain-named cookie can be planted by a sibling subdomain or over plain HTTP (it is not
   * Secure-only), so accepting it would let someone else fix the session a browser uses.
   */
  sessionIdOf(request: Request): string | null {
    const cookies = cookiesOf(request);
    const id = cookies.get(isHttps(request, this.ctx.settings.CONSOLE_TRUST_PROXY) ? SECURE_COOKIE : COOKIE);
    return id && /^[A-Za-z0-9_-]{43}$/.test(id) ? id : null;
  }

  /** `Set-Cookie` for a new session: HttpOnly, SameSite=Strict, Secure (and `__Host-`) over HTTPS. */
  cookieFor(request: Request, session: StartedSession): string {
    const secure = isHttps(request, this.ctx.settings.CONSOLE_TRUST_PROXY);
    const maxAge = Math.max(0, Math.floor((session.expiresAt - this.ctx.clock.now()) / 1000));
    return `${secure ? SECURE_COOKIE : COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
  }

  /** `Set-Cookie` headers that clear both names. */
  clearCookies(request: Request): string[] {
    const secure = isHttps(request, this.ctx.settings.CONSOLE_TRUST_PROXY);
    const cleared = [`${COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`];
    if (secure) cleared.push(`${SECURE_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure`);
    return cleared;
  }

  /**
   * BrowserSessions for the administrator check: a valid session cookie stands for its actor.
   * The cookie alone never authorizes a change: every method but GET/HEAD/OPTIONS must carry
   * the session's CSRF token in `x-fpa-csrf` (a header another site cannot set), and a
   * WebSocket handshake (a GET, with no header to carry) must come from this origin.
   */
  async identify(request: Request): Promise<AdminIdentity | null> {
    const id = this.sessionIdOf(request);
    if (!id) return null;
    const session = await this.session(id);
    if (!session) return null;
    if (!SAFE_METHODS.has(request.method.toUpperCase())) {
      const presented = request.headers.get(CSRF_HEADER) ?? '';
      if (!constantTimeEqual(presented, session.csrf)) {
        throw new FpaError('forbidden', `a console change needs the session's CSRF token in the ${CSRF_HEADER} header`, { header: CSRF_HEADER });
      }
    }
    if ((request.headers.get('upgrade') ?? '').toLowerCase() === 'websocket' && !openedHere(request, this.ctx.settings)) {
      throw new FpaError('forbidden', 'a console stream must be opened from the console’s own origin', {});
    }
    return session.caller;
  }
}
