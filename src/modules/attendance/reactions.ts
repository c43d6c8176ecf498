/**
 * What attendance adds when punches are stored (wired in src/app/reactions.ts). The days
 * themselves follow the event log (service.ts, follower `attendance`), outside the punch's
 * transaction.
 */
import type { PunchFlagger } from '../punches';
import type { AttendanceService } from './service';

/** A punch stored (or voided) for a date of a locked pay period is flagged `after_lock`. */
export const flagPunchesInLockedPeriods =
  (attendance: AttendanceService): PunchFlagger =>
  (w, rows) =>
    attendance.afterLockFlags(w, rows);
