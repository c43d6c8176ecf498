/**
 * Secrets for keyed digests (HMAC) of what must be checked but never stored in clear: terminals'
 * communication keys, API keys. One secret per template encryption key, derived with HKDF-SHA256
 * under a purpose label, so each use has its own secrets and none of them is a template key. A
 * digest names the id of the key its secret came from, so it is still checked after the ring
 * rotates, as long as that key stays in the ring (as templates need too).
 *
 * The composition root derives them (`Digesting` in platform/runtime.ts): a module that keeps
 * digests gets these secrets, never the template keys themselves.
 */
import { hkdfSync } from 'node:crypto';
import { parseEncryptionKey } from './template-cipher';

const HKDF_INFO = 'hmac-sha256 v1';

export class DigestSecrets {
  /** Template key id → the secret derived from it, the first key's first. */
  private readonly secrets = new Map<string, Buffer>();
  /** The id of the key new digests are made under (the ring's first), or null without keys. */
  readonly currentId: string | null;

  constructor(templateKeys: readonly string[], purpose: string) {
    for (const text of templateKeys) {
      const { id, raw } = parseEncryptionKey(text);
      if (!this.secrets.has(id)) this.secrets.set(id, Buffer.from(hkdfSync('sha256', raw, purpose, HKDF_INFO, 32)));
      raw.fill(0);
    }
    this.currentId = this.secrets.keys().next().value ?? null;
  }

  /** The secret of one key id, if that key is still in the ring. */
  secret(keyId: string): Buffer | undefined {
    return this.secrets.get(keyId);
  }

  /** Every key id with a secret, the current one first. */
  keyIds(): string[] {
    return [...this.secrets.keys()];
  }
}
