/**
 * The rules of an enrollee's card (its form is cards.ts): one card, one person, and a terminal
 * fills only a card an administrator has neither set nor removed.
 */

import { and, eq, ne } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { Clock } from '../../platform/runtime';
import { audit } from '../audit';
import type { DeviceRef } from '../devices';
import type { EventChannel } from '../events';
import { CARD_MAX, type CardCheck, normaliseCard } from './cards';
import type { EnrolleeEvents } from './events';
import { enrollees } from './tables';

/**
 * The card an administrator typed, as terminals hold it, or a 422 naming why it cannot be one.
 * Digits only: a space, a sign or an empty string is `not_digits` (a terminal's own report is
 * trimmed by normaliseCard; a value given to the API is taken as it is).
 */
export function cardOrRefusal(raw: string): string {
  const checked: CardCheck = /^\d+$/.test(raw) ? normaliseCard(raw) : { ok: false, reason: 'not_digits' };
  if (checked.ok) return checked.card;
  throw new FpaError('invalid_card', `card must be a number from 1 to ${CARD_MAX} (a terminal keeps cards as unsigned 32-bit numbers)`, {
    field: 'card',
    reason: checked.reason,
    max: CARD_MAX,
  });
}

/**
 * A card (normalised) another enrollee holds is refused (`conflict`): one card, one person. Which
 * enrollee only when `named` says the caller may see them (outside a caller's areas a person
 * does not exist: their id would say they do); by default, nobody is named.
 */
export async function checkCardFree(
  q: Queryable,
  card: string,
  self: string | null,
  named: (id: string) => Promise<boolean> = async () => false,
): Promise<void> {
  const [holder] = await q
    .select({ id: enrollees.id })
    .from(enrollees)
    .where(and(eq(enrollees.card, card), ne(enrollees.status, 'deleted')));
  if (!holder || holder.id === self) return;
  throw new FpaError('conflict', 'another enrollee holds this card', (await named(holder.id)) ? { card, enrollee: holder.id } : { card });
}

/** What became of a card a terminal reported for an enrollee (cardFromTerminal). */
export type CardOutcome = 'filled' | 'same' | 'kept' | 'removed' | 'taken' | 'gone';

/**
 * A terminal reports a card (normalised, cards.ts) for its user who is this enrollee (badged at
 * its menu). An administrator's card wins: the terminal fills the card only of an enrollee who
 * has none (`filled`, announced as `enrollee_card_changed`, and sent to their other terminals),
 * never replaces one (`kept`: the caller puts the enrollee's own card back on that terminal),
 * nor takes one another enrollee holds (`taken`: the caller sends that terminal the enrollee
 * without it, one person per card). No card because an administrator removed it is
 * their decision too, not a missing card (`removed`: the caller sends that terminal the enrollee
 * without a card), until an administrator sets one: a terminal still holding a revoked badge
 * (its update expired while it was away) must not bring it back to the person and the fleet.
 */
export async function cardFromTerminal(
  w: WriteContext,
  deps: { clock: Clock; events: EventChannel<EnrolleeEvents> },
  enrolleeId: string,
  card: string,
  device: DeviceRef,
): Promise<CardOutcome> {
  const [row] = await w.tx
    .select({ card: enrollees.card, cardRemoved: enrollees.cardRemoved, status: enrollees.status })
    .from(enrollees)
    .where(eq(enrollees.id, enrolleeId))
    .limit(1);
  if (!row || row.status === 'deleted') return 'gone';
  if (row.card === card) return 'same';
  if (row.card !== null) return 'kept';
  if (row.cardRemoved) return 'removed';
  const [holder] = await w.tx
    .select({ id: enrollees.id })
    .from(enrollees)
    .where(and(eq(enrollees.card, card), ne(enrollees.status, 'deleted')));
  if (holder) return 'taken';
  const now = deps.clock.now();
  const by = `device:${device.serial_number}`;
  await w.tx.update(enrollees).set({ card, updatedAt: now }).where(eq(enrollees.id, enrolleeId));
  await audit(w.tx, now, {
    actor: by,
    action: 'enrollee.card_filled',
    targetType: 'enrollee',
    targetId: enrolleeId,
    details: { device: device.serial_number },
  });
  await deps.events.record(w, 'enrollee_card_changed', { enrollee: enrolleeId, device, by });
  return 'filled';
}
