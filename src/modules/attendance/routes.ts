/** `attendance-days/`, its recompute and CSV export, `attendance-summary/` and `pay-periods/` (docs/api.md). */
import { Elysia, t } from 'elysia';
import { withByteOrderMark } from '../../platform/csv';
import { attachmentDisposition } from '../../platform/http/content-disposition';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import type { TodayBoard as Board } from './board';
import type { PayPeriodLocks } from './locks';
import {
  AttendanceDayList,
  DayPunches,
  ExportQuery,
  PayPeriod,
  PayPeriodCreate,
  PayPeriodList,
  PayPeriodParams,
  Recompute,
  SummaryList,
  TodayBoard,
} from './model';
import type { Reports } from './reports';
import type { AttendanceService } from './service';

const tags = ['attendance'];

export function attendanceRoutes(http: Http, attendance: AttendanceService, deps: { reports: Reports; board: Board; locks: PayPeriodLocks }) {
  const { reports, board, locks } = deps;
  return new Elysia({ name: 'fpa-attendance-routes', seed: http.runtime.instanceId })
    .use(todayRoute(http, board))
    .use(dayRoutes(http, attendance, reports))
    .use(dayPunchesRoute(http, attendance))
    .use(periodRoutes(http, attendance, locks));
}

function todayRoute(http: Http, board: Board) {
  // Serialized here: 10,000 people are a 3 MB answer whose check against the schema (which
  // documents it) would cost more than building it.
  return adminRouter(http, 'attendance-today').get(
    '/attendance/today',
    async ({ query, admin }) =>
      new Response(JSON.stringify(await board.board({ ...query, scope: admin.areas })), { headers: { 'content-type': 'application/json' } }),
    {
      query: TodayBoard.query,
      response: { 200: TodayBoard.response, ...errors('not_found') },
      detail: {
        summary: 'The Today board: everyone’s status on a date (default today), counts by status and by area; live for today',
        tags,
        description:
          'Statuses: `present`, `late` (came in), `scheduled` (not due yet), `not_in_yet` (the shift started more than its grace in ago, no punch), `absent` (workday, no punch, the shift has ended or the date is past), `on_leave`, `holiday`, `off`. After midnight each person is on the shift that runs now if one does (yesterday’s night shift, until its end plus its grace out), on today’s board and on yesterday’s alike, else on the date’s own. Honours the caller’s areas; an `area` outside them is 404.',
      },
    },
  );
}

/** The days, their recompute, their CSV export and the totals of a range. */
function dayRoutes(http: Http, attendance: AttendanceService, reports: Reports) {
  return adminRouter(http, 'attendance-days')
    .get(
      '/attendance-days',
      ({ query, scope }) =>
        attendance.list(
          {
            employee: query.employee,
            enrollee: query.enrollee,
            from: query.from,
            to: query.to,
            status: query.status,
            inactive: query.inactive,
            cursor: query.cursor,
            limit: query.limit ?? 100,
          },
          scope,
        ),
      {
        query: AttendanceDayList.query,
        response: { 200: AttendanceDayList.response, ...errors('invalid_cursor') },
        detail: { summary: 'AttendanceDay records, newest date first', tags },
      },
    )
    .post('/attendance-days/recompute', ({ body, scope }) => attendance.recompute(body, scope), {
      body: Recompute.body,
      response: { 200: Recompute.response, ...errors('not_found') },
      detail: { summary: 'Recompute the days of a range (one enrollee or everyone with days or punches in it); locked dates are skipped', tags },
    })
    .get(
      '/attendance-days/export.csv',
      async ({ query, scope, admin }) =>
        new Response(withByteOrderMark(await reports.exportCsv(query, { scope, by: admin.by }), query.bom), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': attachmentDisposition(`attendance-${query.from}-${query.to}.csv`),
          },
        }),
      {
        query: ExportQuery,
        response: { 200: t.String({ contentMediaType: 'text/csv', description: 'The CSV file, UTF-8, header row first.' }), ...errors('not_found') },
        detail: {
          summary: 'The days of a range as CSV for payroll: one row per employee and date, header row first',
          tags,
          description:
            'Columns: employee, name, date, status, schedule, first_in, last_out (local wall times in the time zone the day was judged in: the person’s on the row’s date, their areas’, else ATTENDANCE_TIME_ZONE; a locked day keeps the zone it was locked with), worked, expected, late, early_leave, overtime (each as H:MM and in seconds), punches, flags (space-separated). An `employee` that names nobody in the caller’s areas is 404, not an empty file.',
        },
      },
    )
    .get('/attendance-summary', ({ query, scope }) => reports.summary({ ...query, limit: query.limit ?? 100 }, scope), {
      query: SummaryList.query,
      response: { 200: SummaryList.response, ...errors('invalid_cursor', 'not_found') },
      detail: {
        summary: 'Per employee totals of a range: days by status, late days, worked, expected, overtime, late and early seconds',
        tags,
        description: 'An `employee` that names nobody in the caller’s areas is 404, not an empty list.',
      },
    });
}

/** The punches one day is made of: the console's day panel. */
function dayPunchesRoute(http: Http, attendance: AttendanceService) {
  return adminRouter(http, 'attendance-day-punches').get(
    '/attendance-days/:enrollee/:date/punches',
    ({ params, scope }) => attendance.punchesOfDay(params.enrollee, params.date, scope),
    {
      params: DayPunches.params,
      response: { 200: DayPunches.response, ...errors('not_found') },
      detail: {
        summary: 'The punches one person’s attendance day is made of (a night shift’s on the date it started), voided ones too',
        tags,
        description: 'The console’s day panel. A person outside the caller’s areas is 404.',
      },
    },
  );
}

function periodRoutes(http: Http, attendance: AttendanceService, locks: PayPeriodLocks) {
  return adminRouter(http, 'pay-periods')
    .get('/pay-periods', ({ query }) => attendance.periods.list({ ...query, limit: query.limit ?? 100 }), {
      query: PayPeriodList.query,
      response: { 200: PayPeriodList.response, ...errors('invalid_cursor') },
      detail: { summary: 'Pay periods, by first date', tags },
    })
    .post(
      '/pay-periods',
      async ({ body, admin, set }) => {
        const period = await attendance.periods.create(body, admin.by);
        set.status = 201;
        return period;
      },
      {
        body: PayPeriodCreate,
        response: { 201: PayPeriod, ...errors('conflict') },
        detail: { summary: 'Add a pay period (periods never overlap)', tags },
      },
    )
    .get('/pay-periods/:id', ({ params }) => attendance.periods.get(params.id), {
      params: PayPeriodParams,
      response: { 200: PayPeriod, ...errors('not_found') },
      detail: { summary: 'One pay period', tags },
    })
    .delete(
      '/pay-periods/:id',
      async ({ params, admin, set }) => {
        await attendance.periods.remove(params.id, admin.by);
        set.status = 204;
      },
      {
        params: PayPeriodParams,
        response: { 204: t.Void(), ...errors('not_found', 'conflict') },
        detail: {
          summary: 'Delete a pay period that is not locked (one added with a wrong date); a locked one is 409: a lock is final',
          tags,
        },
      },
    )
    .post('/pay-periods/:id/lock', ({ params, admin }) => locks.lock(params.id, admin.by), {
      params: PayPeriodParams,
      response: { 200: PayPeriod, ...errors('not_found', 'conflict') },
      detail: {
        summary:
          'Lock a pay period whose last date is over (409 before, with `lockable_from`): its absences are written first, then its days never change again; later punches for it are stored and flagged `after_lock`',
        tags,
      },
    });
}
