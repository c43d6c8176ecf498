/**
 * TOTP as authenticator apps compute it (RFC 6238's SHA-1 test vector), the ±1 step window, and
 * replay: a code accepted once is never accepted again, nor is any code of an earlier step.
 * Recovery codes: ten, distinct, 80 bits each, typed loosely (case, dashes, O for 0), hashed.
 */
import { describe, expect, test } from 'bun:test';
import { Secret, URI } from 'otpauth';
import { newRecoveryCodes, normalizeRecoveryCode, RECOVERY_CODE_COUNT, recoveryCodeHash } from '../../../src/modules/sign-in-factors/recovery-codes';
import { acceptTotp, newTotpSecret, stepAt, totpCodeAt, totpUri } from '../../../src/modules/sign-in-factors/totp';

// RFC 6238 appendix B: the SHA-1 seed "12345678901234567890", 8 digits; our 6 digits are its last 6.
const RFC_SECRET = Secret.fromLatin1('12345678901234567890').base32;

describe('TOTP', () => {
  test('matches RFC 6238’s SHA-1 vectors (last six digits)', () => {
    expect(totpCodeAt(RFC_SECRET, 59_000)).toBe('287082');
    expect(totpCodeAt(RFC_SECRET, 1111111109_000)).toBe('081804');
    expect(totpCodeAt(RFC_SECRET, 2000000000_000)).toBe('279037');
  });

  test('the URI is what an authenticator app reads: SHA1, 6 digits, 30 s, issuer and label', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = totpUri(secret, 'ada', 'attendance.example.com');
    const parsed = new URL(uri);
    expect(URI.parse(uri).secret.base32).toBe(secret);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.searchParams.get('secret')).toBe(secret);
    expect(parsed.searchParams.get('algorithm')).toBe('SHA1');
    expect(parsed.searchParams.get('digits')).toBe('6');
    expect(parsed.searchParams.get('period')).toBe('30');
    expect(parsed.searchParams.get('issuer')).toBe('attendance.example.com');
    expect(decodeURIComponent(parsed.pathname)).toContain('ada');
  });

  test('accepts the code of this step and of one step either side, not two', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_015_000;
    const step = stepAt(now);
    for (const delta of [-1, 0, 1]) {
      expect(acceptTotp(secret, totpCodeAt(secret, now + delta * 30_000), now, null)).toBe(step + delta);
    }
    expect(acceptTotp(secret, totpCodeAt(secret, now - 60_000), now, null)).toBeNull();
    expect(acceptTotp(secret, totpCodeAt(secret, now + 60_000), now, null)).toBeNull();
  });

  test('a code is not accepted twice, nor a code older than the last one accepted', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_015_000;
    const code = totpCodeAt(secret, now);
    const used = acceptTotp(secret, code, now, null);
    expect(used).toBe(stepAt(now));
    // The same code again within its window (now, and 29 s later): refused.
    expect(acceptTotp(secret, code, now, used)).toBeNull();
    expect(acceptTotp(secret, code, now + 29_000, used)).toBeNull();
    // The previous step's code, still inside the window: refused too (older than the last accepted).
    expect(acceptTotp(secret, totpCodeAt(secret, now - 30_000), now, used)).toBeNull();
    // The next step's code: accepted.
    expect(acceptTotp(secret, totpCodeAt(secret, now + 30_000), now + 30_000, used)).toBe(stepAt(now) + 1);
  });

  test('spaces are ignored; anything but six digits is refused', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_015_000;
    const code = totpCodeAt(secret, now);
    expect(acceptTotp(secret, `${code.slice(0, 3)} ${code.slice(3)}`, now, null)).toBe(stepAt(now));
    for (const bad of ['', '12345', '1234567', 'abcdef', `${code}0`]) expect(acceptTotp(secret, bad, now, null)).toBeNull();
  });
});

describe('recovery codes', () => {
  test('ten distinct codes of 16 Crockford base32 characters in groups of four', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
  });

  test('typed loosely, a code is still itself; its hash never shows the code', () => {
    const [code] = newRecoveryCodes() as [string];
    const loose = code.toLowerCase().replace(/-/g, ' ').replace(/0/g, 'o').replace(/1/g, 'l');
    expect(normalizeRecoveryCode(loose)).toBe(code.replace(/-/g, ''));
    const hash = recoveryCodeHash(loose);
    expect(hash).toBe(recoveryCodeHash(code));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(code.replace(/-/g, '').toLowerCase());
    expect(recoveryCodeHash('too-short')).toBeNull();
    expect(recoveryCodeHash(`${code}X`)).toBeNull();
  });
});
