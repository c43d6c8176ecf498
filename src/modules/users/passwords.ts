/**
 * Passwords: Argon2id (`Bun.password`, the PHC string with its own salt and parameters: 64 MiB,
 * two passes), never anything reversible. An unknown username is checked against a hash of a
 * random password all the same, so a wrong username takes as long as a wrong password and the
 * answer's timing does not tell which usernames exist.
 *
 * Each hash takes 64 MiB for a moment: at most HASHING_AT_ONCE run together in a process and at
 * most HASHING_QUEUE wait, so a burst of sign-in attempts (counted only once they fail) cannot
 * exhaust the server's memory; beyond that the answer is 429 for a second.
 */
import { FpaError } from '../../platform/errors';
import { PASSWORD_MIN } from './model';

const HASHING_AT_ONCE = 4;
const HASHING_QUEUE = 64;

let running = 0;
const waiting: (() => void)[] = [];
let decoy: Promise<string> | undefined;

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASHING_AT_ONCE) {
    if (waiting.length >= HASHING_QUEUE) throw new FpaError('rate_limited', 'too many sign-ins at once: try again in a moment', { retry_after: 1 });
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    // The slot passes to the next in line, or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/**
 * Refuses a password with fewer than PASSWORD_MIN characters other than white space (twelve
 * spaces, or a short word padded with them, pass a length check and guard nothing). The
 * password is kept as typed: spaces inside one count for nothing here, and are not taken out.
 * `field`: the body's field, as the error names it.
 */
export function requireStrongPassword(password: string, field: string): void {
  const counted = password.replace(/\s/gu, '').length;
  if (counted < PASSWORD_MIN) {
    throw new FpaError('weak_password', `a password needs at least ${PASSWORD_MIN} characters other than spaces`, {
      field,
      reason: counted === 0 ? 'blank' : 'too_few_characters',
      min: PASSWORD_MIN,
    });
  }
}

export function hashPassword(password: string): Promise<string> {
  return limited(() => Bun.password.hash(password, { algorithm: 'argon2id' }));
}

/** Whether `password` is the one behind `hash`; with no hash (no such user, no password yet) false, after the same work. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    decoy ??= Bun.password.hash(crypto.randomUUID(), { algorithm: 'argon2id' });
    const stand = await decoy;
    await limited(() => Bun.password.verify(password, stand));
    return false;
  }
  try {
    return await limited(() => Bun.password.verify(password, hash));
  } catch {
    return false;
  }
}
