/** `holidays/`, `leaves/`, `weekends/` and `calendar/` (docs/api.md "Attendance that payroll can use"). */
import { Elysia, t } from 'elysia';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import {
  CalendarQuery,
  CalendarResponse,
  Holiday,
  HolidayCreate,
  HolidayList,
  HolidayPatch,
  Id,
  Leave,
  LeaveCreate,
  LeaveList,
  RosterQuery,
  RosterResponse,
  Weekend,
  WeekendCreate,
  WeekendList,
} from './model';
import type { CalendarService } from './service';

const tags = ['calendar'];
type DaysOff = CalendarService['daysOff'];

export function calendarRoutes(http: Http, calendar: CalendarService) {
  return new Elysia({ name: 'fpa-calendar-routes', seed: http.runtime.instanceId })
    .use(holidayRoutes(http, calendar.daysOff))
    .use(leaveRoutes(http, calendar.daysOff))
    .use(weekendRoutes(http, calendar.daysOff))
    .use(planRoutes(http, calendar));
}

function holidayRoutes(http: Http, daysOff: DaysOff) {
  return adminRouter(http, 'calendar-holidays')
    .get('/holidays', ({ query, scope }) => daysOff.listHolidays({ ...query, limit: query.limit ?? 100 }, scope), {
      query: HolidayList.query,
      response: { 200: HolidayList.response, ...errors('invalid_cursor') },
      detail: { summary: 'Holidays, by date', tags },
    })
    .post(
      '/holidays',
      async ({ body, admin, scope, set }) => {
        const holiday = await daysOff.createHoliday(body, admin.by, scope);
        set.status = 201;
        return holiday;
      },
      {
        body: HolidayCreate,
        response: { 201: Holiday, ...errors('not_found', 'unknown_area') },
        detail: { summary: 'Declare a holiday (everyone, areas or one enrollee; recurring; or cancel one); its days are recomputed', tags },
      },
    )
    .get('/holidays/:id', ({ params, scope }) => daysOff.getHoliday(params.id, scope), {
      params: Id,
      response: { 200: Holiday, ...errors('not_found') },
      detail: { summary: 'One holiday', tags },
    })
    .patch('/holidays/:id', ({ params, body, admin, scope }) => daysOff.updateHoliday(params.id, body, admin.by, scope), {
      params: Id,
      body: HolidayPatch,
      response: { 200: Holiday, ...errors('not_found', 'unknown_area') },
      detail: { summary: 'Change a holiday; the days it covered and covers are recomputed', tags },
    })
    .delete(
      '/holidays/:id',
      async ({ params, admin, scope, set }) => {
        await daysOff.deleteHoliday(params.id, admin.by, scope);
        set.status = 204;
      },
      { params: Id, response: { 204: t.Void(), ...errors('not_found') }, detail: { summary: 'Remove a holiday; its days are recomputed', tags } },
    );
}

function leaveRoutes(http: Http, daysOff: DaysOff) {
  return adminRouter(http, 'calendar-leaves')
    .get('/leaves', ({ query, scope }) => daysOff.listLeaves({ ...query, limit: query.limit ?? 100 }, scope), {
      query: LeaveList.query,
      response: { 200: LeaveList.response, ...errors('invalid_cursor', 'not_found') },
      detail: { summary: 'Leaves, by first date', tags },
    })
    .post(
      '/leaves',
      async ({ body, admin, scope, set }) => {
        const leave = await daysOff.createLeave(body, admin.by, scope);
        set.status = 201;
        return leave;
      },
      {
        body: LeaveCreate,
        response: { 201: Leave, ...errors('not_found') },
        detail: { summary: 'Record leave (`on_leave` on its workdays); its days are recomputed', tags },
      },
    )
    .delete(
      '/leaves/:id',
      async ({ params, admin, scope, set }) => {
        await daysOff.deleteLeave(params.id, admin.by, scope);
        set.status = 204;
      },
      { params: Id, response: { 204: t.Void(), ...errors('not_found') }, detail: { summary: 'Remove a leave; its days are recomputed', tags } },
    );
}

function weekendRoutes(http: Http, daysOff: DaysOff) {
  return adminRouter(http, 'calendar-weekends')
    .get('/weekends', ({ query, scope }) => daysOff.listWeekends({ ...query, limit: query.limit ?? 100 }, scope), {
      query: WeekendList.query,
      response: { 200: WeekendList.response, ...errors('invalid_cursor') },
      detail: { summary: 'Weekends of areas (WEEKEND_DAYS applies where none is set)', tags },
    })
    .post(
      '/weekends',
      async ({ body, admin, scope, set }) => {
        const weekend = await daysOff.setWeekend(body, admin.by, scope);
        set.status = 201;
        return weekend;
      },
      {
        body: WeekendCreate,
        response: { 201: Weekend, ...errors('unknown_area') },
        detail: { summary: 'Set an area’s weekend from a date on (replaces the row of that area and date); its days are recomputed', tags },
      },
    )
    .delete(
      '/weekends/:id',
      async ({ params, admin, scope, set }) => {
        await daysOff.deleteWeekend(params.id, admin.by, scope);
        set.status = 204;
      },
      { params: Id, response: { 204: t.Void(), ...errors('not_found') }, detail: { summary: 'Remove an area’s weekend row; its days are recomputed', tags } },
    );
}

/** The plan: who works when in an area, and one person's resolved days. */
function planRoutes(http: Http, calendar: CalendarService) {
  return adminRouter(http, 'calendar')
    .get('/calendar/roster', ({ query, scope }) => calendar.rosterOf({ ...query, limit: query.limit ?? 100 }, scope), {
      query: RosterQuery,
      response: { 200: RosterResponse, ...errors('not_found', 'invalid_cursor') },
      detail: { summary: 'Who works when in an area: each person (by name) with the plan of each date (at most 42)', tags },
    })
    .get('/calendar', ({ query, scope }) => calendar.calendarOf(query, scope), {
      query: CalendarQuery,
      response: { 200: CalendarResponse, ...errors('not_found') },
      detail: {
        summary: 'The resolved plan of one person per date: day type, expected shift (start and end instants), holiday, leave',
        tags,
      },
    });
}
