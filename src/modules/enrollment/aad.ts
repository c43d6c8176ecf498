import type { TemplateAad } from '../../platform/crypto/template-cipher';

/**
 * Associated data of a stored template: the ciphertext only opens for this enrollee, biometric
 * (kind, body part, slot) and version. Fingerprints keep the first release's AAD.
 */
export function templateAad(enrolleeId: string, fingerIndex: number, version: number, kind: { type: string; slot: number } = FINGERPRINT): TemplateAad {
  return { enrolleeId, fingerIndex, version, purpose: 'template', ...(kind.type === 'fingerprint' ? {} : { kind }) };
}

const FINGERPRINT = { type: 'fingerprint', slot: 0 };

/** Associated data of a template staged on an agent session (keyed by session and revision). */
export function stagedAad(sessionId: string, fingerIndex: number, revision: number): TemplateAad {
  return { enrolleeId: sessionId, fingerIndex, version: revision, purpose: 'staged' };
}
