/** Attendance: days computed from punches, absences, the `attendance-days/` list. */
export type { AttendanceEvents } from './events';
export { attendanceJobs } from './jobs';
export { attendanceRoutes } from './routes';
export { type AttendanceDayView, AttendanceService } from './service';
export { DAY_STATUSES, type DayStatus } from './tables';
