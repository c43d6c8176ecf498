/**
 * TOTP (RFC 6238) as every authenticator app reads it: HMAC-SHA-1, 6 digits, 30-second steps,
 * a 160-bit secret (RFC 4226's recommended length). A code is accepted in its own step and the
 * steps either side (a phone's clock a little off, a code typed as it changes), and never twice:
 * the step of the last accepted code is kept, and only a later step is accepted after it.
 */
import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the server's: ±30 s. */
export const TOTP_WINDOW = 1;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, label = 'user', issuer = 'Attendance'): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** The `otpauth://totp/…` URI an authenticator app scans (or takes pasted). */
export function totpUri(secret: string, label: string, issuer: string): string {
  return totpOf(secret, label, issuer).toString();
}

/** The step (30-second counter since the epoch) an instant falls in. */
export const stepAt = (at: number): number => Math.floor(at / 1000 / TOTP_PERIOD_SECONDS);

/**
 * The step of `code` if it is the secret's code of a step within TOTP_WINDOW of `at` and later
 * than `lastStep` (the step of the code accepted before: a code, even one of a later step
 * within the window, is never accepted twice); null otherwise.
 */
export function acceptTotp(secret: string, code: string, at: number, lastStep: number | null): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const totp = totpOf(secret);
  const now = stepAt(at);
  // Checked one step at a time, newest last, so the step of the match is known exactly.
  for (let delta = -TOTP_WINDOW; delta <= TOTP_WINDOW; delta++) {
    const step = now + delta;
    if (lastStep !== null && step <= lastStep) continue;
    if (totp.validate({ token, timestamp: step * TOTP_PERIOD_SECONDS * 1000, window: 0 }) === 0) return step;
  }
  return null;
}

/** The code of the step `at` falls in (for tests and the simulator). */
export function totpCodeAt(secret: string, at: number): string {
  return totpOf(secret).generate({ timestamp: at });
}
