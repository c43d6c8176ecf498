/**
 * API keys of integrators (API.md): `fpa_key_<43 random characters>`, shown once, with a role and
 * areas, optionally expiring, revocable at once. Stored as HMAC-SHA256 under a secret derived
 * (HKDF) from the template key ring, as terminal keys are (src/modules/devices/key-digest.ts): a
 * copy of the database is worthless without the ring, kept outside it. The digest names the ring
 * key it was made under (`hmac1:<key id>:<hex>`), so keys survive a ring rotation as long as that
 * key stays in the ring. A presented key is looked up by its digest under every ring key.
 *
 * `last_used_at` is written at most once a minute per key (LAST_USE_EVERY_MS), after the answer
 * is decided, never in the request's way.
 */
import { createHmac } from 'node:crypto';
import { and, count, desc, eq, inArray, isNull, lt } from 'drizzle-orm';
import type { DigestSecrets } from '../../platform/crypto/digest-secrets';
import type { Queryable, Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { API_KEY_PREFIX } from '../../platform/http/admin-auth';
import type { Caller, Role } from '../../platform/http/caller';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { knownAreaIds, namesByMember } from '../areas';
import { audit } from '../audit';
import type { ApiKeyCreatedView, ApiKeyCreateInput, ApiKeyView } from './model';
import { assertMayGrant, assertMayGrantAreas, assertMayTouch, inCallerScope, mayStillHold } from './rules';
import type { UserRuntime } from './runtime';
import { type ApiKeyRow, apiKeyAreas, apiKeys, users } from './tables';
import { areasOfUsers } from './views';

const KEY_SHAPE = /^fpa_key_[A-Za-z0-9_-]{43}$/;
const SCHEME = 'hmac1';
const LAST_USE_EVERY_MS = 60_000;

export class ApiKeys {
  /** Keys are stored as HMACs under secrets derived for this purpose (never the template keys). */
  private readonly secrets: DigestSecrets;

  constructor(private readonly ctx: UserRuntime) {
    this.secrets = ctx.digestSecrets('fpa-api-keys');
  }

  private digest(keyId: string, key: string): string {
    return `${SCHEME}:${keyId}:${createHmac('sha256', this.secrets.secret(keyId)!).update(key).digest('hex')}`;
  }

  async create(caller: Caller, input: ApiKeyCreateInput): Promise<ApiKeyCreatedView> {
    const current = this.secrets.currentId;
    if (current === null) throw new FpaError('unavailable', 'no template encryption key to derive the API key secret from', {});
    assertMayGrant(caller, input.role);
    const areas = [...new Set(input.areas ?? [])].sort();
    assertMayGrantAreas(caller, areas);
    const now = this.ctx.clock.now();
    const expiresAt = input.expires_at ? Date.parse(input.expires_at) : null;
    if (expiresAt !== null && !(expiresAt > now)) throw new FpaError('validation_error', 'expires_at must be a time in the future', { field: 'expires_at' });
    const key = `${API_KEY_PREFIX}${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`;
    const userId = await this.userBehind(caller);
    const row: ApiKeyRow = {
      id: crypto.randomUUID(),
      name: input.name.trim(),
      role: input.role,
      digest: this.digest(current, key),
      prefix: key.slice(0, API_KEY_PREFIX.length + 6),
      userId,
      createdBy: caller.by,
      createdAt: now,
      expiresAt,
      revokedAt: null,
      lastUsedAt: null,
    };
    await this.ctx.db.write(async ({ tx }) => {
      await this.assertMakerStillMay(tx, caller, userId, { role: input.role, areas });
      const areaIds = await knownAreaIds(tx, areas);
      await tx.insert(apiKeys).values(row);
      if (areaIds.length > 0) await tx.insert(apiKeyAreas).values(areaIds.map((areaId) => ({ keyId: row.id, areaId })));
      await audit(tx, now, {
        actor: caller.by,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: row.id,
        details: { name: row.name, role: row.role, areas, expires_at: input.expires_at ?? null },
      });
    });
    return { ...view(row, areas, now), key };
  }

  /**
   * The user a new key ends with: the caller, or the user behind the key that makes it. A key made
   * with a key belongs to the same user, so disabling or demoting that user revokes the whole
   * chain; standing alone, it let a demoted admin make themself admin again.
   */
  private async userBehind(caller: Caller): Promise<string | null> {
    if (caller.actor.kind === 'user') return caller.actor.id;
    if (caller.actor.kind !== 'api_key') return null;
    const [maker] = await this.ctx.db.orm.select({ userId: apiKeys.userId }).from(apiKeys).where(eq(apiKeys.id, caller.actor.id)).limit(1);
    return maker?.userId ?? null;
  }

  /**
   * In the key's own write: its maker as it stands now. A revocation, a demotion or a move
   * committed since the request was let in (by another instance, say) wins: the key is refused
   * (401 for a revoked key, 409 for a user who may no longer make it), never inserted after the
   * revocation of the maker's keys and so outliving it.
   */
  private async assertMakerStillMay(tx: Tx, caller: Caller, userId: string | null, key: { role: Role; areas: readonly string[] }): Promise<void> {
    if (caller.actor.kind === 'api_key') {
      const [maker] = await tx.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, caller.actor.id)).limit(1);
      if (!maker || maker.revokedAt !== null) throw new FpaError('unauthorized', 'the API key making this key was revoked', {});
    }
    if (userId === null) return;
    const [user] = await tx.select({ role: users.role, disabledAt: users.disabledAt }).from(users).where(eq(users.id, userId)).limit(1);
    const holder = user && user.disabledAt === null ? { role: user.role, areas: (await areasOfUsers(tx, [userId])).get(userId) ?? [] } : null;
    if (!holder || !mayStillHold(holder, key)) {
      throw new FpaError('conflict', 'the account behind this request may no longer make this key (its role or areas changed, or it was disabled)', {});
    }
  }

  async list(caller: Caller, options: { cursor?: string; limit: number }): Promise<Page<ApiKeyView>> {
    const q = this.ctx.db.orm;
    const before = textCursor('api-keys', options.cursor);
    const rows = await q
      .select()
      .from(apiKeys)
      .where(before === null ? undefined : lt(apiKeys.id, before))
      .orderBy(desc(apiKeys.id))
      .limit(options.limit + 1);
    const page = pageOf(
      'api-keys',
      rows,
      options.limit,
      (r) => r.id,
      (slice) => slice,
    );
    const areas = await this.areasOf(page.results.map((r) => r.id));
    const now = this.ctx.clock.now();
    const results = page.results.filter((r) => this.maySee(caller, r, areas.get(r.id) ?? [])).map((r) => view(r, areas.get(r.id) ?? [], now));
    return { results, next_cursor: page.next_cursor };
  }

  /** Live keys limited to an area. */
  async countInArea(q: Queryable, areaId: string): Promise<number> {
    const [row] = await q
      .select({ n: count() })
      .from(apiKeyAreas)
      .innerJoin(apiKeys, eq(apiKeys.id, apiKeyAreas.keyId))
      .where(and(eq(apiKeyAreas.areaId, areaId), isNull(apiKeys.revokedAt)));
    return row?.n ?? 0;
  }

  /** Revokes a key at once (the next request with it is 401). */
  async revoke(caller: Caller, id: string): Promise<void> {
    await this.ctx.db.write(async ({ tx }) => {
      const [row] = await tx.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
      const areas = row ? ((await this.areasOf([row.id])).get(row.id) ?? []) : [];
      if (!row || !this.maySee(caller, row, areas)) throw new FpaError('not_found', 'no such API key', { id });
      assertMayTouch(caller, row.role);
      if (row.revokedAt !== null) return;
      const now = this.ctx.clock.now();
      await tx.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, id));
      await audit(tx, now, { actor: caller.by, action: 'api_key.revoked', targetType: 'api_key', targetId: id, details: { name: row.name } });
    });
  }

  /** Revokes every key a user made (the user is disabled or removed); how many were live. */
  async revokeAllOf(tx: Tx, userId: string): Promise<number> {
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: this.ctx.clock.now() })
      .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    return revoked.length;
  }

  /** Revokes the keys a user made that their new role or areas no longer allow them to make (rules.ts `mayStillHold`); how many. */
  async revokeBeyond(tx: Tx, userId: string, holder: Pick<Caller, 'role' | 'areas'>): Promise<number> {
    const live = await tx
      .select({ id: apiKeys.id, role: apiKeys.role })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
    const areas = await this.areasOf(
      live.map((k) => k.id),
      tx,
    );
    const beyond = live.filter((k) => !mayStillHold(holder, { role: k.role, areas: areas.get(k.id) ?? [] })).map((k) => k.id);
    if (beyond.length > 0) await tx.update(apiKeys).set({ revokedAt: this.ctx.clock.now() }).where(inArray(apiKeys.id, beyond));
    return beyond.length;
  }

  /** The caller a presented key stands for, or null (unknown, revoked, expired). */
  async identify(key: string): Promise<Caller | null> {
    if (!KEY_SHAPE.test(key) || this.secrets.currentId === null) return null;
    const digests = this.secrets.keyIds().map((id) => this.digest(id, key));
    const [row] = await this.ctx.db.orm.select().from(apiKeys).where(inArray(apiKeys.digest, digests)).limit(1);
    const now = this.ctx.clock.now();
    if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) return null;
    if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USE_EVERY_MS) this.recordUse(row.id, now);
    const areas = (await this.areasOf([row.id])).get(row.id) ?? [];
    return {
      actor: { kind: 'api_key', id: row.id },
      by: `api-key:${row.name}`,
      role: row.role,
      areas,
      ...(row.expiresAt !== null ? { expiresAt: row.expiresAt } : {}),
    };
  }

  private recordUse(id: string, now: number): void {
    this.ctx.db
      .write(({ tx }) => tx.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, id)))
      .catch((error: unknown) => this.ctx.log.warn('could not record an API key’s last use', { error: String(error) }));
  }

  /** Unlimited callers see every key; a caller limited to areas those within its areas; anyone the keys they made. */
  private maySee(caller: Caller, row: ApiKeyRow, areas: readonly string[]): boolean {
    if (row.userId !== null && row.userId === caller.actor.id) return true;
    if (caller.areas.length === 0) return true;
    return areas.length > 0 && inCallerScope(caller, areas);
  }

  private async areasOf(ids: readonly string[], q: Queryable = this.ctx.db.orm): Promise<Map<string, string[]>> {
    if (ids.length === 0) return new Map();
    const pairs = await q
      .select({ member: apiKeyAreas.keyId, areaId: apiKeyAreas.areaId })
      .from(apiKeyAreas)
      .where(inArray(apiKeyAreas.keyId, [...ids]));
    return namesByMember(q, pairs);
  }
}

function view(row: ApiKeyRow, areas: string[], now: number): ApiKeyView {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const status = row.revokedAt !== null ? 'revoked' : row.expiresAt !== null && row.expiresAt <= now ? 'expired' : 'active';
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    areas,
    prefix: row.prefix,
    created_at: iso(row.createdAt)!,
    created_by: row.createdBy,
    expires_at: iso(row.expiresAt),
    revoked_at: iso(row.revokedAt),
    last_used_at: iso(row.lastUsedAt),
    status,
  };
}
