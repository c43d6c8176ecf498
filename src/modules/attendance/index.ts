/** Attendance: days computed against the calendar's plan, absences, pay periods, payroll export and summary. */
export { Absences } from './absences';
export { TodayBoard } from './board';
export type { AttendanceEvents } from './events';
export { attendanceJobs } from './jobs';
export type { TodayBoardView } from './model';
export { Reports } from './reports';
export { attendanceRoutes } from './routes';
export { AttendanceService } from './service';
