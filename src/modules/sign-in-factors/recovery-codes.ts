/**
 * Recovery codes: ten single-use codes shown once, for when the phone or the passkey is lost.
 * Each is 16 characters of Crockford's base32 (80 random bits), shown in groups of four
 * (`7KQ2-M9XD-…`). Only the SHA-256 of the normalised code is stored: 80 bits need no slow
 * hash (nobody can try 2^80 hashes), and the online guesses count toward the sign-in limit.
 */
import { createHash } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LENGTH = 16;

/** A fresh code, grouped for reading. */
function newRecoveryCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(LENGTH));
  // 256 is a multiple of 32: every character is equally likely.
  const chars = Array.from(bytes, (b) => ALPHABET[b % 32]).join('');
  return chars.match(/.{4}/g)?.join('-') ?? chars;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
}

/**
 * What a typed code means: upper case, no spaces or dashes, and the letters people confuse with
 * digits read as Crockford reads them (O→0, I and L→1). Null when it cannot be a code.
 */
export function normalizeRecoveryCode(typed: string): string | null {
  const plain = typed
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  return plain.length === LENGTH && [...plain].every((c) => ALPHABET.includes(c)) ? plain : null;
}

/** The stored form of a code (typed or as generated). */
export function recoveryCodeHash(code: string): string | null {
  const plain = normalizeRecoveryCode(code);
  return plain === null ? null : createHash('sha256').update(`fpa-recovery:${plain}`, 'utf8').digest('hex');
}
