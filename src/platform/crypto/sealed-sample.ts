/**
 * Sealed data sampled from the database, to tell whether a key ring is the one it was sealed
 * with (start-up and `fpa:check`, code fpa.E024) and whether a database holds any at all
 * (`fpa:init` writes no new key for one that does). Each module that seals something under the
 * ring hands a few of its newest ciphertexts out as samples; nothing is decrypted for good, the
 * plaintext of a trial is wiped at once.
 */
import { envelopeKeyId, TemplateDecryptError, type TemplateKeyRing } from './template-cipher';

export interface SealedSample {
  /** What it is, for the operator: `template`, `webhook signing secret`… */
  what: string;
  /** The id of the key it names (stored in clear in the envelope); null when malformed. */
  keyId: string | null;
  /** Whether a key of `ring` opens it (authenticated decryption with its row's associated data). */
  opens(ring: TemplateKeyRing): Promise<boolean>;
}

/** How many of each kind of sealed data are tried: a few, so a start stays cheap. */
export const SAMPLES_PER_KIND = 3;

/** A sample of `envelope`, tried with `open` (the ring's decrypt or decryptSecret with its row's AAD). */
export function sealedSample(what: string, envelope: Uint8Array, open: (ring: TemplateKeyRing, envelope: Uint8Array) => Promise<Uint8Array>): SealedSample {
  return {
    what,
    keyId: envelopeKeyId(envelope),
    async opens(ring) {
      try {
        (await open(ring, envelope)).fill(0);
        return true;
      } catch (error) {
        if (error instanceof TemplateDecryptError) return false;
        throw error;
      }
    },
  };
}
