/** Reports: daily, timesheet, summary and exceptions as CSV, Excel and PDF, from the attendance days. */
export { reportRoutes } from './routes';
export { ReportService } from './service';
