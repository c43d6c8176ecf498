/**
 * Communication keys of terminals (`devices/{sn}/keys/`): issued once and shown once, stored as
 * HMAC digests under a server secret (key-digest.ts), revoked by an administrator. Once a
 * terminal was issued a key, every request for its serial must present a valid one, whatever
 * address it comes from (identity.ts); keys are cached for a minute per serial.
 */
import { and, asc, eq } from 'drizzle-orm';
import { BoundedMap } from '../../platform/bounded-map';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { audit } from '../audit';
import { COMMUNICATION_KEY_PURPOSE, isLegacy, KeyDigests } from './key-digest';
import type { DeviceKeyView } from './model';
import type { DeviceRuntime } from './runtime';
import { refuseIfSharedTerminal } from './scope';
import { type DeviceRow, deviceKeys, devices } from './tables';

const KEY_CACHE_MS = 60_000;
const MAX_CACHED_SERIALS = 10_000;

/** What a request's keys say about it: the terminal has no key, or it presented a valid one, or not. */
export type KeyCheck = 'unkeyed' | 'valid' | 'invalid';

export class DeviceKeys {
  /** Serial → when its communication keys were last read, and their digests. */
  private readonly cache = new BoundedMap<string, { keyed: boolean; deviceId: string; digests: string[]; until: number }>(MAX_CACHED_SERIALS);
  private readonly digests: KeyDigests;

  constructor(
    private readonly ctx: DeviceRuntime,
    private readonly device: (serial: string, q?: Queryable) => Promise<DeviceRow>,
  ) {
    this.digests = new KeyDigests(ctx.digestSecrets(COMMUNICATION_KEY_PURPOSE));
  }

  /** Drops what is cached of a terminal (removed, or its keys changed). */
  forget(serial: string): void {
    this.cache.delete(serial);
  }

  /** Issues a communication key for a terminal; the key is in this answer only. */
  async issue(serial: string, by: string, scope: AreaScope = EVERYWHERE): Promise<DeviceKeyView & { key: string }> {
    const key = numericKey();
    const row = await this.ctx.db.write(async ({ tx }) => {
      const device = await this.device(serial, tx);
      // A key is trusted from any address: whoever holds one is sent every area's people the terminal serves.
      await refuseIfSharedTerminal(tx, device.id, scope, 'issue a communication key for');
      const now = this.ctx.clock.now();
      const id = crypto.randomUUID();
      const values = {
        id,
        deviceId: device.id,
        digest: this.digests.digest(device.id, key),
        // No digits of the key are kept: 12 digits minus a known prefix is fewer guesses.
        hint: '',
        createdBy: by,
        createdAt: now,
        revokedAt: null,
      };
      await tx.insert(deviceKeys).values(values);
      await audit(tx, now, { actor: by, action: 'device.key_issued', targetType: 'device', targetId: serial, details: { key: values.id } });
      return values;
    });
    this.cache.delete(serial);
    return { ...keyView(row), key };
  }

  async list(serial: string): Promise<DeviceKeyView[]> {
    const device = await this.device(serial);
    const rows = await this.ctx.db.orm.select().from(deviceKeys).where(eq(deviceKeys.deviceId, device.id)).orderBy(asc(deviceKeys.createdAt));
    return rows.map(keyView);
  }

  async revoke(serial: string, keyId: string, by: string, scope: AreaScope = EVERYWHERE): Promise<void> {
    await this.ctx.db.write(async ({ tx }) => {
      const device = await this.device(serial, tx);
      await refuseIfSharedTerminal(tx, device.id, scope, 'revoke a communication key of');
      const now = this.ctx.clock.now();
      const revoked = await tx
        .update(deviceKeys)
        .set({ revokedAt: now })
        .where(and(eq(deviceKeys.id, keyId), eq(deviceKeys.deviceId, device.id)))
        .returning({ id: deviceKeys.id });
      if (revoked.length === 0) throw new FpaError('not_found', 'key not found', { key: keyId });
      await audit(tx, now, { actor: by, action: 'device.key_revoked', targetType: 'device', targetId: serial, details: { key: keyId } });
    });
    this.cache.delete(serial);
  }

  /**
   * What the keys a request presents (`pushcommkey`, `token` cookie) say about it. A terminal
   * never issued a key is `unkeyed`; one issued a key must present a key that is not revoked on
   * every request, from any address: no address is trusted for having presented a key before
   * (behind NAT or a proxy that would be everyone). Revoking every key leaves the terminal keyed:
   * it is refused until a new key is issued.
   */
  async check(serial: string, presented: readonly string[]): Promise<KeyCheck> {
    const now = this.ctx.clock.now();
    let entry = this.cache.get(serial);
    if (!entry || entry.until <= now) {
      const [device] = await this.ctx.db.orm.select({ id: devices.id }).from(devices).where(eq(devices.serialNumber, serial)).limit(1);
      const rows = device
        ? await this.ctx.db.orm
            .select({ digest: deviceKeys.digest, revokedAt: deviceKeys.revokedAt })
            .from(deviceKeys)
            .where(eq(deviceKeys.deviceId, device.id))
        : [];
      entry = {
        keyed: rows.length > 0,
        deviceId: device?.id ?? '',
        digests: rows.filter((r) => r.revokedAt === null).map((r) => r.digest),
        until: now + KEY_CACHE_MS,
      };
      this.cache.set(serial, entry);
      const lost = entry.digests.filter((d) => !this.digests.verifiable(d)).length;
      if (lost > 0) {
        this.ctx.log.warn('a communication key was made under a template key no longer in TEMPLATE_ENCRYPTION_KEYS: issue the terminal a new key', {
          serial,
          keys: lost,
        });
      }
    }
    if (!entry.keyed) return 'unkeyed';
    const { deviceId, digests } = entry;
    return presented.some((p) => digests.some((d) => this.digests.verify(d, deviceId, p))) ? 'valid' : 'invalid';
  }
}

function keyView(row: typeof deviceKeys.$inferSelect): DeviceKeyView {
  return {
    id: row.id,
    legacy: isLegacy(row.digest),
    created_by: row.createdBy,
    created_at: new Date(row.createdAt).toISOString(),
    revoked_at: row.revokedAt ? new Date(row.revokedAt).toISOString() : null,
  };
}

/**
 * A communication key: digits only, because a terminal's keypad and its "Comm Key" field take
 * digits; 12 of them (about 40 bits) against guessing over the network.
 */
function numericKey(): string {
  let digits = '';
  while (digits.length < 12) {
    // Bytes of 250 and above are dropped: `b % 10` of them would favour the digits 0–5.
    for (const b of crypto.getRandomValues(new Uint8Array(16))) if (b < 250 && digits.length < 12) digits += String(b % 10);
  }
  return digits;
}
