/** Attendance: days computed from punches, absences, the `attendance-days/` list. */
export { attendanceJobs } from './jobs';
export { attendanceRoutes } from './routes';
export { AttendanceService, type AttendanceDayView } from './service';
export { DAY_STATUSES, type DayStatus } from './tables';
