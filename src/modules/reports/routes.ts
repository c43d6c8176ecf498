/** `reports/{daily,timesheet,summary,exceptions}.{csv,xlsx,pdf}` (API.md "HR at a glance"). */
import { t } from 'elysia';
import { withByteOrderMark } from '../../platform/csv';
import type { Caller } from '../../platform/http/caller';
import { attachmentDisposition } from '../../platform/http/content-disposition';
import { downloadStartedCookie } from '../../platform/http/download-started';
import { CsvBomQuery, errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { DailyQuery, ExceptionsQuery, PreviewLimit, ReportPreview, SummaryQuery, TimesheetQuery } from './model';
import { previewOf } from './preview';
import type { ReportFile, ReportService } from './service';
import { FORMATS, type Format, type ReportDocument } from './table';

const tags = ['reports'];

const MEDIA: Record<Format, { type: string; name: string }> = {
  csv: { type: 'text/csv', name: 'CSV (UTF-8, header row of snake-case keys, durations in decimal hours, no totals row)' },
  xlsx: {
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    name: 'Excel workbook (typed cells: dates as dates, durations as hours, header row bold and frozen, a totals row)',
  },
  pdf: { type: 'application/pdf', name: 'PDF, A4, headed by COMPANY_NAME, the title and period, with "Page n of m"' },
};

/** `?bom=true`, taken by the CSV files only. */
const BomQuery = t.Object(CsvBomQuery);
const bomOf = (query: object) => 'bom' in query && query.bom === true;

function download(file: ReportFile, query: object, request: Request): Response {
  // Only a CSV's query has `bom`; a CSV is a stream (a PDF is bytes).
  const body = file.body instanceof ReadableStream ? withByteOrderMark(file.body, bomOf(query)) : file.body;
  const headers = new Headers({
    'content-type': file.contentType,
    'content-disposition': attachmentDisposition(file.filename),
    'cache-control': 'no-store',
  });
  // A browser's download (no bearer token: the console's session): the console learns from this that the file is coming.
  if (!/^Bearer\s/i.test(request.headers.get('authorization') ?? '')) headers.append('set-cookie', downloadStartedCookie(file.filename));
  return new Response(body, { headers });
}

/** A report's file for the caller (the service audits the download before its first byte). */
async function send(
  reports: ReportService,
  doc: Promise<ReportDocument>,
  format: Format,
  asked: { query: object; request: Request; admin: Caller },
): Promise<Response> {
  return download(await reports.file(await doc, format, asked.admin.by), asked.query, asked.request);
}

const ok = (format: Format) => ({ 200: t.String({ contentMediaType: MEDIA[format].type, description: `The ${MEDIA[format].name}.` }), ...errors('not_found') });

const DAILY =
  'Everyone in scope on one date, by name: employee, name, areas, schedule, status (a day’s; today, without one yet, the Today board’s: `not_due_yet`, `not_in_yet`, `absent`, `on_leave`, `holiday`, `non_working_day`, `in_now`; `in_now` too for an in without its out today; another date without one `no_record`), first in, last out, worked, expected, late, early leave, overtime, punches, notes.';
const TIMESHEET =
  'One row per date of the period (every date, a blank row where nothing is recorded): date, weekday, status, schedule, every punch (`*` manual or imported, `+1` next date), first in, last out, worked, expected, late, early leave, overtime, notes; a totals row (Excel, PDF); in the PDF a page per person with signature lines for the employee and the employer. `employee` names one person (404 outside the caller’s areas); without it everyone of `area` (or of the caller’s areas) with days in the period, a page each, and in Excel a sheet each up to 200 people (more: one sheet of everyone’s rows, each person’s totals row after their dates). A PDF of more than 10,000 rows (people × dates, counted before it is drawn), or of more than 1,000 people (a page each), is 422 `report_too_large`.';
const SUMMARY =
  'Per person the totals of `attendance-summary/`: days by status, late and early days, worked, expected, overtime, late and early-leave time; a totals row (Excel, PDF).';
const EXCEPTIONS =
  'One row per exception, by employee then date: date, employee, name, kind (`late`, `early_leave`, `absent`, `missing_punch`, `overtime`, and the days for HR to review: `unconfirmed_terminal`, a punch from an address its terminal is not pinned to counts for the day; `clock_ahead`, a punch dated after it arrived (its terminal’s clock ran ahead) counts for it; `dst_overlap`, a punch at a wall time the fall-back night showed twice counts for it; `clock_reset`, a punch dated by a terminal clock that started over (a flat clock battery: the date is wrong) counts for it), hours (late by, left early by, expected when absent, overtime; none for a missing punch or a day to review), schedule, first in, last out, worked, punches.';

export function reportRoutes(http: Http, reports: ReportService) {
  const router = adminRouter(http, 'reports');
  for (const format of FORMATS) {
    const media = MEDIA[format].name;
    router
      .get('/reports/daily.' + format, ({ query, admin, request }) => send(reports, reports.daily(query, admin), format, { query, request, admin }), {
        query: format === 'csv' ? t.Composite([DailyQuery, BomQuery]) : DailyQuery,
        response: ok(format),
        detail: { summary: `Daily attendance report as ${format.toUpperCase()}`, description: `${DAILY} ${media}.`, tags },
      })
      .get('/reports/timesheet.' + format, ({ query, admin, request }) => send(reports, reports.timesheet(query, admin), format, { query, request, admin }), {
        query: format === 'csv' ? t.Composite([TimesheetQuery, BomQuery]) : TimesheetQuery,
        response: ok(format),
        detail: { summary: `Timesheet of a person or of an area as ${format.toUpperCase()}`, description: `${TIMESHEET} ${media}.`, tags },
      })
      .get('/reports/summary.' + format, ({ query, admin, request }) => send(reports, reports.summary(query, admin), format, { query, request, admin }), {
        query: format === 'csv' ? t.Composite([SummaryQuery, BomQuery]) : SummaryQuery,
        response: ok(format),
        detail: { summary: `Attendance summary per person as ${format.toUpperCase()}`, description: `${SUMMARY} ${media}.`, tags },
      })
      .get('/reports/exceptions.' + format, ({ query, admin, request }) => send(reports, reports.exceptions(query, admin), format, { query, request, admin }), {
        query: format === 'csv' ? t.Composite([ExceptionsQuery, BomQuery]) : ExceptionsQuery,
        response: ok(format),
        detail: { summary: `Attendance exceptions as ${format.toUpperCase()}`, description: `${EXCEPTIONS} ${media}.`, tags },
      });
  }
  // The first rows on screen before a download (the console's Preview), cells as the PDF prints them.
  const preview = { response: { 200: ReportPreview, ...errors('not_found') } };
  const shown = (limit: number | undefined) => limit ?? PREVIEW_ROWS;
  return router
    .get('/reports/daily/preview', async ({ query: { limit, ...q }, admin }) => previewOf(await reports.daily(q, admin), shown(limit)), {
      ...preview,
      query: t.Composite([DailyQuery, PreviewLimit]),
      detail: { summary: 'The first rows of the daily report', tags },
    })
    .get('/reports/timesheet/preview', async ({ query: { limit, ...q }, admin }) => previewOf(await reports.timesheet(q, admin), shown(limit)), {
      ...preview,
      query: t.Composite([TimesheetQuery, PreviewLimit]),
      detail: { summary: 'The first rows of a timesheet', tags },
    })
    .get('/reports/summary/preview', async ({ query: { limit, ...q }, admin }) => previewOf(await reports.summary(q, admin), shown(limit)), {
      ...preview,
      query: t.Composite([SummaryQuery, PreviewLimit]),
      detail: { summary: 'The first rows of the attendance summary', tags },
    })
    .get('/reports/exceptions/preview', async ({ query: { limit, ...q }, admin }) => previewOf(await reports.exceptions(q, admin), shown(limit)), {
      ...preview,
      query: t.Composite([ExceptionsQuery, PreviewLimit]),
      detail: { summary: 'The first rows of the exceptions report', tags },
    });
}

/** Rows a preview shows when not told. */
const PREVIEW_ROWS = 100;
