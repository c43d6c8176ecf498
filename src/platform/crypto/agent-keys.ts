/**
 * API keys for enrollment agents.
 *
 * Format: `fpa_<prefix>_<secret>`
 *   - prefix: 8 chars of lowercase RFC 4648 base32 (5 random bytes = 40 bits).
 *     Public; stored in clear so a presented key can be looked up by prefix.
 *     Not guaranteed unique: look-ups must tolerate several rows per prefix.
 *   - secret: 32 random bytes, unpadded base64url (43 chars).
 * Only the digest (hex SHA-256 of the whole key string) is stored.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { toBase64Url } from './secrets';

const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const AGENT_KEY_RE = /^fpa_([a-z2-7]{8})_([A-Za-z0-9_-]{43})$/;
const DIGEST_RE = /^[0-9a-fA-F]{64}$/;

export interface GeneratedAgentKey {
  /** The full key; show it to the operator once and never store it. */
  key: string;
  /** Public lookup prefix. */
  prefix: string;
  /** Lowercase hex SHA-256 of `key`; store this. */
  digest: string;
}

/** Encodes exactly 5 bytes as 8 base32 characters. */
function base32Of5(bytes: Uint8Array): string {
  let bits = 0n;
  for (let i = 0; i < 5; i++) bits = (bits << 8n) | BigInt(bytes[i] ?? 0);
  let out = '';
  for (let i = 7; i >= 0; i--) out += BASE32_ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)];
  return out;
}

export function generateAgentKey(): GeneratedAgentKey {
  const prefix = base32Of5(crypto.getRandomValues(new Uint8Array(5)));
  const secret = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const key = `fpa_${prefix}_${secret}`;
  return { key, prefix, digest: digestAgentKey(key) };
}

/** Returns the public prefix of a well-formed key, or null. Never throws. */
export function parseAgentKey(key: string): { prefix: string } | null {
  if (typeof key !== 'string') return null;
  const m = AGENT_KEY_RE.exec(key);
  if (!m || m[1] === undefined) return null;
  // 43 base64url chars encode 32 bytes + 2 spare bits; require them to be zero
  // so that each secret has exactly one textual form.
  const secret = m[2] ?? '';
  if (Buffer.from(secret, 'base64url').toString('base64url') !== secret) return null;
  return { prefix: m[1] };
}

/** Lowercase hex SHA-256 of the whole key string. */
export function digestAgentKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Checks a presented key against a stored digest in constant time (with
 * respect to the digest contents). Malformed keys or digests yield false.
 */
export function verifyAgentKey(key: string, storedDigestHex: string): boolean {
  if (typeof storedDigestHex !== 'string' || !DIGEST_RE.test(storedDigestHex)) return false;
  if (parseAgentKey(key) === null) return false;
  const presented = createHash('sha256').update(key, 'utf8').digest();
  const stored = Buffer.from(storedDigestHex, 'hex');
  if (presented.length !== stored.length) return false;
  return timingSafeEqual(presented, stored);
}
