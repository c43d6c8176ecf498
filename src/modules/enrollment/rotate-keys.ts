/**
 * `fpa:rotate-keys` (stored templates; staged agent uploads are rotate-staged.ts):
 * re-encrypts every stored template under the first key of TEMPLATE_ENCRYPTION_KEYS. It works in small batches, each its own transaction, so it can
 * be stopped and run again at any time (resumable) and never holds the writer for long.
 */
import { and, eq, ne } from 'drizzle-orm';
import { audit } from '../audit';
import { templateAad } from './aad';
import type { EnrollmentRuntime } from './runtime';
import { templates } from './tables';

const BATCH = 200;

export async function rotateTemplateKeys(ctx: EnrollmentRuntime, by = 'operator'): Promise<{ templates: number; key_id: string }> {
  const primary = ctx.keyRing.primaryKeyId;
  let rotated = 0;
  for (;;) {
    const batch = await ctx.db.orm.select().from(templates).where(ne(templates.keyId, primary)).limit(BATCH);
    if (batch.length === 0) break;
    await ctx.db.write(async ({ tx }) => {
      for (const row of batch) {
        const aad = templateAad(row.enrolleeId, row.fingerIndex, row.version, { type: row.type, slot: row.slot });
        const plain = await ctx.keyRing.decrypt(new Uint8Array(row.ciphertext), aad);
        const sealed = await ctx.keyRing.encrypt(plain, aad);
        plain.fill(0);
        // Compare-and-set on the old key id: a template replaced meanwhile is left alone.
        await tx
          .update(templates)
          .set({ ciphertext: Buffer.from(sealed), keyId: primary })
          .where(and(eq(templates.id, row.id), eq(templates.version, row.version), eq(templates.keyId, row.keyId)));
        rotated++;
      }
    });
  }
  await ctx.db.write(({ tx }) =>
    audit(tx, ctx.clock.now(), {
      actor: by,
      action: 'templates.keys_rotated',
      targetType: 'template_keys',
      targetId: primary,
      details: { templates: rotated },
    }),
  );
  return { templates: rotated, key_id: primary };
}
