/**
 * A terminal that keeps another zone's time than the one its people's attendance is judged in:
 * its area's own zone, or ATTENDANCE_TIME_ZONE for an area without one (README "Time zones").
 * Its punches are stored at their right instants, but its people's days, schedules, lateness and
 * holidays are read in their area's zone, so a terminal whose zone is wrong (or an area whose
 * zone is not set) shifts their figures, and nothing else says so.
 */
import type { Queryable } from '../../platform/db/client';
import { instantOn, localDateOf } from '../../platform/time/dates';
import { formatLocalWallTime, timeZoneOffsetMinutes } from '../../platform/time/zone';
import { areaZones } from '../areas';
import type { DeviceRow, DeviceService } from '../devices';

/** The zones a terminal's people are judged in: each of its areas' own zone, else ATTENDANCE_TIME_ZONE (area null: none is zoned, or it has no area). */
export type TerminalZones = (deviceId: string) => { zone: string; area: { name: string; zoned: boolean } | null }[];

/**
 * The zones each terminal's people are judged in: with no area zoned, ATTENDANCE_TIME_ZONE for
 * every terminal (its areas not even read); else each of its areas' zone (its own, or
 * ATTENDANCE_TIME_ZONE for an area without one).
 */
export async function zonesOfTerminals(q: Queryable, devices: DeviceService, rows: DeviceRow[], attendance: string): Promise<TerminalZones> {
  const zones = await areaZones(q);
  if (zones.size === 0) return () => [{ zone: attendance, area: null }];
  const byName = new Map([...zones.values()].map((a) => [a.name, a.zone]));
  const views = await devices.views.view(q, rows);
  const areasOf = new Map(rows.map((d, i) => [d.id, views[i]!.areas]));
  return (deviceId) => {
    const names = areasOf.get(deviceId) ?? [];
    if (names.length === 0) return [{ zone: attendance, area: null }];
    return names.map((name) => ({ zone: byName.get(name) ?? attendance, area: { name, zoned: byName.has(name) } }));
  };
}

const DAY_MS = 86_400_000;
/** Instants across a year from now: two zones that agree today may not after one of them changes its clocks. */
const SAMPLES = [0, 61, 122, 183, 244, 305].map((d) => d * DAY_MS);

/** Whether two zones' clocks disagree at any time in the coming year (Europe/Dublin and Europe/London never do). */
export function zonesDiffer(terminal: string, attendance: string, now: number): boolean {
  if (terminal === attendance) return false;
  return SAMPLES.some((s) => timeZoneOffsetMinutes(terminal, new Date(now + s)) !== timeZoneOffsetMinutes(attendance, new Date(now + s)));
}

/**
 * The diagnostic's words: what a schedule's 09:00 is on this terminal today, and the two ways
 * out. `area`: the terminal's area whose zone (`attendance`) it disagrees with, when that area
 * has a zone of its own; null when it is ATTENDANCE_TIME_ZONE's.
 */
export function otherZoneWords(serial: string, terminal: string, attendance: string, now: number, area: { name: string; zoned: boolean } | null = null) {
  // 09:00 today in the attendance zone, as this terminal's clock shows it.
  const nine = instantOn(localDateOf(now, attendance), '09:00', attendance);
  const there = formatLocalWallTime(new Date(nine), terminal).slice(11, 16);
  const judged = area?.zoned ? `its area ${area.name} judges attendance in ${attendance}` : `attendance is judged in ${attendance}`;
  const areaFix = area
    ? `set the time zone of its area (Areas → ${area.name}) to ${terminal}, or move the terminal to an area of that zone`
    : `give its area the time zone ${terminal} (Areas → the terminal's area)`;
  return {
    message: `Terminal ${serial} keeps ${terminal} time, but ${judged}: its people’s dates, schedules, lateness and holidays are read in ${attendance} time (a schedule’s 09:00 is 09:00 in ${attendance}, ${there} on this terminal today).`,
    fix: `If the terminal stands in ${attendance}, correct its time zone (Terminals → ${serial} → Settings); if it really stands in ${terminal}, ${areaFix}: its people are then judged in ${terminal}.`,
    details: area?.zoned ? { time_zone: terminal, area_time_zone: attendance, area: area.name } : { time_zone: terminal, attendance_time_zone: attendance },
  };
}
