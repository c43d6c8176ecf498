/** Reports: daily, timesheet, summary and exceptions as CSV, Excel and PDF, from the attendance days. */
export type { ReportPreviewView } from './model';
export { reportRoutes } from './routes';
export { REPORT_SETTINGS } from './runtime';
export { ReportService } from './service';
