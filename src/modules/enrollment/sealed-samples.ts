/** Samples of the templates at rest, stored and staged, for the key ring check (platform/crypto/sealed-sample.ts). */
import { desc } from 'drizzle-orm';
import { type SealedSample, sealedSample } from '../../platform/crypto/sealed-sample';
import type { Database } from '../../platform/db/client';
import { stagedAad, templateAad } from './aad';
import { stagedTemplates, templates } from './tables';

/** The newest `limit` stored templates and the newest `limit` staged ones. */
export async function sealedTemplateSamples(db: Database, limit: number): Promise<SealedSample[]> {
  const stored = await db.orm.select().from(templates).orderBy(desc(templates.updatedAt)).limit(limit);
  const staged = await db.orm.select().from(stagedTemplates).orderBy(desc(stagedTemplates.createdAt)).limit(limit);
  return [
    ...stored.map((row) =>
      sealedSample('template', new Uint8Array(row.ciphertext), (ring, envelope) =>
        ring.decrypt(envelope, templateAad(row.enrolleeId, row.fingerIndex, row.version, { type: row.type, slot: row.slot })),
      ),
    ),
    ...staged.map((row) =>
      sealedSample('staged template', new Uint8Array(row.ciphertext), (ring, envelope) =>
        ring.decrypt(envelope, stagedAad(row.sessionId, row.fingerIndex, row.revision)),
      ),
    ),
  ];
}
