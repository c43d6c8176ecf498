/**
 * Communication keys of terminals (`devices/{sn}/keys/`): issued once and shown once, stored as
 * SHA-256 digests, revoked by an administrator, and checked on every terminal request (cached
 * for a minute per serial).
 */
import { and, asc, eq } from 'drizzle-orm';
import { BoundedMap } from '../../platform/bounded-map';
import { constantTimeEqual } from '../../platform/crypto/secrets';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { Runtime } from '../../platform/runtime';
import { audit } from '../audit';
import { type DeviceRow, deviceKeys, devices } from './tables';

const KEY_CACHE_MS = 60_000;
const MAX_CACHED_SERIALS = 10_000;

export class DeviceKeys {
  /** Serial → when its communication keys were last read, and their digests. */
  private readonly cache = new BoundedMap<string, { keyed: boolean; digests: string[]; keyedIp: string | null; until: number }>(MAX_CACHED_SERIALS);

  constructor(
    private readonly ctx: Runtime,
    private readonly device: (serial: string, q?: Queryable) => Promise<DeviceRow>,
  ) {}

  /** Drops what is cached of a terminal (removed, or its keys changed). */
  forget(serial: string): void {
    this.cache.delete(serial);
  }

  /** Issues a communication key for a terminal; the key is in this answer only. */
  async issue(serial: string, by: string): Promise<DeviceKeyView & { key: string }> {
    const key = numericKey();
    const row = await this.ctx.db.write(async ({ tx }) => {
      const device = await this.device(serial, tx);
      const now = this.ctx.clock.now();
      const values = {
        id: crypto.randomUUID(),
        deviceId: device.id,
        digest: sha256(key),
        hint: key.slice(0, 2),
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

  async revoke(serial: string, keyId: string, by: string): Promise<void> {
    await this.ctx.db.write(async ({ tx }) => {
      const device = await this.device(serial, tx);
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
   * Whether a terminal request may proceed, for terminals that were issued communication keys: a
   * key presented must be one not revoked; without one, only the address that last presented a
   * valid key is trusted (2.x terminals send `pushcommkey` on the handshake only). Revoking every
   * key locks the terminal out until a new one is issued. Terminals never issued a key are not
   * checked here.
   */
  async admits(serial: string, presented: readonly string[], ip: string | null): Promise<boolean> {
    const now = this.ctx.clock.now();
    let entry = this.cache.get(serial);
    if (!entry || entry.until <= now) {
      const [device] = await this.ctx.db.orm
        .select({ id: devices.id, keyedIp: devices.keyedIp })
        .from(devices)
        .where(eq(devices.serialNumber, serial))
        .limit(1);
      const rows = device
        ? await this.ctx.db.orm
            .select({ digest: deviceKeys.digest, revokedAt: deviceKeys.revokedAt })
            .from(deviceKeys)
            .where(eq(deviceKeys.deviceId, device.id))
        : [];
      entry = {
        keyed: rows.length > 0,
        digests: rows.filter((r) => r.revokedAt === null).map((r) => r.digest),
        keyedIp: device?.keyedIp ?? null,
        until: now + KEY_CACHE_MS,
      };
      this.cache.set(serial, entry);
    }
    if (!entry.keyed) return true;
    if (presented.length > 0) {
      const ok = presented.some((p) => entry!.digests.some((d) => constantTimeEqual(sha256(p), d)));
      if (ok && ip && ip !== entry.keyedIp) await this.rememberKeyedAddress(serial, ip);
      return ok;
    }
    return ip !== null && ip === entry.keyedIp;
  }

  private async rememberKeyedAddress(serial: string, ip: string): Promise<void> {
    await this.ctx.db.write(({ tx }) => tx.update(devices).set({ keyedIp: ip }).where(eq(devices.serialNumber, serial)));
    this.cache.delete(serial);
  }
}

export interface DeviceKeyView {
  id: string;
  hint: string;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
}

function keyView(row: typeof deviceKeys.$inferSelect): DeviceKeyView {
  return {
    id: row.id,
    hint: row.hint,
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
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => String(b % 10)).join('');
}

function sha256(text: string): string {
  return new Bun.CryptoHasher('sha256').update(text).digest('hex');
}
