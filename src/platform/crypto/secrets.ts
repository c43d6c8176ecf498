/**
 * Small secret-handling helpers: random tokens and constant-time comparison.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Upper bound on random token size, to catch accidental huge requests. */
const MAX_TOKEN_BYTES = 1024;

/** Encodes bytes as unpadded base64url. */
export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** Returns `bytes` cryptographically random bytes encoded as unpadded base64url. */
export function randomToken(bytes = 32): string {
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > MAX_TOKEN_BYTES) {
    throw new RangeError(`randomToken: byte count must be an integer between 1 and ${MAX_TOKEN_BYTES}`);
  }
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * Compares two strings without leaking, through timing, where they differ or
 * how long the expected value is: both sides are hashed with SHA-256 to
 * fixed-length digests, which are compared with `timingSafeEqual`.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}
