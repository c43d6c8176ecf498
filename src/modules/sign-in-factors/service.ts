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
import type { FactorUser, PasswordCheck, RequestOrigin } from './ports';
import type { FactorRuntime } from './runtime';
import { SignInStates } from './states';
import { passkeys, recoveryCodes, requiredFactorRoles, userTotp } from './tables';
import { factorsHeld, TotpFactor } from './totp-factor';

export type SecondFactorKind = 'none' | 'totp' | 'passkey';

export interface FactorOverview {
  secondFactor: SecondFactorKind;
  totpConfirmedAt: number | null;
  passkeys: PasskeySummary[];
  recoveryCodesLeft: number;
  /** The user's role requires a second factor. */
  required: boolean;
  passwordSet: boolean;
}

export class SecondFactors {
  readonly states: SignInStates;
  readonly totp: TotpFactor;
  readonly passkeys: PasskeyFactor;

  constructor(
    private readonly ctx: FactorRuntime,
    private readonly passwords: PasswordCheck,
  ) {
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
    return { secondFactor: kind, totpConfirmedAt, passkeys: keys, recoveryCodesLeft: left, required, passwordSet: user.hasPassword };
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

  /** Removes the authenticator app, once the current password is given again; the last factor takes the recovery codes with it. */
  async removeTotp(user: FactorUser, password: string): Promise<void> {
    await this.refuseLastRequired(user, 'totp');
    await this.passwords.confirm(user.id, password);
    const removed = await this.removeFactor(user, 'user.totp_removed', async (tx) => ((await this.totp.deleteIn(tx, user.id)) ? {} : null));
    if (!removed) throw new FpaError('not_found', 'no authenticator app is set up', {});
  }

  /**
   * Starts setting up an authenticator app, once the current password is given again: a session
   * alone (a browser left signed in) must not put a factor of someone else's in front of the
   * account, and the recovery codes its confirmation shows with it.
   */
  async startTotp(user: FactorUser, password: string | undefined, rpId: string) {
    await this.confirmAdding(user, password);
    return this.totp.start(user, rpId);
  }

  /** The browser's passkey prompt, once the current password is given again (as `startTotp`): the challenge is only made after it. */
  async passkeyOptions(user: FactorUser, password: string | undefined, origin: RequestOrigin) {
    await this.confirmAdding(user, password);
    return this.passkeys.registrationOptions(user, origin);
  }

  /** Keeps the passkey the browser made; answers the recovery codes made now when the user had none (shown once), else null. */
  async addPasskey(user: FactorUser, response: RegistrationResponseJSON, name: string, origin: RequestOrigin) {
    const added = await this.passkeys.register(user, response, name, origin);
    const codes = await this.ctx.db.write(async ({ tx }) => this.totp.ensureRecoveryCodes(tx, user, this.ctx.clock.now()));
    return { passkey: added, recoveryCodes: codes };
  }

  /** Removes one passkey, once the current password is given again; the last factor takes the recovery codes with it. */
  async removePasskey(user: FactorUser, id: string, password: string): Promise<void> {
    const keys = await this.passkeys.list(user.id);
    if (keys.length === 1 && keys[0]?.id === id) await this.refuseLastRequired(user, 'passkey');
    await this.passwords.confirm(user.id, password);
    const removed = await this.removeFactor(user, 'user.passkey_removed', async (tx) => {
      const name = await this.passkeys.deleteIn(tx, user.id, id);
      return name === null ? null : { passkey: name };
    });
    if (!removed) throw new FpaError('not_found', 'passkey not found', { passkey: id });
  }

  /**
   * Ten new recovery codes, once the current password is given again; the old ones stop working.
   * 409 without a second factor: codes come with one (and go with the last one).
   */
  async newRecoveryCodes(user: FactorUser, password: string): Promise<string[]> {
    if ((await this.kind(user.id)) === 'none') throw new FpaError('conflict', 'set up a second factor first: recovery codes come with it', {});
    await this.passwords.confirm(user.id, password);
    return this.totp.regenerateRecoveryCodes(user);
  }

  /** A user who signs in only by single sign-on has no password to give: the provider's sign-in vouched for them. */
  private async confirmAdding(user: FactorUser, password: string | undefined): Promise<void> {
    if (!user.hasPassword) return;
    if (password === undefined)
      throw new FpaError('validation_error', 'give your current password (current_password) to add a second factor', { field: 'current_password' });
    await this.passwords.confirm(user.id, password);
  }

  /**
   * A factor removed, audited, in one transaction. With the user's last factor go the recovery
   * codes: they stand in for a factor, and would otherwise sign in again once a new one is set up
   * (which shows ten new codes instead).
   */
  private async removeFactor(user: FactorUser, action: string, remove: (tx: Tx) => Promise<Record<string, unknown> | null>): Promise<boolean> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx }) => {
      const details = await remove(tx);
      if (!details) return false;
      if ((await factorsHeld(tx, user.id)) === 0) {
        const dropped = await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id)).returning({ usedAt: recoveryCodes.usedAt });
        details.recovery_codes_dropped = dropped.filter((c) => c.usedAt === null).length;
      }
      await audit(tx, now, {
        actor: user.username,
        actorKind: 'user',
        actorId: user.id,
        action,
        targetType: 'user',
        targetId: user.id,
        details: Object.keys(details).length > 0 ? details : undefined,
      });
      return true;
    });
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
