/**
 * `fpa:rotate-keys` (staged agent uploads' part): re-encrypts every staged template under the
 * first key of TEMPLATE_ENCRYPTION_KEYS, in small compare-and-set batches (resumable).
 */
import { and, eq, ne } from 'drizzle-orm';
import { audit } from '../audit';
import { stagedAad } from './aad';
import type { EnrollmentRuntime } from './runtime';
import { stagedTemplates } from './tables';

const BATCH = 200;

export async function rotateStagedKeys(ctx: EnrollmentRuntime, by = 'operator'): Promise<{ staged: number }> {
  const primary = ctx.keyRing.primaryKeyId;
  let staged = 0;
  for (;;) {
    const batch = await ctx.db.orm.select().from(stagedTemplates).where(ne(stagedTemplates.keyId, primary)).limit(BATCH);
    if (batch.length === 0) break;
    await ctx.db.write(async ({ tx }) => {
      for (const row of batch) {
        const aad = stagedAad(row.sessionId, row.fingerIndex, row.revision);
        const plain = await ctx.keyRing.decrypt(new Uint8Array(row.ciphertext), aad);
        const sealed = await ctx.keyRing.encrypt(plain, aad);
        plain.fill(0);
        await tx
          .update(stagedTemplates)
          .set({ ciphertext: Buffer.from(sealed), keyId: primary })
          .where(
            and(eq(stagedTemplates.sessionId, row.sessionId), eq(stagedTemplates.fingerIndex, row.fingerIndex), eq(stagedTemplates.revision, row.revision)),
          );
        staged++;
      }
    });
  }
  if (staged > 0) {
    await ctx.db.write(({ tx }) =>
      audit(tx, ctx.clock.now(), { actor: by, action: 'staged_templates.keys_rotated', targetType: 'template_keys', targetId: primary, details: { staged } }),
    );
  }
  return { staged };
}
