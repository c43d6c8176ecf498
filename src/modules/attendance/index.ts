/** Attendance: days computed against the calendar's plan, absences, pay periods, payroll export and summary. */
export { ABSENCE_PARAMS, Absences } from './absences';
export { type LiveDay, TodayBoard } from './board';
export type { DayTest } from './day-pages';
export type { AttendanceDayRow } from './day-rows';
export type { AttendanceEvents } from './events';
export { attendanceJobs } from './jobs';
export { PayPeriodLocks } from './locks';
export type { AttendanceDayView, SummaryView, TodayBoardView } from './model';
export * as attendanceReactions from './reactions';
export { Reports } from './reports';
export { attendanceRoutes } from './routes';
export { CLOCK_AHEAD, CLOCK_RESET, type CountedPunch, DST_OVERLAP, UNCONFIRMED_TERMINAL } from './rules';
export { ATTENDANCE_SETTINGS } from './runtime';
export { AttendanceService } from './service';
