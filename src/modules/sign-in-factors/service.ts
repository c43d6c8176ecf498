/**
 * Second factors: what a user has (`second_factor`: none, totp or passkey), what an owner
 * requires of chosen roles, the removals that would leave such a user without one, and the
 * administrator's reset that clears them all. The factors themselves: totp-factor.ts and
 * passkey-factor.ts; the sign-in step they complete: sign-in.ts.
 */
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Queryable, Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { isRole, ROLES, type Role } from '../../platform/http/caller';
import { audit } from '../audit';
import { PasskeyFactor, type PasskeySummary } from './passkey-factor';
import type { FactorUser, RequestOrigin } from './ports';
import type { FactorRuntime } from './runtime';
import { SignInStates } from './states';
import { passkeys, recoveryCodes, requiredFactorRoles, userTotp } from './tables';
import { TotpFactor } from './totp-factor';

export type SecondFactorKind = 'none' | 'totp' | 'passkey';

export interface FactorOverview {
  secondFactor: SecondFactorKind;
  totpConfirmedAt: number | null;
  passkeys: PasskeySummary[];
  recoveryCodesLeft: number;
  /** The user's role requires a second factor. */
  required: boolean;
}

export class SecondFactors {
  readonly states: SignInStates;
  readonly totp: TotpFactor;
  readonly passkeys: PasskeyFactor;

  constructor(private readonly ctx: FactorRuntime) {
    this.states = new SignInStates(ctx);
    this.totp = new TotpFactor(ctx);
    this.passkeys = new PasskeyFactor(ctx, this.states);
  }

  /** The strongest factor a user has: a passkey, else a confirmed authenticator app, else none. */
  async kind(userId: string): Promise<SecondFactorKind> {
    const [key] = await this.ctx.db.orm.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1);
    if (key) return 'passkey';
    return (await this.totp.confirmedAt(userId)) !== null ? 'totp' : 'none';
  }

  /** The factor of each of many users (a users list): those without one are left out. */
  async kindsOf(q: Queryable, userIds: readonly string[]): Promise<Map<string, Exclude<SecondFactorKind, 'none'>>> {
    const out = new Map<string, Exclude<SecondFactorKind, 'none'>>();
    if (userIds.length === 0) return out;
    const ids = [...userIds];
    const totps = await q
      .select({ id: userTotp.userId })
      .from(userTotp)
      .where(and(inArray(userTotp.userId, ids), isNotNull(userTotp.confirmedAt)));
    for (const row of totps) out.set(row.id, 'totp');
    const keys = await q.selectDistinct({ id: passkeys.userId }).from(passkeys).where(inArray(passkeys.userId, ids));
    for (const row of keys) out.set(row.id, 'passkey');
    return out;
  }

  async overview(user: FactorUser): Promise<FactorOverview> {
    const [kind, totpConfirmedAt, keys, left, required] = await Promise.all([
      this.kind(user.id),
      this.totp.confirmedAt(user.id),
      this.passkeys.list(user.id),
      this.totp.recoveryCodesLeft(user.id),
      this.isRequired(user.role),
    ]);
    return { secondFactor: kind, totpConfirmedAt, passkeys: keys, recoveryCodesLeft: left, required };
  }

  async requiredRoles(): Promise<Role[]> {
    const rows = await this.ctx.db.orm.select({ role: requiredFactorRoles.role }).from(requiredFactorRoles);
    const set = new Set(rows.map((r) => r.role));
    return ROLES.filter((r) => set.has(r));
  }

  async isRequired(role: Role): Promise<boolean> {
    const [row] = await this.ctx.db.orm.select().from(requiredFactorRoles).where(eq(requiredFactorRoles.role, role)).limit(1);
    return row !== undefined;
  }

  /** An owner's choice of the roles that must have a second factor (the whole list, replaced). */
  async setRequiredRoles(roles: readonly string[], by: string): Promise<Role[]> {
    const bad = roles.filter((r) => !isRole(r));
    if (bad.length > 0) throw new FpaError('validation_error', `not a role: ${bad.join(', ')}`, { field: 'roles', roles: bad });
    const chosen = ROLES.filter((r) => roles.includes(r));
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      await tx.delete(requiredFactorRoles);
      if (chosen.length > 0) await tx.insert(requiredFactorRoles).values(chosen.map((role) => ({ role, setBy: by, setAt: now })));
      await audit(tx, now, { actor: by, action: 'users.second_factor_roles_set', targetType: 'users', details: { roles: chosen } });
    });
    return chosen;
  }

  /** A user whose role requires a second factor and who has none: sent to set one up before anything else. */
  async mustEnroll(user: FactorUser): Promise<boolean> {
    return (await this.isRequired(user.role)) && (await this.kind(user.id)) === 'none';
  }

  async removeTotp(user: FactorUser): Promise<void> {
    await this.refuseLastRequired(user, 'totp');
    if (!(await this.totp.remove(user))) throw new FpaError('not_found', 'no authenticator app is set up', {});
  }

  /** Keeps the passkey the browser made; answers the recovery codes made now when the user had none (shown once), else null. */
  async addPasskey(user: FactorUser, response: RegistrationResponseJSON, name: string, origin: RequestOrigin) {
    const added = await this.passkeys.register(user, response, name, origin);
    const codes = await this.ctx.db.write(async ({ tx }) => this.totp.ensureRecoveryCodes(tx, user, this.ctx.clock.now()));
    return { passkey: added, recoveryCodes: codes };
  }

  async removePasskey(user: FactorUser, id: string): Promise<void> {
    const keys = await this.passkeys.list(user.id);
    if (keys.length === 1 && keys[0]?.id === id) await this.refuseLastRequired(user, 'passkey');
    await this.passkeys.remove(user, id);
  }

  /** Removing the last factor of a user whose role requires one is refused (409): set up another first. */
  private async refuseLastRequired(user: FactorUser, removing: 'totp' | 'passkey'): Promise<void> {
    if (!(await this.isRequired(user.role))) return;
    const others = removing === 'totp' ? (await this.passkeys.list(user.id)).length > 0 : (await this.totp.confirmedAt(user.id)) !== null;
    if (!others) {
      throw new FpaError('conflict', `your role (${user.role}) requires a second factor: set up another one before removing this one`, {
        role: user.role,
      });
    }
  }

  /**
   * The administrator's reset (and a user's removal): every second factor, recovery code and
   * pending sign-in of the user goes, in the caller's transaction.
   */
  async clearIn(tx: Tx, userId: string): Promise<void> {
    await tx.delete(userTotp).where(eq(userTotp.userId, userId));
    await tx.delete(passkeys).where(eq(passkeys.userId, userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await this.states.dropUser(tx, userId);
  }

  async clear(userId: string, by: string): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      await this.clearIn(tx, userId);
      await audit(tx, now, { actor: by, action: 'user.second_factors_cleared', targetType: 'user', targetId: userId });
    });
  }
}
