/**
 * A user's TOTP authenticator and recovery codes: set up (a secret sealed at rest, shown once as
 * an `otpauth://` URI, a QR code and text), confirmed by a first code before it counts, checked
 * at sign-in (±1 step, never the same code twice), removed; ten recovery codes, each good once.
 */
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { renderSVG } from 'uqr';
import type { Queryable, Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { audit } from '../audit';
import type { FactorUser } from './ports';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes';
import type { FactorRuntime } from './runtime';
import { openTotpSecret, sealTotpSecret } from './sealing';
import { passkeys, recoveryCodes, userTotp } from './tables';
import { acceptTotp, newTotpSecret, totpUri } from './totp';

/** How many second factors a user holds: a confirmed authenticator app and each passkey. */
export async function factorsHeld(q: Queryable, userId: string): Promise<number> {
  const [totp] = await q
    .select({ n: sql<number>`count(*)` })
    .from(userTotp)
    .where(and(eq(userTotp.userId, userId), isNotNull(userTotp.confirmedAt)));
  const [keys] = await q.select({ n: sql<number>`count(*)` }).from(passkeys).where(eq(passkeys.userId, userId));
  return Number(totp?.n ?? 0) + Number(keys?.n ?? 0);
}

export interface TotpSetup {
  secret: string;
  uri: string;
  qrSvg: string;
}

export class TotpFactor {
  constructor(private readonly ctx: FactorRuntime) {}

  async confirmedAt(userId: string): Promise<number | null> {
    const [row] = await this.ctx.db.orm.select({ at: userTotp.confirmedAt }).from(userTotp).where(eq(userTotp.userId, userId)).limit(1);
    return row?.at ?? null;
  }

  async recoveryCodesLeft(userId: string): Promise<number> {
    const [row] = await this.ctx.db.orm
      .select({ n: sql<number>`count(*)` })
      .from(recoveryCodes)
      .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
    return Number(row?.n ?? 0);
  }

  /**
   * A new secret, not counted until `confirm`; replaces a setup never confirmed. 409 when one is
   * confirmed. `issuer` is what the app shows above the code (the console's host name).
   */
  async start(user: FactorUser, issuer: string): Promise<TotpSetup> {
    if ((await this.confirmedAt(user.id)) !== null) {
      throw new FpaError('conflict', 'an authenticator app is already set up: remove it first to set up another', {});
    }
    const now = this.ctx.clock.now();
    const secret = newTotpSecret();
    const sealed = await sealTotpSecret(this.ctx.keyRing, user.id, secret);
    await this.ctx.db.write(async ({ tx }) => {
      await tx.delete(userTotp).where(and(eq(userTotp.userId, user.id), isNull(userTotp.confirmedAt)));
      await tx.insert(userTotp).values({ userId: user.id, secret: sealed, createdAt: now }).onConflictDoNothing();
    });
    const uri = totpUri(secret, user.username, issuer);
    return { secret, uri, qrSvg: renderSVG(uri, { border: 2 }) };
  }

  /**
   * The first code proves the app holds the secret: the authenticator then counts. Answers the
   * recovery codes, made now when the user has none left (shown this once), or null.
   */
  async confirm(user: FactorUser, code: string): Promise<string[] | null> {
    const [row] = await this.ctx.db.orm.select().from(userTotp).where(eq(userTotp.userId, user.id)).limit(1);
    if (!row || row.confirmedAt !== null) throw new FpaError('conflict', 'there is no authenticator being set up: start again', {});
    const now = this.ctx.clock.now();
    const step = acceptTotp(await openTotpSecret(this.ctx.keyRing, user.id, row.secret), code, now, row.lastStep);
    if (step === null) throw new FpaError('validation_error', 'that code is not right: type the code the app shows now', { field: 'code' });
    return this.ctx.db.write(async ({ tx }) => {
      const done = await tx
        .update(userTotp)
        .set({ confirmedAt: now, lastStep: step })
        .where(and(eq(userTotp.userId, user.id), eq(userTotp.secret, row.secret), isNull(userTotp.confirmedAt)))
        .returning({ id: userTotp.userId });
      if (done.length === 0) throw new FpaError('conflict', 'the authenticator setup changed meanwhile: start again', {});
      await audit(tx, now, { actor: user.username, actorKind: 'user', actorId: user.id, action: 'user.totp_added', targetType: 'user', targetId: user.id });
      return this.ensureRecoveryCodes(tx, user, now);
    });
  }

  /** Deletes the user's authenticator (a setup never confirmed too), in the caller's transaction: whether a confirmed one went. */
  async deleteIn(tx: Tx, userId: string): Promise<boolean> {
    const gone = await tx.delete(userTotp).where(eq(userTotp.userId, userId)).returning({ at: userTotp.confirmedAt });
    return gone[0]?.at != null;
  }

  /** At sign-in: whether `code` is the confirmed authenticator's code now (and not one used before). */
  async verify(userId: string, code: string): Promise<boolean> {
    const [row] = await this.ctx.db.orm.select().from(userTotp).where(eq(userTotp.userId, userId)).limit(1);
    if (!row || row.confirmedAt === null) return false;
    const step = acceptTotp(await openTotpSecret(this.ctx.keyRing, userId, row.secret), code, this.ctx.clock.now(), row.lastStep);
    if (step === null) return false;
    // Compare-and-set on the step: two sign-ins racing with one code get one success between them.
    return this.ctx.db.write(async ({ tx }) => {
      const last = row.lastStep;
      const done = await tx
        .update(userTotp)
        .set({ lastStep: step })
        .where(and(eq(userTotp.userId, userId), last === null ? isNull(userTotp.lastStep) : eq(userTotp.lastStep, last)))
        .returning({ id: userTotp.userId });
      return done.length > 0;
    });
  }

  /** At sign-in: spends a recovery code; false when it is not one of the user's unused codes. */
  async spendRecoveryCode(user: FactorUser, typed: string): Promise<boolean> {
    const hash = recoveryCodeHash(typed);
    if (hash === null) return false;
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx }) => {
      const spent = await tx
        .update(recoveryCodes)
        .set({ usedAt: now })
        .where(and(eq(recoveryCodes.codeHash, hash), eq(recoveryCodes.userId, user.id), isNull(recoveryCodes.usedAt)))
        .returning({ id: recoveryCodes.codeHash });
      if (spent.length === 0) return false;
      await audit(tx, now, {
        actor: user.username,
        actorKind: 'user',
        actorId: user.id,
        action: 'user.recovery_code_used',
        targetType: 'user',
        targetId: user.id,
      });
      return true;
    });
  }

  /** Ten new recovery codes (shown this once); the old ones stop working. */
  async regenerateRecoveryCodes(user: FactorUser): Promise<string[]> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx }) => {
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
      await audit(tx, now, {
        actor: user.username,
        actorKind: 'user',
        actorId: user.id,
        action: 'user.recovery_codes_regenerated',
        targetType: 'user',
        targetId: user.id,
      });
      return this.insertRecoveryCodes(tx, user.id, now);
    });
  }

  /**
   * Recovery codes for a user who has just set up a factor: when it is their only one, ten new
   * ones, whatever was left (codes of a factor removed before must not sign in again once a new
   * phone is set up); beside another factor, new ones only when none is left unused. Null when
   * none were made (the user keeps theirs).
   */
  async ensureRecoveryCodes(tx: Tx, user: FactorUser, now: number): Promise<string[] | null> {
    if ((await factorsHeld(tx, user.id)) > 1) {
      const [left] = await tx
        .select({ n: sql<number>`count(*)` })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, user.id), isNull(recoveryCodes.usedAt)));
      if (Number(left?.n ?? 0) > 0) return null;
    }
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
    return this.insertRecoveryCodes(tx, user.id, now);
  }

  private async insertRecoveryCodes(tx: Tx, userId: string, now: number): Promise<string[]> {
    const codes = newRecoveryCodes();
    await tx.insert(recoveryCodes).values(codes.map((code) => ({ codeHash: recoveryCodeHash(code) as string, userId, createdAt: now })));
    return codes;
  }
}
