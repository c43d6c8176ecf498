/**
 * A terminal that keeps another zone's time than the one attendance is judged in. Its punches are
 * stored at their right instants, but days, schedules, lateness, holidays and locks are all read
 * in ATTENDANCE_TIME_ZONE (one zone per service: README "One time zone for attendance"), so its
 * people's figures come out shifted, and nothing else says so.
 */
import { instantOn, localDateOf } from '../../platform/time/dates';
import { formatLocalWallTime, timeZoneOffsetMinutes } from '../../platform/time/zone';

const DAY_MS = 86_400_000;
/** Instants across a year from now: two zones that agree today may not after one of them changes its clocks. */
const SAMPLES = [0, 61, 122, 183, 244, 305].map((d) => d * DAY_MS);

/** Whether two zones' clocks disagree at any time in the coming year (Europe/Dublin and Europe/London never do). */
export function zonesDiffer(terminal: string, attendance: string, now: number): boolean {
  if (terminal === attendance) return false;
  return SAMPLES.some((s) => timeZoneOffsetMinutes(terminal, new Date(now + s)) !== timeZoneOffsetMinutes(attendance, new Date(now + s)));
}

/** The diagnostic's words: what a schedule's 09:00 is on this terminal today, and the two ways out. */
export function otherZoneWords(serial: string, terminal: string, attendance: string, now: number) {
  // 09:00 today in the attendance zone, as this terminal's clock shows it.
  const nine = instantOn(localDateOf(now, attendance), '09:00', attendance);
  const there = formatLocalWallTime(new Date(nine), terminal).slice(11, 16);
  return {
    message: `Terminal ${serial} keeps ${terminal} time, but attendance is judged in ${attendance}: its people’s dates, schedules, lateness and holidays are read in ${attendance} time (a schedule’s 09:00 is 09:00 in ${attendance}, ${there} on this terminal today).`,
    fix: `One service judges attendance in one time zone (ATTENDANCE_TIME_ZONE). If the terminal stands in ${attendance}, correct its time zone (Terminals → ${serial} → Settings); if it really stands in ${terminal}, run a service of its own for the branches of that zone.`,
    details: { time_zone: terminal, attendance_time_zone: attendance },
  };
}
