/** What the attendance module announces. */
import type { AttendanceDayView, PayPeriodView } from './model';

export interface AttendanceEvents {
  /** A day's result changed (new punches, a late upload, a correction, a calendar change). */
  attendance_day_changed: { day: AttendanceDayView };
  /** A day of today or later lost its last punch (a void, a shift moved): it has no record until it is over. */
  attendance_day_removed: { enrollee: string; employee: string; date: string };
  /** A pay period was locked: its days are final. */
  pay_period_locked: { pay_period: PayPeriodView; by: string };
}
