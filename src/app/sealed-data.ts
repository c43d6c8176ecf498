/**
 * The sealed data of every module, sampled (platform/crypto/sealed-sample.ts): whether a key ring
 * opens any of it (start-up and `fpa:check`, fpa.E024), and whether a database holds any at all
 * (`fpa:init`). A few of the newest values of each kind are tried: cheap at every start.
 */
import { sealedTerminalPasswordSamples } from '../modules/devices';
import { sealedTemplateSamples } from '../modules/enrollment';
import { sealedProofKeySamples } from '../modules/proofs';
import { sealedTotpSamples } from '../modules/sign-in-factors';
import { sealedWebhookSecretSamples } from '../modules/webhooks';
import type { SealedDataCheck } from '../platform/config/check';
import { SAMPLES_PER_KIND, type SealedSample } from '../platform/crypto/sealed-sample';
import type { TemplateKeyRing } from '../platform/crypto/template-cipher';
import type { Database } from '../platform/db/client';

const SAMPLERS = [sealedTemplateSamples, sealedWebhookSecretSamples, sealedProofKeySamples, sealedTotpSamples, sealedTerminalPasswordSamples];

/** A few sealed values of each kind the database holds; none from a table or column not made yet (a database before its migrations). */
export async function sampleSealedData(db: Database): Promise<SealedSample[]> {
  const samples: SealedSample[] = [];
  for (const sample of SAMPLERS) {
    try {
      samples.push(...(await sample(db, SAMPLES_PER_KIND)));
    } catch (error) {
      if (!isNotMadeYet(error)) throw error;
    }
  }
  return samples;
}

/** The ring tried on the samples. */
export async function checkKeyRing(db: Database, ring: TemplateKeyRing): Promise<SealedDataCheck> {
  const samples = await sampleSealedData(db);
  let opened = 0;
  for (const sample of samples) if (await sample.opens(ring)) opened++;
  return { sampled: samples.length, opened, ...describeSamples(samples), ringKeyIds: ring.keyIds };
}

/** What the samples are and the key ids they name, each once. */
export function describeSamples(samples: readonly SealedSample[]): { kinds: string[]; keyIds: string[] } {
  return {
    kinds: [...new Set(samples.map((s) => s.what))],
    keyIds: [...new Set(samples.flatMap((s) => (s.keyId === null ? [] : [s.keyId])))],
  };
}

/** A table, or a column of an older table (terminal users' passwords, 0029), that a migration not applied yet makes. */
function isNotMadeYet(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) if (/no such (table|column)/i.test(e.message)) return true;
  return false;
}
