/**
 * TOTP secrets at rest: sealed under the key ring as webhook secrets are (AES-256-GCM, the key
 * id in the envelope, AAD `fpa-secret-v1|totp_secret|<user id>`, so a sealed secret copied to
 * another user's row does not open). The column holds `sealed1:<base64url envelope>`.
 */
import { and, desc, eq } from 'drizzle-orm';
import { type SealedSample, sealedSample } from '../../platform/crypto/sealed-sample';
import type { TemplateKeyRing } from '../../platform/crypto/template-cipher';
import type { Database } from '../../platform/db/client';
import type { FactorRuntime } from './runtime';
import { userTotp } from './tables';

const SEALED_PREFIX = 'sealed1:';
const aadOf = (userId: string) => ({ purpose: 'totp_secret', id: userId }) as const;

export async function sealTotpSecret(ring: TemplateKeyRing, userId: string, secret: string): Promise<string> {
  const plain = new TextEncoder().encode(secret);
  try {
    return SEALED_PREFIX + Buffer.from(await ring.encryptSecret(plain, aadOf(userId))).toString('base64url');
  } finally {
    plain.fill(0);
  }
}

/** The base32 secret; throws TemplateDecryptError when no key of the ring opens it. */
export async function openTotpSecret(ring: TemplateKeyRing, userId: string, stored: string): Promise<string> {
  const envelope = envelopeOf(stored);
  const plain = await ring.decryptSecret(envelope, aadOf(userId));
  try {
    return new TextDecoder().decode(plain);
  } finally {
    plain.fill(0);
  }
}

/** `fpa:rotate-keys`' part: every TOTP secret sealed again under the first key (only rows unchanged since read). */
export async function rotateTotpSecrets(ctx: FactorRuntime): Promise<{ totp_secrets: number }> {
  const rows = await ctx.db.orm.select({ userId: userTotp.userId, secret: userTotp.secret }).from(userTotp);
  const updates: { userId: string; from: string; to: string }[] = [];
  for (const row of rows) {
    const keyId = ctx.keyRing.keyIdOf(new Uint8Array(Buffer.from(row.secret.slice(SEALED_PREFIX.length), 'base64url')));
    if (keyId === ctx.keyRing.primaryKeyId || !ctx.keyRing.hasKey(keyId)) continue;
    const secret = await openTotpSecret(ctx.keyRing, row.userId, row.secret);
    updates.push({ userId: row.userId, from: row.secret, to: await sealTotpSecret(ctx.keyRing, row.userId, secret) });
  }
  if (updates.length === 0) return { totp_secrets: 0 };
  const done = await ctx.db.write(async ({ tx }) => {
    let count = 0;
    for (const u of updates) {
      const changed = await tx
        .update(userTotp)
        .set({ secret: u.to })
        .where(and(eq(userTotp.userId, u.userId), eq(userTotp.secret, u.from)))
        .returning({ id: userTotp.userId });
      count += changed.length;
    }
    return count;
  });
  return { totp_secrets: done };
}

function envelopeOf(stored: string): Uint8Array {
  return new Uint8Array(stored.startsWith(SEALED_PREFIX) ? Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url') : []);
}

/** The newest `limit` TOTP secrets, for the key ring check (platform/crypto/sealed-sample.ts). */
export async function sealedTotpSamples(db: Database, limit: number): Promise<SealedSample[]> {
  const rows = await db.orm.select({ userId: userTotp.userId, secret: userTotp.secret }).from(userTotp).orderBy(desc(userTotp.createdAt)).limit(limit);
  return rows.map((row) => sealedSample('TOTP secret', envelopeOf(row.secret), (ring, envelope) => ring.decryptSecret(envelope, aadOf(row.userId))));
}
