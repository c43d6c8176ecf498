/**
 * What the bytes of an agent's fingerprint upload can tell, checked before they are staged: a
 * template too short to be one, one whose header shows another ZKFinger generation than the one
 * declared (ADMS.md §6.2: v9 starts `A1 CA`, v10 carries `SS21` at bytes 2–5; a terminal refuses
 * the other generation with -11/-12 long after the person left), and the same bytes already
 * staged for another finger of the session (one finger scanned twice under two numbers).
 */
import { and, eq, ne } from 'drizzle-orm';
import type { TemplateKeyRing } from '../../platform/crypto/template-cipher';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { guessFingerprintAlgorithm } from '../../protocol/adms';
import { stagedAad } from './aad';
import { stagedTemplates } from './tables';

/**
 * The shortest upload taken as a fingerprint template. Real ZKFinger templates are hundreds of
 * bytes (v10 usually over a kilobyte); below this it is a truncated buffer, an empty capture or
 * junk, never a finger a terminal could match.
 */
export const MIN_TEMPLATE_BYTES = 64;

/** The generations whose bytes say which they are (§6.2); a template of another one is not judged by its bytes. */
const TOLD_BY_BYTES: Readonly<Record<'v9' | 'v10', string>> = { v9: '9', v10: '10' };

/** Refuses a template too short to be one, or one whose bytes show another algorithm than `declared`. */
export function checkTemplateBytes(declared: string, text: string, data: Uint8Array): void {
  if (data.byteLength < MIN_TEMPLATE_BYTES) {
    throw new FpaError(
      'invalid_template',
      `the template is ${data.byteLength} bytes: too short to be a fingerprint template (at least ${MIN_TEMPLATE_BYTES})`,
      {
        field: 'template',
        size: data.byteLength,
        min: MIN_TEMPLATE_BYTES,
      },
    );
  }
  const guessed = guessFingerprintAlgorithm(text);
  const declaredMajor = declared.trim().split('.')[0] ?? '';
  // Only where both sides are generations the bytes tell apart: a v11+ template's header is not known.
  if (guessed === null || !Object.values(TOLD_BY_BYTES).includes(declaredMajor)) return;
  const found = TOLD_BY_BYTES[guessed];
  if (found !== declaredMajor) {
    throw new FpaError('template_algorithm_mismatch', `the template is declared as algorithm ${declared}, but its bytes are a ZKFinger v${found} template`, {
      declared,
      found,
    });
  }
}

/**
 * Refuses bytes already staged for another finger of the session. Staged templates are sealed,
 * so each is decrypted for the comparison only and wiped after; a session holds a few at most.
 */
export async function checkNotStagedElsewhere(q: Queryable, keyRing: TemplateKeyRing, session: string, finger: number, data: Uint8Array): Promise<void> {
  const others = await q
    .select()
    .from(stagedTemplates)
    .where(and(eq(stagedTemplates.sessionId, session), ne(stagedTemplates.fingerIndex, finger), eq(stagedTemplates.sizeBytes, data.byteLength)));
  for (const other of others) {
    const plain = await keyRing.decrypt(other.ciphertext, stagedAad(session, other.fingerIndex, other.revision));
    const same = Buffer.from(plain).equals(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    plain.fill(0);
    if (same) {
      throw new FpaError('template_duplicate', `the same template was already uploaded for finger ${other.fingerIndex} of this session`, {
        finger_index: finger,
        same_as: other.fingerIndex,
      });
    }
  }
}
