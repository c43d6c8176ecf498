/**
 * Where a person's delete must not go. A delete names a PIN, not a person: on a terminal whose
 * user with that PIN is someone else it deletes that someone (its own user, made at its menu or
 * by another server, with their fingers, card and password). So a person's `delete_user` and
 * `delete_template` go only where that PIN may be theirs: not to a terminal whose user with it is
 * its own (linked to nobody) or another enrollee's, and not to a terminal that has not said who
 * it holds yet (its inventory outstanding) when nothing of theirs ever went to it — every
 * command of theirs there still waits for that answer, so nothing of theirs is there. What the
 * walk-up refused as theirs on a user linked to nobody is deleted part by part all the same
 * (fan-out.ts `deleteRefused`). And a template the service's own record says a terminal holds (it
 * confirmed a version) or was sent (the write went out) is deleted there whatever its users say
 * (`templateHolders`): what the service put there is the person's; a user there linked to nobody
 * (the answer to their user record late or lost, or noted so by an earlier release) is no stranger
 * holding that finger.
 */
import { and, inArray } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { type CommandService, templateWritesSent } from '../commands';
import type { DeviceService } from '../devices';
import { templateSync } from './tables';
import { mayHold } from './template-sync';

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

/** A terminal that holds (or may hold) one of a person's templates. */
export interface TemplateHolder {
  deviceId: string;
  templateId: string;
}

/**
 * The terminals a withdrawal or a deletion deletes these templates of the person on: every one
 * the service's own sync record says holds a version (confirmed) or was sent one (the write went
 * out), whatever its users say; and of the other holders (template-sync.ts `mayHold`: a write
 * still queued, or failed before it went out, as one refused over a terminal's own user with the
 * PIN), those where the PIN may be theirs (notTheirs).
 */
export async function templateHolders(
  q: Queryable,
  deps: { devices: DeviceService; commands: CommandService },
  enrollee: Holder,
  templateIds: readonly string[],
): Promise<TemplateHolder[]> {
  if (templateIds.length === 0) return [];
  const rows = await q
    .select({ deviceId: templateSync.deviceId, templateId: templateSync.templateId, heldVersion: templateSync.heldVersion })
    .from(templateSync)
    .where(and(inArray(templateSync.templateId, [...templateIds]), mayHold));
  const devices = [...new Set(rows.map((h) => h.deviceId))];
  const elsewhere = await notTheirs(q, deps, [enrollee], devices);
  const sent = await templateWritesSent(q, devices, templateIds);
  return rows.filter((h) => h.heldVersion !== null || sent.has(`${h.deviceId}\n${h.templateId}`) || !elsewhere.has(pairOf(h.deviceId, enrollee.devicePin)));
}
