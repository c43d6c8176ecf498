/**
 * Handing out device PINs. A PIN is numeric, sequential, at most 9 digits (the oldest terminals'
 * limit) and never reused: it comes from a counter row in the database, so several instances
 * never hand out the same one.
 */

import { eq, sql } from 'drizzle-orm';
import { MAX_DEVICE_PIN } from '../../platform/config/settings';
import type { Queryable, Tx } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { counters, enrollees } from './tables';

/** The last PIN handed out; ENROLLEE_PIN_START may not be above it (fpa.E013). */
const MAX_PIN = MAX_DEVICE_PIN;

/** A PIN every terminal of the fleet holds: 1 to 9 digits (the oldest terminals' limit), as the service hands them out. */
export const DEVICE_PIN_PATTERN = '^\\d{1,9}$';
const DEVICE_PIN = new RegExp(DEVICE_PIN_PATTERN);

/**
 * A PIN the caller chose (a terminal's own user, adopted with theirs) must be one the whole fleet
 * can carry, since the enrollee is sent to every terminal of their areas: a terminal's menu takes
 * letters, or a 15-digit PIN the oldest terminals cannot hold and no PIN filter of the API finds.
 * 422 `invalid_pin`, saying what to do instead.
 */
export function checkPinCarried(pin: string): void {
  if (DEVICE_PIN.test(pin)) return;
  const reason = /^\d+$/.test(pin) ? 'too_long' : 'not_digits';
  throw new FpaError(
    'invalid_pin',
    `PIN ${pin} cannot be carried to every terminal (PINs are 1 to 9 digits): enroll the person under a new PIN (remove this user from the terminal, then create them as an enrollee), or change their PIN at the terminal's menu and adopt them under that one`,
    { pin, reason, max_digits: 9 },
  );
}

/**
 * The next device PIN: from the database counter (several instances never hand out the same
 * one), at least `start` (ENROLLEE_PIN_START), skipping every PIN a terminal is known to hold
 * (`pinTaken`) and every PIN an enrollee holds (an adopted terminal user keeps theirs).
 */
export async function nextPin(tx: Tx, startSetting: number, pinTaken: (q: Queryable, pin: string) => Promise<boolean>): Promise<string> {
  const start = Math.max(1, startSetting);
  await tx
    .insert(counters)
    .values({ name: 'device_pin', value: start - 1 })
    .onConflictDoNothing();
  for (let tries = 0; tries < 100_000; tries++) {
    const [row] = await tx
      .update(counters)
      .set({ value: sql`max(${counters.value}, ${start - 1}) + 1` })
      .where(eq(counters.name, 'device_pin'))
      .returning({ value: counters.value });
    const value = row!.value;
    if (value > MAX_PIN) throw new FpaError('conflict', 'device PINs are exhausted (9 digits)', {});
    const pin = String(value);
    const [enrollee] = await tx.select({ id: enrollees.id }).from(enrollees).where(eq(enrollees.devicePin, pin)).limit(1);
    if (!enrollee && !(await pinTaken(tx, pin))) return pin;
  }
  throw new FpaError('conflict', 'no free device PIN was found', {});
}

/**
 * A PIN chosen by the caller (an adopted terminal user keeps theirs): `conflict` if an enrollee
 * holds, or once held, it; which one only when `named` says the caller may see them. A deleted
 * person's PIN is theirs for good (a punch they made before the deletion may still arrive): the
 * message says what to do instead.
 */
export async function checkPinFree(tx: Tx, pin: string, named: (id: string) => Promise<boolean>): Promise<void> {
  const [holder] = await tx.select({ id: enrollees.id, status: enrollees.status }).from(enrollees).where(eq(enrollees.devicePin, pin)).limit(1);
  if (!holder) return;
  const details = (await named(holder.id)) ? { device_pin: pin, enrollee: holder.id } : { device_pin: pin };
  if (holder.status === 'deleted') {
    throw new FpaError(
      'conflict',
      'a deleted person held this PIN, and it is never given to anyone else: give this user another PIN at the terminal, then adopt them under it',
      details,
    );
  }
  throw new FpaError('conflict', 'another enrollee holds this PIN', details);
}
