/**
 * How communication keys are stored: HMAC-SHA256 under a server secret, salted with the
 * terminal's id. A key is 12 digits (what a terminal's "Comm Key" field takes), about 40 bits: an
 * unsalted hash of it is found by trying every key, so the digest must be worthless without a
 * secret kept outside the database. The secret is derived (HKDF-SHA256) from a template
 * encryption key: the key ring is already required, held outside the database (environment or
 * secret store) and shared by every instance. New digests are made under the first key of the
 * ring and name its id (`hmac1:<key id>:<hex>`), so they are still verified after the ring
 * rotates, as long as that key stays in the ring (as templates need too).
 *
 * Digests written before (plain hex SHA-256 of the key) cannot be converted without the key:
 * they are still verified, reported `legacy`, until the key is revoked and a new one issued.
 */
import { createHmac } from 'node:crypto';
import type { DigestSecrets } from '../../platform/crypto/digest-secrets';
import { constantTimeEqual } from '../../platform/crypto/secrets';

const SCHEME = 'hmac1';
/** The purpose the digest secrets are derived for (the HKDF salt: changing it orphans every digest). */
export const COMMUNICATION_KEY_PURPOSE = 'fpa-device-communication-keys';
const LEGACY_DIGEST = /^[0-9a-f]{64}$/;

export class KeyDigests {
  constructor(private readonly secrets: DigestSecrets) {}

  /** The digest to store for a new key of this terminal. */
  digest(deviceId: string, key: string): string {
    const current = this.secrets.currentId;
    if (current === null) throw new Error('no template encryption key to derive the key secret from');
    return `${SCHEME}:${current}:${this.mac(this.secrets.secret(current)!, deviceId, key)}`;
  }

  /** Whether `presented` is the key behind `stored` (an HMAC digest, or a legacy SHA-256 one). */
  verify(stored: string, deviceId: string, presented: string): boolean {
    if (isLegacy(stored)) return constantTimeEqual(sha256(presented), stored);
    const [scheme, keyId, mac] = stored.split(':');
    const secret = keyId === undefined ? undefined : this.secrets.secret(keyId);
    if (scheme !== SCHEME || !secret || mac === undefined) return false;
    return constantTimeEqual(this.mac(secret, deviceId, presented), mac);
  }

  /** Whether this digest can be checked at all: its template key is still in the ring. */
  verifiable(stored: string): boolean {
    if (isLegacy(stored)) return true;
    const keyId = stored.split(':')[1];
    return keyId !== undefined && this.secrets.secret(keyId) !== undefined;
  }

  private mac(secret: Buffer, deviceId: string, key: string): string {
    return createHmac('sha256', secret).update(`${deviceId}\n${key}`).digest('hex');
  }
}

/** A digest of the first releases: unsalted SHA-256, kept only until the key is re-issued. */
export function isLegacy(stored: string): boolean {
  return LEGACY_DIGEST.test(stored);
}

function sha256(text: string): string {
  return new Bun.CryptoHasher('sha256').update(text).digest('hex');
}
