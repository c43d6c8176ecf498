/**
 * Where a person's delete must not go. A delete names a PIN, not a person: on a terminal whose
 * user with that PIN is someone else it deletes that someone (its own user, made at its menu or
 * by another server, with their fingers, card and password). So a person's `delete_user` and
 * `delete_template` go only where that PIN may be theirs: not to a terminal whose user with it is
 * its own (linked to nobody) or another enrollee's, and not to a terminal that has not said who
 * it holds yet (its inventory outstanding) when nothing of theirs ever went to it — every
 * command of theirs there still waits for that answer, so nothing of theirs is there. What the
 * walk-up refused as theirs on a user linked to nobody is deleted part by part all the same
 * (fan-out.ts `deleteRefused`).
 */
import type { Queryable } from '../../platform/db/client';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';

/** A person as far as a delete is concerned. */
interface Holder {
  id: string;
  devicePin: string;
}

/** The key of a (terminal, PIN) pair in notTheirs' answer. */
export function pairOf(deviceId: string, pin: string): string {
  return `${deviceId}\n${pin}`;
}

/** Of these people on these terminals, the pairs (`pairOf`) where their PIN is not theirs, or nothing of theirs went. */
export async function notTheirs(
  q: Queryable,
  deps: { devices: DeviceService; commands: CommandService },
  people: readonly Holder[],
  deviceIds: readonly string[],
): Promise<Set<string>> {
  const out = new Set<string>();
  if (people.length === 0 || deviceIds.length === 0) return out;
  const pins = people.map((p) => p.devicePin);
  const idOf = new Map(people.map((p) => [p.devicePin, p.id]));
  const linked = new Set<string>();
  for (const u of await deps.devices.users.holding(q, deviceIds, pins)) {
    (u.enrolleeId !== null && u.enrolleeId === idOf.get(u.pin) ? linked : out).add(pairOf(u.deviceId, u.pin));
  }
  for (const deviceId of await deps.commands.lookups.inventoryOutstanding(q, deviceIds)) {
    const sent = await deps.commands.lookups.pinsSentTo(q, deviceId, pins);
    for (const pin of pins) if (!sent.has(pin) && !linked.has(pairOf(deviceId, pin))) out.add(pairOf(deviceId, pin));
  }
  return out;
}
