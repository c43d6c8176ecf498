/**
 * Short-lived sign-in states (tables.ts `fpa_sign_in_states`): each known by the SHA-256 of a
 * random token the browser holds, single-use where it matters (taken by a delete that returns
 * the row: two requests with one token get one success), dropped once expired.
 */
import { createHash } from 'node:crypto';
import { and, eq, gt, lt } from 'drizzle-orm';
import { randomToken } from '../../platform/crypto/secrets';
import type { Tx } from '../../platform/db/client';
import type { FactorRuntime } from './runtime';
import { signInStates } from './tables';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** A passkey being registered is one per user: its state is keyed by the user, not a token. */
const setupKey = (userId: string) => sha256(`passkey-setup:${userId}`);

/** How a sign-in began: a password, or the company's provider (single sign-on). */
export type FirstFactor = 'password' | 'sso';

export interface PendingSecondFactor {
  userId: string;
  challenge: string | null;
  expiresAt: number;
  first: FirstFactor;
}

export class SignInStates {
  constructor(private readonly ctx: FactorRuntime) {}

  private async insert(tx: Tx, row: typeof signInStates.$inferInsert): Promise<void> {
    // Housekeeping where it costs nothing: states long over are dropped with each new one.
    await tx.delete(signInStates).where(lt(signInStates.expiresAt, this.ctx.clock.now()));
    await tx
      .insert(signInStates)
      .values(row)
      .onConflictDoUpdate({
        target: signInStates.idHash,
        set: { challenge: row.challenge, data: row.data, createdAt: row.createdAt, expiresAt: row.expiresAt },
      });
  }

  /** A first factor (a password, a provider's sign-in) awaiting the second: the token the browser keeps (it grants nothing else). */
  async beginSecondFactor(userId: string, ttlMs: number, first: FirstFactor): Promise<{ token: string; expiresAt: number }> {
    const now = this.ctx.clock.now();
    const token = randomToken();
    const expiresAt = now + ttlMs;
    await this.ctx.db.write(async ({ tx }) =>
      this.insert(tx, { idHash: sha256(token), kind: 'second_factor', userId, createdAt: now, expiresAt, data: { first } }),
    );
    return { token, expiresAt };
  }

  async secondFactor(token: string): Promise<PendingSecondFactor | null> {
    const [row] = await this.ctx.db.orm
      .select()
      .from(signInStates)
      .where(and(eq(signInStates.idHash, sha256(token)), eq(signInStates.kind, 'second_factor'), gt(signInStates.expiresAt, this.ctx.clock.now())))
      .limit(1);
    // A state begun before single sign-on asked for the second step has no `first`: a password's.
    return row?.userId
      ? { userId: row.userId, challenge: row.challenge, expiresAt: row.expiresAt, first: row.data?.first === 'sso' ? 'sso' : 'password' }
      : null;
  }

  /** Keeps the WebAuthn challenge a pending sign-in was given (a new one replaces the old). */
  async setChallenge(token: string, challenge: string): Promise<void> {
    await this.ctx.db.write(async ({ tx }) => {
      await tx
        .update(signInStates)
        .set({ challenge })
        .where(eq(signInStates.idHash, sha256(token)));
    });
  }

  /** Ends a pending sign-in (done, or given up): true when this call ended it. */
  async end(token: string): Promise<boolean> {
    return this.ctx.db.write(async ({ tx }) => {
      const gone = await tx
        .delete(signInStates)
        .where(eq(signInStates.idHash, sha256(token)))
        .returning({ id: signInStates.idHash });
      return gone.length > 0;
    });
  }

  async putPasskeySetup(userId: string, challenge: string, ttlMs: number): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) =>
      this.insert(tx, { idHash: setupKey(userId), kind: 'passkey_setup', userId, challenge, createdAt: now, expiresAt: now + ttlMs }),
    );
  }

  /** The challenge of the user's passkey registration, once; null when none is under way. */
  async takePasskeySetup(userId: string): Promise<string | null> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx }) => {
      const [row] = await tx
        .delete(signInStates)
        .where(eq(signInStates.idHash, setupKey(userId)))
        .returning();
      return row && row.expiresAt > now ? row.challenge : null;
    });
  }

  /** A trip to the identity provider: what the callback needs, under the `state` sent there. */
  async putOidc(state: string, data: Record<string, string>, ttlMs: number): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => this.insert(tx, { idHash: sha256(state), kind: 'oidc', data, createdAt: now, expiresAt: now + ttlMs }));
  }

  /** The trip's data, once (a replayed callback finds nothing). */
  async takeOidc(state: string): Promise<Record<string, string> | null> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx }) => {
      const [row] = await tx
        .delete(signInStates)
        .where(and(eq(signInStates.idHash, sha256(state)), eq(signInStates.kind, 'oidc')))
        .returning();
      return row && row.expiresAt > now ? (row.data ?? null) : null;
    });
  }

  /** Every state of a user (a reset, a removal). */
  async dropUser(tx: Tx, userId: string): Promise<void> {
    await tx.delete(signInStates).where(eq(signInStates.userId, userId));
  }
}
