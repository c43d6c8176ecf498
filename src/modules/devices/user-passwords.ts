/**
 * The passwords terminals report for their users (`Passwd=` of a 2.x `USER` record, `password=` of
 * a 3.x `user` row: given at the terminal's menu, sent in clear on the wire). They must go back to
 * that terminal in the user's own record, or writing the record would take the password away
 * (an adopted administrator locked out: fleet/service.ts `adopt`), so they are sealed, not digested:
 * under the key ring as webhook secrets are (AES-256-GCM, the key id in the envelope), bound to the
 * terminal and PIN (AAD `fpa-secret-v1|terminal_password|<device id>/<PIN>`, so a sealed value
 * copied to another user or terminal does not open there). The column holds
 * `sealed1:<base64url envelope>`. Never returned by the API, never logged; opened only to render
 * that user's record for that terminal (terminals/render.ts).
 */
import { and, desc, eq, inArray, isNotNull, ne, or } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import { type SealedSample, sealedSample } from '../../platform/crypto/sealed-sample';
import { TemplateDecryptError, type TemplateKeyRing } from '../../platform/crypto/template-cipher';
import type { Database } from '../../platform/db/client';
import type { DeviceRuntime } from './runtime';
import { deviceUsers } from './tables';

const SEALED_PREFIX = 'sealed1:';
const aadOf = (deviceId: string, pin: string) => ({ purpose: 'terminal_password', id: `${deviceId}/${pin}` }) as const;

/** The stored form of a terminal user's password. */
export async function sealTerminalPassword(ring: TemplateKeyRing, deviceId: string, pin: string, password: string): Promise<string> {
  const plain = new TextEncoder().encode(password);
  try {
    return SEALED_PREFIX + Buffer.from(await ring.encryptSecret(plain, aadOf(deviceId, pin))).toString('base64url');
  } finally {
    plain.fill(0);
  }
}

/** The password from its stored form. Throws TemplateDecryptError when no key of the ring opens it (or it was tampered with, or copied). */
export async function openTerminalPassword(ring: TemplateKeyRing, deviceId: string, pin: string, stored: string): Promise<string> {
  const plain = await ring.decryptSecret(envelopeOf(stored), aadOf(deviceId, pin));
  try {
    return new TextDecoder().decode(plain);
  } finally {
    plain.fill(0);
  }
}

/**
 * What a terminal's own record of a user linked to an enrollee keeps when the service writes that
 * user there again: the privilege and password the terminal reported for them (its menu gave
 * them), or `unreadable` when the password's key is no longer in the ring.
 */
export type KeptCredentials = { enrolleeId: string; privilege: number; password: string } | { enrolleeId: string; unreadable: true };

/** The privilege and password of a terminal's users linked to enrollees, for their user records there. */
export class KeptCredentialsOf {
  constructor(private readonly ctx: Pick<DeviceRuntime, 'db' | 'keyRing'>) {}

  /**
   * Of these PINs, the users of the terminal linked to an enrollee whose record there holds a
   * privilege or a password the terminal reported (its menu's): what writing their record there
   * again must keep (terminals/render.ts). Passwords are opened here, for that record only.
   */
  async of(deviceId: string, pins: readonly string[]): Promise<Map<string, KeptCredentials>> {
    const out = new Map<string, KeptCredentials>();
    for (const chunk of chunks(pins, 500)) {
      const rows = await this.ctx.db.orm
        .select({ pin: deviceUsers.pin, enrolleeId: deviceUsers.enrolleeId, privilege: deviceUsers.privilege, password: deviceUsers.password })
        .from(deviceUsers)
        .where(
          and(
            eq(deviceUsers.deviceId, deviceId),
            inArray(deviceUsers.pin, [...chunk]),
            isNotNull(deviceUsers.enrolleeId),
            or(ne(deviceUsers.privilege, 0), isNotNull(deviceUsers.password)),
          ),
        );
      for (const r of rows) out.set(r.pin, await this.opened(deviceId, { ...r, enrolleeId: r.enrolleeId! }));
    }
    return out;
  }

  private async opened(deviceId: string, r: { pin: string; enrolleeId: string; privilege: number | null; password: string | null }): Promise<KeptCredentials> {
    const privilege = r.privilege ?? 0;
    if (r.password === null) return { enrolleeId: r.enrolleeId, privilege, password: '' };
    try {
      return { enrolleeId: r.enrolleeId, privilege, password: await openTerminalPassword(this.ctx.keyRing, deviceId, r.pin, r.password) };
    } catch (error) {
      if (!(error instanceof TemplateDecryptError)) throw error;
      return { enrolleeId: r.enrolleeId, unreadable: true };
    }
  }
}

function envelopeOf(stored: string): Uint8Array {
  // Anything else fails as a malformed envelope would (TemplateDecryptError, generic).
  return new Uint8Array(stored.startsWith(SEALED_PREFIX) ? Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url') : []);
}

/**
 * `fpa:rotate-keys`' part: every terminal user's password sealed again under the first key (a
 * value only rewritten from the one it was read with, so a report meanwhile wins). One under a key
 * the ring no longer has cannot be opened: left as it is (its user record fails to render and says why).
 */
export async function rotateTerminalPasswords(ctx: Pick<DeviceRuntime, 'db' | 'keyRing'>): Promise<{ terminal_passwords: number }> {
  const ring = ctx.keyRing;
  const rows = await ctx.db.orm
    .select({ deviceId: deviceUsers.deviceId, pin: deviceUsers.pin, password: deviceUsers.password })
    .from(deviceUsers)
    .where(isNotNull(deviceUsers.password));
  const updates: { deviceId: string; pin: string; from: string; to: string }[] = [];
  for (const row of rows) {
    const stored = row.password!;
    let keyId: string;
    try {
      keyId = ring.keyIdOf(envelopeOf(stored));
    } catch {
      continue;
    }
    if (keyId === ring.primaryKeyId || !ring.hasKey(keyId)) continue;
    const password = await openTerminalPassword(ring, row.deviceId, row.pin, stored);
    updates.push({ deviceId: row.deviceId, pin: row.pin, from: stored, to: await sealTerminalPassword(ring, row.deviceId, row.pin, password) });
  }
  if (updates.length === 0) return { terminal_passwords: 0 };
  const done = await ctx.db.write(async ({ tx }) => {
    let count = 0;
    for (const u of updates) {
      const changed = await tx
        .update(deviceUsers)
        .set({ password: u.to })
        .where(and(eq(deviceUsers.deviceId, u.deviceId), eq(deviceUsers.pin, u.pin), eq(deviceUsers.password, u.from)))
        .returning({ pin: deviceUsers.pin });
      count += changed.length;
    }
    return count;
  });
  return { terminal_passwords: done };
}

/** The newest `limit` sealed passwords, for the key ring check (platform/crypto/sealed-sample.ts). */
export async function sealedTerminalPasswordSamples(db: Database, limit: number): Promise<SealedSample[]> {
  const rows = await db.orm
    .select({ deviceId: deviceUsers.deviceId, pin: deviceUsers.pin, password: deviceUsers.password })
    .from(deviceUsers)
    .where(isNotNull(deviceUsers.password))
    .orderBy(desc(deviceUsers.updatedAt))
    .limit(limit);
  return rows.map((row) =>
    sealedSample('terminal user password', envelopeOf(row.password!), (ring, envelope) => ring.decryptSecret(envelope, aadOf(row.deviceId, row.pin))),
  );
}
