/** Attendance: days computed against the calendar's plan, absences, pay periods, payroll export and summary. */
export { Absences } from './absences';
export type { AttendanceEvents } from './events';
export { attendanceJobs } from './jobs';
export * as attendanceReactions from './reactions';
export { Reports } from './reports';
export { attendanceRoutes } from './routes';
export { AttendanceService } from './service';
