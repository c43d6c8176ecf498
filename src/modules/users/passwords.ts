/**
 * Passwords: Argon2id (`Bun.password`, the PHC string with its own salt and parameters: 64 MiB,
 * two passes), never anything reversible. An unknown username is checked against a hash of a
 * random password all the same, so a wrong username takes as long as a wrong password and the
 * answer's timing does not tell which usernames exist.
 */
let decoy: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: 'argon2id' });
}

/** Whether `password` is the one behind `hash`; with no hash (no such user, no password yet) false, after the same work. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    decoy ??= hashPassword(crypto.randomUUID());
    await Bun.password.verify(password, await decoy);
    return false;
  }
  try {
    return await Bun.password.verify(password, hash);
  } catch {
    return false;
  }
}
