import type { TemplateAad } from '../../platform/crypto/template-cipher';

/** Associated data of a stored template: the ciphertext only opens for this enrollee, finger and version. */
export function templateAad(enrolleeId: string, fingerIndex: number, version: number): TemplateAad {
  return { enrolleeId, fingerIndex, version, purpose: 'template' };
}

/** Associated data of a template staged on an agent session (keyed by session and revision). */
export function stagedAad(sessionId: string, fingerIndex: number, revision: number): TemplateAad {
  return { enrolleeId: sessionId, fingerIndex, version: revision, purpose: 'staged' };
}
