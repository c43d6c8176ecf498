/** The working calendar of the attendance rules: weekends and holidays. */
import { weekdayOf } from '../../platform/time/dates';

export interface WorkCalendar {
  weekendDays: readonly number[];
  holidays: readonly string[];
}

export function isWorkingDay(date: string, calendar: WorkCalendar): boolean {
  return !calendar.weekendDays.includes(weekdayOf(date)) && !calendar.holidays.includes(date);
}
