/**
 * Accounts (API.md "People who sign in"): invite, list, change, disable, reset and remove users,
 * under the rules of rules.ts, and each user as a `Caller` with their current role and areas.
 * Every change is audited; disabling or removing a user ends their console sessions and revokes
 * their API keys in the same transaction.
 */
import { and, asc, count, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Queryable, Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { Caller } from '../../platform/http/caller';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { knownAreaIds } from '../areas';
import { audit } from '../audit';
import type { ConsoleService } from '../console';
import type { ApiKeys } from './api-keys';
import { Invites } from './invites';
import type { InviteLinkView, MeView, UserCreateInput, UserPatchInput, UserView } from './model';
import { assertMayChangeAccount, assertMayGrant, assertMayGrantAreas, assertMayTouch, inCallerScope } from './rules';
import type { UserRuntime } from './runtime';
import { type UserRow, userAreas, users } from './tables';
import { type Account, accountOf, areasOfUsers, findUser, NO_SECOND_FACTORS, type SecondFactorLookup, type UserWithAreas, userView, withAreas } from './views';

/** Something to do in the transaction that resets a user's credentials (the `factors` module clears second factors). */
export type ResetReaction = (tx: Tx, userId: string) => Promise<void>;

const lower = (text: string) => text.trim().toLowerCase();

/**
 * What a change of an account changed, each field `{ from, to }` as a schedule change records it
 * (a role change says the role it took away, not only the one it gave), and `disabled` when it
 * was asked; a field sent with the value it had is no change.
 */
function changesOf(before: UserWithAreas, after: UserRow, areas: string[]): Record<string, unknown> {
  const was = before.row;
  const changes: Record<string, unknown> = {};
  for (const key of ['name', 'email', 'role'] as const) {
    if (after[key] !== was[key]) changes[key] = { from: was[key], to: after[key] };
  }
  if (areas.join('\n') !== before.areas.join('\n')) changes.areas = { from: before.areas, to: areas };
  if ((after.disabledAt === null) !== (was.disabledAt === null)) changes.disabled = after.disabledAt !== null;
  return changes;
}

export class UsersService {
  readonly invites: Invites;
  private secondFactors: SecondFactorLookup = NO_SECOND_FACTORS;
  private readonly resetReactions: ResetReaction[] = [];

  constructor(
    private readonly ctx: UserRuntime,
    private readonly sessions: ConsoleService,
    private readonly keys: ApiKeys,
  ) {
    this.invites = new Invites(ctx, sessions, (q, row) => this.callerOfRow(q, row));
  }

  /** Wired in src/app/modules.ts: where second factors are known (users/me, the users list). */
  describeSecondFactorsWith(lookup: SecondFactorLookup): void {
    this.secondFactors = lookup;
  }

  /** Wired in src/app/modules.ts: run inside every reset (`users/{id}/reset/`), e.g. to clear second factors. */
  onReset(reaction: ResetReaction): void {
    this.resetReactions.push(reaction);
  }

  /** Users limited to an area (an area with people in it cannot be deleted). */
  async countInArea(q: Queryable, areaId: string): Promise<number> {
    const [row] = await q.select({ n: count() }).from(userAreas).where(eq(userAreas.areaId, areaId));
    return row?.n ?? 0;
  }

  /** An account as the sign-in modules see it (second factors, single sign-on); null when there is none. */
  async account(id: string): Promise<Account | null> {
    const [row] = await this.ctx.db.orm.select().from(users).where(eq(users.id, id)).limit(1);
    return row ? accountOf(row) : null;
  }

  /** The account with this email (compared without case), for single sign-on; null when none. */
  async accountByEmail(email: string): Promise<Account | null> {
    const [row] = await this.ctx.db.orm
      .select()
      .from(users)
      .where(eq(users.emailKey, lower(email)))
      .limit(1);
    return row ? accountOf(row) : null;
  }

  /** Whether a user (enabled or not) has this username, compared without case (usernames are unique so). */
  async usernameTaken(name: string): Promise<boolean> {
    const [row] = await this.ctx.db.orm
      .select({ id: users.id })
      .from(users)
      .where(eq(users.usernameKey, lower(name)))
      .limit(1);
    return row !== undefined;
  }

  /** A user as a caller: their role and areas of now; null when disabled or gone. */
  async callerOfUser(userId: string): Promise<Caller | null> {
    const [row] = await this.ctx.db.orm.select().from(users).where(eq(users.id, userId)).limit(1);
    if (!row || row.disabledAt !== null) return null;
    return this.callerOfRow(this.ctx.db.orm, row);
  }

  async callerOfRow(q: Queryable, row: UserRow): Promise<Caller> {
    const areas = (await areasOfUsers(q, [row.id])).get(row.id) ?? [];
    return { actor: { kind: 'user', id: row.id }, by: row.username, role: row.role, areas };
  }

  async list(caller: Caller, options: { cursor?: string; limit: number }): Promise<Page<UserView>> {
    const q = this.ctx.db.orm;
    const after = textCursor('users', options.cursor);
    const rows = await q
      .select()
      .from(users)
      .where(after === null ? undefined : gt(users.usernameKey, after))
      .orderBy(asc(users.usernameKey))
      .limit(options.limit + 1);
    const page = pageOf(
      'users',
      rows,
      options.limit,
      (r) => r.usernameKey,
      (slice) => slice,
    );
    // Scoping filters after the page is read: a limited caller may see a short page (never a wrong one).
    const found = (await withAreas(q, page.results)).filter((u) => inCallerScope(caller, u.areas) || u.row.id === caller.actor.id);
    const factors = await this.secondFactors(
      q,
      found.map((u) => u.row.id),
    );
    return { results: found.map((u) => userView(u, factors.get(u.row.id))), next_cursor: page.next_cursor };
  }

  async get(caller: Caller, id: string): Promise<UserView> {
    const user = await this.visible(this.ctx.db.orm, caller, id);
    return this.view(this.ctx.db.orm, user);
  }

  /** `users/me/`: the caller, whatever credential it came with. */
  async me(caller: Caller): Promise<MeView> {
    const expires = caller.expiresAt ? new Date(caller.expiresAt).toISOString() : null;
    if (caller.actor.kind === 'user') {
      const user = await findUser(this.ctx.db.orm, caller.actor.id);
      const view = await this.view(this.ctx.db.orm, user);
      return {
        id: view.id,
        kind: 'user',
        name: view.name,
        username: view.username,
        email: view.email,
        role: view.role,
        areas: view.areas,
        second_factor: view.second_factor,
        expires_at: expires,
      };
    }
    const { kind, id } = caller.actor;
    return {
      id,
      kind,
      name: caller.by,
      username: caller.by,
      email: null,
      role: caller.role,
      areas: [...caller.areas],
      second_factor: 'none',
      expires_at: expires,
    };
  }

  /** Invites someone: the account (no password yet) and its one-time link. */
  async create(caller: Caller, input: UserCreateInput, base: string): Promise<UserView & { invite_url: string; invite_expires_at: string }> {
    assertMayGrant(caller, input.role);
    const areas = input.areas ?? [];
    assertMayGrantAreas(caller, areas);
    return this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      const areaIds = await knownAreaIds(tx, areas);
      await this.assertUnique(tx, input.username, input.email ?? null);
      const row: UserRow = {
        id: crypto.randomUUID(),
        username: input.username.trim(),
        usernameKey: lower(input.username),
        name: input.name.trim(),
        email: input.email?.trim() || null,
        emailKey: input.email ? lower(input.email) : null,
        role: input.role,
        passwordHash: null,
        passwordChangedAt: null,
        disabledAt: null,
        createdAt: now,
        updatedAt: now,
        createdBy: caller.by,
      };
      await tx.insert(users).values(row);
      if (areaIds.length > 0) await tx.insert(userAreas).values(areaIds.map((areaId) => ({ userId: row.id, areaId })));
      const invite = await this.invites.mint(tx, row, 'invite', caller.by, base);
      await audit(tx, now, {
        actor: caller.by,
        action: 'user.invited',
        targetType: 'user',
        targetId: row.id,
        details: { username: row.username, role: row.role, areas: [...new Set(areas)].sort(), expires_at: new Date(invite.expiresAt).toISOString() },
      });
      const view = await this.view(tx, { row, areas: [...new Set(areas)].sort() });
      return { ...view, invite_url: invite.url, invite_expires_at: new Date(invite.expiresAt).toISOString() };
    });
  }

  /** Changes name, email, role, areas or `disabled`; disabling ends sessions and revokes keys at once. */
  async update(caller: Caller, id: string, patch: UserPatchInput): Promise<UserView> {
    return this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      const user = await this.visible(tx, caller, id);
      const { row } = user;
      assertMayTouch(caller, row.role);
      assertMayChangeAccount(caller, user.areas);
      if (patch.role !== undefined) assertMayGrant(caller, patch.role);
      if (patch.areas !== undefined) assertMayGrantAreas(caller, patch.areas);
      const disabling = patch.disabled === true && row.disabledAt === null;
      if ((patch.role !== undefined && patch.role !== 'owner') || disabling) await this.assertNotLastOwner(tx, row);
      if (patch.email !== undefined) await this.assertUnique(tx, null, patch.email, row.id);
      const next: Partial<UserRow> = { updatedAt: now };
      if (patch.name !== undefined) next.name = patch.name.trim();
      if (patch.email !== undefined) Object.assign(next, { email: patch.email?.trim() || null, emailKey: patch.email ? lower(patch.email) : null });
      if (patch.role !== undefined) next.role = patch.role;
      if (patch.disabled !== undefined) next.disabledAt = patch.disabled ? (row.disabledAt ?? now) : null;
      await tx.update(users).set(next).where(eq(users.id, row.id));
      let areas = user.areas;
      if (patch.areas !== undefined) {
        const areaIds = await knownAreaIds(tx, patch.areas);
        await tx.delete(userAreas).where(eq(userAreas.userId, row.id));
        if (areaIds.length > 0) await tx.insert(userAreas).values(areaIds.map((areaId) => ({ userId: row.id, areaId })));
        areas = [...new Set(patch.areas)].sort();
      }
      const ended = disabling
        ? await this.endAccess(tx, row.id)
        : patch.role !== undefined || patch.areas !== undefined
          ? { api_keys_revoked: await this.keys.revokeBeyond(tx, row.id, { role: next.role ?? row.role, areas }) }
          : null;
      await audit(tx, now, {
        actor: caller.by,
        action: disabling ? 'user.disabled' : patch.disabled === false && row.disabledAt !== null ? 'user.enabled' : 'user.updated',
        targetType: 'user',
        targetId: row.id,
        details: { username: row.username, ...changesOf(user, { ...row, ...next }, areas), ...(ended ?? {}) },
      });
      return this.view(tx, { row: { ...row, ...next }, areas });
    });
  }

  /** Removes an account: its sessions end and its API keys are revoked. */
  async remove(caller: Caller, id: string): Promise<void> {
    await this.ctx.db.write(async ({ tx }) => {
      const { row, areas } = await this.visible(tx, caller, id);
      assertMayTouch(caller, row.role);
      assertMayChangeAccount(caller, areas);
      await this.assertNotLastOwner(tx, row);
      const ended = await this.endAccess(tx, row.id);
      // What a reset clears (second factors) goes with the account.
      for (const reaction of this.resetReactions) await reaction(tx, row.id);
      await tx.delete(userAreas).where(eq(userAreas.userId, row.id));
      await this.invites.forget(tx, row.id);
      await tx.delete(users).where(eq(users.id, row.id));
      await audit(tx, this.ctx.clock.now(), {
        actor: caller.by,
        action: 'user.deleted',
        targetType: 'user',
        targetId: row.id,
        details: { username: row.username, role: row.role, ...ended },
      });
    });
  }

  /**
   * A new one-time link that sets a new password: the old password stops working and every
   * session ends at once; the reset reactions run (second factors are cleared).
   */
  async reset(caller: Caller, id: string, base: string): Promise<InviteLinkView> {
    return this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      const user = await this.visible(tx, caller, id);
      assertMayTouch(caller, user.row.role);
      assertMayChangeAccount(caller, user.areas);
      if (user.row.disabledAt !== null) throw new FpaError('conflict', 'the account is disabled: enable it first', { id });
      await tx.update(users).set({ passwordHash: null, updatedAt: now }).where(eq(users.id, user.row.id));
      const sessions = await this.sessions.endSessionsOf(tx, user.row.id);
      for (const reaction of this.resetReactions) await reaction(tx, user.row.id);
      const invite = await this.invites.mint(tx, user.row, 'reset', caller.by, base);
      await audit(tx, now, {
        actor: caller.by,
        action: 'user.reset',
        targetType: 'user',
        targetId: user.row.id,
        details: { username: user.row.username, sessions_ended: sessions, expires_at: new Date(invite.expiresAt).toISOString() },
      });
      const row = { ...user.row, passwordHash: null, updatedAt: now };
      return { user: await this.view(tx, { row, areas: user.areas }), invite_url: invite.url, invite_expires_at: new Date(invite.expiresAt).toISOString() };
    });
  }

  /** An account the caller may see (limited callers: sharing an area, or themself), else 404. */
  private async visible(q: Queryable, caller: Caller, id: string): Promise<UserWithAreas> {
    const user = await findUser(q, id);
    if (!inCallerScope(caller, user.areas) && user.row.id !== caller.actor.id) throw new FpaError('not_found', 'no such user', { id });
    return user;
  }

  private async view(q: Queryable, user: UserWithAreas): Promise<UserView> {
    const factors = await this.secondFactors(q, [user.row.id]);
    return userView(user, factors.get(user.row.id));
  }

  private async endAccess(tx: Tx, userId: string): Promise<{ sessions_ended: number; api_keys_revoked: number }> {
    return { sessions_ended: await this.sessions.endSessionsOf(tx, userId), api_keys_revoked: await this.keys.revokeAllOf(tx, userId) };
  }

  /** Nobody may remove, disable or demote the last owner who can act (not disabled). */
  private async assertNotLastOwner(tx: Tx, row: UserRow): Promise<void> {
    if (row.role !== 'owner' || row.disabledAt !== null) return;
    const [others] = await tx
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, 'owner'), isNull(users.disabledAt), ne(users.id, row.id)));
    if ((others?.n ?? 0) === 0) throw new FpaError('conflict', 'this is the last owner: make another owner first', { id: row.id, reason: 'last_owner' });
  }

  private async assertUnique(tx: Tx, username: string | null, email: string | null, except?: string): Promise<void> {
    if (username !== null) {
      const [taken] = await tx
        .select({ id: users.id })
        .from(users)
        .where(eq(users.usernameKey, lower(username)));
      if (taken && taken.id !== except) throw new FpaError('conflict', 'this username is taken', { field: 'username' });
    }
    if (email) {
      const [taken] = await tx
        .select({ id: users.id })
        .from(users)
        .where(eq(users.emailKey, lower(email)));
      if (taken && taken.id !== except) throw new FpaError('conflict', 'this email belongs to another user', { field: 'email' });
    }
  }
}

/**
 * Whether anyone has an account that may sign in (not disabled): the start banner tells such a
 * server's people to sign in with their account, and one with none how to make the owner's.
 */
export async function anyoneHasAnAccount(q: Queryable): Promise<boolean> {
  const [row] = await q.select({ id: users.id }).from(users).where(isNull(users.disabledAt)).limit(1);
  return row !== undefined;
}
