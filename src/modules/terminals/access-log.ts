/**
 * Access events of 3.x terminals and access panels that are not punches (denied entries,
 * alarms, door states: their `event` code, protocol/adms/access-events.ts) go to the device log,
 * never to attendance.
 */

import { classifyAccessEvent, describeAccessEvent, type RtlogRecord } from '../../protocol/adms';
import { type DeviceRow, noteOnDevice } from '../devices';
import { withholdBase64 } from './ingest';
import type { TerminalRuntime } from './runtime';

/** Access events logged one by one per upload; a door's chatter beyond that is counted. */
const MAX_ACCESS_EVENTS = 100;

/**
 * What the device log keeps of an access event: the codes, never a photo or template a terminal put
 * there, and never a measured body temperature or mask flag (health data; the event code already
 * says a temperature or mask refusal).
 */
function accessEventDetails(table: string, r: RtlogRecord): Record<string, unknown> {
  const keep = ['cardno', 'eventaddr', 'inoutstatus', 'verifytype', 'doorid'];
  const fields = Object.fromEntries(keep.filter((k) => r.fields[k] !== undefined).map((k) => [k, withholdBase64(r.fields[k] ?? '').slice(0, 64)]));
  return { table, event: r.event, pin: r.pin === '' || r.pin === '0' ? null : r.pin, local_time: r.localTime, ...fields };
}

/** Access events that are not punches, one device event each (at most MAX_ACCESS_EVENTS per upload, then a count). */
export async function logAccessEvents(ctx: TerminalRuntime, device: DeviceRow, table: string, records: RtlogRecord[]): Promise<void> {
  if (records.length === 0) return;
  const now = ctx.clock.now();
  await ctx.db.write(async ({ tx }) => {
    for (const r of records.slice(0, MAX_ACCESS_EVENTS)) {
      const who = r.pin === '' || r.pin === '0' ? '' : ` (PIN ${r.pin})`;
      const kind = `access_${classifyAccessEvent(r.event)}`;
      await noteOnDevice(tx, device.id, kind, `${describeAccessEvent(r.event)}${who} at ${r.localTime}`, accessEventDetails(table, r), now);
    }
    if (records.length > MAX_ACCESS_EVENTS) {
      const more = records.length - MAX_ACCESS_EVENTS;
      await noteOnDevice(
        tx,
        device.id,
        'access_events_more',
        `${more} more access events in this upload were not logged one by one`,
        { table, count: more },
        now,
      );
    }
  });
}
