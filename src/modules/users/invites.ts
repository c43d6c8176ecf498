/**
 * One-time links that set a password: the invite of a new account and the reset of a lost
 * password (or second factor). The token is random, shown once, stored as its SHA-256, valid
 * USER_INVITE_TTL; a newer link for the same person replaces the older. Completing one sets the
 * password (Argon2id) and signs the person in.
 */
import { createHash } from 'node:crypto';
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client';
import type { Caller } from '../../platform/http/caller';
import { audit } from '../audit';
import type { ConsoleService, StartedSession } from '../console';
import type { InviteInfoView } from './model';
import { PASSWORD_MIN } from './model';
import { hashPassword, requireStrongPassword } from './passwords';
import type { UserRuntime } from './runtime';
import { type UserRow, userInvites, users } from './tables';
import { forgetSignInFailures } from './throttle';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export interface MintedInvite {
  url: string;
  expiresAt: number;
}

/** The console page where a link is completed: the token rides in the fragment, never sent to a server log. */
export const invitePath = (token: string) => `/console/#/invite/${token}`;

/** Who a completed link signed in: the session to set as a cookie, and the account. */
export interface Redeemed {
  session: StartedSession;
  user: UserRow;
}

export class Invites {
  constructor(
    private readonly ctx: UserRuntime,
    private readonly sessions: ConsoleService,
    private readonly callerOf: (q: Tx, user: UserRow) => Promise<Caller>,
  ) {}

  /** A new link for `user` (earlier unused ones stop working), inside the caller's transaction. */
  async mint(tx: Tx, user: UserRow, purpose: 'invite' | 'reset', by: string, base: string): Promise<MintedInvite> {
    const now = this.ctx.clock.now();
    const token = `fpi_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`;
    const expiresAt = now + this.ctx.settings.USER_INVITE_TTL;
    // The person's older links stop working; links of anyone expired a day ago are dropped.
    await tx.delete(userInvites).where(or(eq(userInvites.userId, user.id), lt(userInvites.expiresAt, now - 24 * 3_600_000)));
    await tx.insert(userInvites).values({ tokenHash: sha256(token), userId: user.id, purpose, createdBy: by, createdAt: now, expiresAt });
    return { url: `${base.replace(/\/+$/, '')}${invitePath(token)}`, expiresAt };
  }

  /** Drops every link of a user (the account is removed). */
  async forget(tx: Tx, userId: string): Promise<void> {
    await tx.delete(userInvites).where(eq(userInvites.userId, userId));
  }

  /** What a link is for, without spending it; null when unknown, used, expired or the account is disabled. */
  async peek(token: string): Promise<InviteInfoView | null> {
    const [found] = await this.ctx.db.orm
      .select({ invite: userInvites, user: users })
      .from(userInvites)
      .innerJoin(users, eq(users.id, userInvites.userId))
      .where(eq(userInvites.tokenHash, sha256(token)))
      .limit(1);
    if (!found || found.invite.usedAt !== null || found.invite.expiresAt <= this.ctx.clock.now() || found.user.disabledAt !== null) return null;
    return {
      username: found.user.username,
      name: found.user.name,
      purpose: found.invite.purpose,
      expires_at: new Date(found.invite.expiresAt).toISOString(),
      password_min_length: PASSWORD_MIN,
    };
  }

  /**
   * Spends a link: sets the password, ends the person's other sessions, and opens a session.
   * Null when the link is unknown, used, expired, or the account is disabled.
   */
  async complete(token: string, password: string): Promise<Redeemed | null> {
    requireStrongPassword(password, 'password');
    // Reads first: a made-up token costs no hashing and no write transaction.
    if (!(await this.peek(token))) return null;
    const hash = await hashPassword(password);
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx }) => {
      const [invite] = await tx
        .update(userInvites)
        .set({ usedAt: now })
        .where(and(eq(userInvites.tokenHash, sha256(token)), isNull(userInvites.usedAt)))
        .returning();
      if (!invite || invite.expiresAt <= now) return null;
      const [user] = await tx
        .update(users)
        .set({ passwordHash: hash, passwordChangedAt: now, updatedAt: now })
        .where(and(eq(users.id, invite.userId), isNull(users.disabledAt)))
        .returning();
      if (!user) return null;
      await this.sessions.endSessionsOf(tx, user.id);
      // A new password from an administrator's link lifts a lockout of wrong ones at once.
      await forgetSignInFailures(tx, user.username);
      await audit(tx, now, {
        actor: user.username,
        actorKind: 'user',
        actorId: user.id,
        action: invite.purpose === 'invite' ? 'user.invite_completed' : 'user.reset_completed',
        targetType: 'user',
        targetId: user.id,
      });
      const session = await this.sessions.startUserSession(tx, { caller: await this.callerOf(tx, user), userId: user.id }, 'invite');
      return { session, user };
    });
  }
}
