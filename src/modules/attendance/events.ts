/** What the attendance module announces. */
import type { AttendanceDayView } from './model';

export interface AttendanceEvents {
  /** A day's result changed (new punches, a late upload, a correction). */
  attendance_day_changed: { day: AttendanceDayView };
}
