/**
 * Webhook signing secrets at rest: sealed under the template key ring (AES-256-GCM, the key id
 * in the envelope, AAD binding it to its endpoint: crypto/template-cipher.ts `encryptSecret`).
 * The `secret` column holds `sealed1:<base64url envelope>`; the secret itself (`whsec_…`) is
 * shown once at creation and otherwise only exists in memory, where the dispatcher signs.
 *
 * Earlier releases stored `whsec_…` in clear. A SQL migration cannot encrypt, so every start
 * seals what is still clear (`sealClearWebhookSecrets`, idempotent: a row is only rewritten from
 * the clear value it was read with), and until then the dispatcher accepts a clear value as it
 * is. `fpa:rotate-keys` re-seals every secret under the first key (`rotateWebhookSecrets`).
 */
import { and, desc, eq, like } from 'drizzle-orm';
import { type SealedSample, sealedSample } from '../../platform/crypto/sealed-sample';
import type { TemplateKeyRing } from '../../platform/crypto/template-cipher';
import type { Database } from '../../platform/db/client';
import { emptyWal } from '../../platform/db/erase';
import type { WebhookRuntime } from './runtime';
import { webhookEndpoints } from './tables';

const SEALED_PREFIX = 'sealed1:';
const CLEAR_PREFIX = 'whsec_';

const aadOf = (endpointId: string) => ({ purpose: 'webhook_secret', id: endpointId }) as const;

/** The stored form of an endpoint's secret. */
export async function sealWebhookSecret(ring: TemplateKeyRing, endpointId: string, secret: string): Promise<string> {
  const plain = new TextEncoder().encode(secret);
  try {
    return SEALED_PREFIX + Buffer.from(await ring.encryptSecret(plain, aadOf(endpointId))).toString('base64url');
  } finally {
    plain.fill(0);
  }
}

/**
 * The secret (`whsec_…`) from its stored form. Throws TemplateDecryptError when no key of the
 * ring opens it (its key was removed from TEMPLATE_ENCRYPTION_KEYS) or it was tampered with.
 */
export async function openWebhookSecret(ring: TemplateKeyRing, endpointId: string, stored: string): Promise<string> {
  if (stored.startsWith(CLEAR_PREFIX)) return stored;
  const plain = await ring.decryptSecret(envelopeOf(stored), aadOf(endpointId));
  try {
    return new TextDecoder().decode(plain);
  } finally {
    plain.fill(0);
  }
}

function envelopeOf(stored: string): Uint8Array {
  // Anything else fails as a malformed envelope would (TemplateDecryptError, generic).
  return new Uint8Array(stored.startsWith(SEALED_PREFIX) ? Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url') : []);
}

/** Whether a stored secret must be sealed again under the ring's first key (clear, or an older key of the ring). */
function needsSealing(ring: TemplateKeyRing, stored: string): boolean {
  if (stored.startsWith(CLEAR_PREFIX)) return true;
  try {
    const keyId = ring.keyIdOf(envelopeOf(stored));
    // Under a key the ring no longer has, it cannot be opened to seal again: left for the dispatcher to report.
    return keyId !== ring.primaryKeyId && ring.hasKey(keyId);
  } catch {
    // Malformed: nothing to re-seal it from; the dispatcher reports it when it signs.
    return false;
  }
}

/**
 * Seals (again) the secrets `select` picks (the current ones, and the previous ones of a rotation
 * under way), under the first key, in one write. Each value is only rewritten from the value it
 * was read with, so a concurrent change wins and a second run finds nothing to do. SQLite's
 * secure delete is on for the rewrite: the clear value's bytes are overwritten in the page, not
 * left in its free space.
 */
async function reseal(ctx: WebhookRuntime, select: (stored: string) => boolean): Promise<{ sealed: number; clear: number }> {
  const rows = await ctx.db.orm
    .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret, previousSecret: webhookEndpoints.previousSecret })
    .from(webhookEndpoints);
  const due: { id: string; column: 'secret' | 'previousSecret'; stored: string }[] = [];
  for (const row of rows) {
    if (select(row.secret)) due.push({ id: row.id, column: 'secret', stored: row.secret });
    if (row.previousSecret !== null && select(row.previousSecret)) due.push({ id: row.id, column: 'previousSecret', stored: row.previousSecret });
  }
  if (due.length === 0) return { sealed: 0, clear: 0 };
  const updates: { id: string; column: 'secret' | 'previousSecret'; from: string; to: string }[] = [];
  for (const value of due) {
    const secret = await openWebhookSecret(ctx.keyRing, value.id, value.stored);
    updates.push({ id: value.id, column: value.column, from: value.stored, to: await sealWebhookSecret(ctx.keyRing, value.id, secret) });
  }
  // Every write zeroes what it frees (secure delete, platform/db/client.ts): the clear secret
  // does not stay in the file's free space.
  const sealed = await ctx.db.write(async ({ tx }) => {
    let count = 0;
    for (const update of updates) {
      const done = await tx
        .update(webhookEndpoints)
        .set({ [update.column]: update.to })
        .where(and(eq(webhookEndpoints.id, update.id), eq(webhookEndpoints[update.column], update.from)))
        .returning({ id: webhookEndpoints.id });
      count += done.length;
    }
    return count;
  });
  const clear = due.filter((value) => value.stored.startsWith(CLEAR_PREFIX)).length;
  if (clear > 0) await dropOldPages(ctx);
  return { sealed, clear };
}

/**
 * The overlap of a rotation is over: the previous secret goes (only the one that expired at
 * `until`: a rotation since then set its own). Secure delete, as for any secret rewritten.
 */
export async function dropPreviousSecret(ctx: WebhookRuntime, endpointId: string, until: number): Promise<boolean> {
  return ctx.db.write(async ({ tx }) => {
    const done = await tx
      .update(webhookEndpoints)
      .set({ previousSecret: null, previousSecretUntil: null })
      .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.previousSecretUntil, until)))
      .returning({ id: webhookEndpoints.id });
    return done.length > 0;
  });
}

/**
 * After clear secrets were sealed: the pages that held them are still in the WAL's older frames
 * until it is emptied (platform/db/erase.ts); when readers keep it from that, the later
 * checkpoints overwrite them, and this says so.
 */
async function dropOldPages(ctx: WebhookRuntime): Promise<void> {
  if (await emptyWal(ctx.db)) return;
  ctx.log.warn('webhook secrets sealed, but the WAL could not be emptied yet: older frames may hold them until the next checkpoints');
}

/** At start-up: seals the secrets an earlier release stored in clear. Idempotent. */
export async function sealClearWebhookSecrets(ctx: WebhookRuntime): Promise<number> {
  const { sealed } = await reseal(ctx, (stored) => stored.startsWith(CLEAR_PREFIX));
  if (sealed > 0) ctx.log.info('webhook signing secrets stored in clear by an earlier release were encrypted', { endpoints: sealed });
  return sealed;
}

/** `fpa:rotate-keys`' part: every secret sealed under the first TEMPLATE_ENCRYPTION_KEYS key. */
export async function rotateWebhookSecrets(ctx: WebhookRuntime): Promise<{ webhook_secrets: number }> {
  const { sealed } = await reseal(ctx, (stored) => needsSealing(ctx.keyRing, stored));
  return { webhook_secrets: sealed };
}

/** The newest `limit` sealed secrets, for the key ring check (platform/crypto/sealed-sample.ts); clear ones are not sealed. */
export async function sealedWebhookSecretSamples(db: Database, limit: number): Promise<SealedSample[]> {
  const rows = await db.orm
    .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret })
    .from(webhookEndpoints)
    .where(like(webhookEndpoints.secret, `${SEALED_PREFIX}%`))
    .orderBy(desc(webhookEndpoints.createdAt))
    .limit(limit);
  return rows.map((row) => sealedSample('webhook signing secret', envelopeOf(row.secret), (ring, envelope) => ring.decryptSecret(envelope, aadOf(row.id))));
}
