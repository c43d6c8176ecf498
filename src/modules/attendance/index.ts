/** Attendance: days computed from punches, absences, the `attendance-days/` list. */
export { attendanceJobs } from './jobs';
export { attendanceRoutes } from './routes';
export { type AttendanceDayView, AttendanceService } from './service';
export { DAY_STATUSES, type DayStatus } from './tables';
