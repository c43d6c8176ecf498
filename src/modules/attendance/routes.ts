/** `attendance-days/` (docs/api.md): filters, cursor paging. */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { AttendanceDayList } from './model';
import type { AttendanceService } from './service';

export function attendanceRoutes(http: Http, attendance: AttendanceService) {
  return adminRouter(http, 'attendance-days').get(
    '/attendance-days',
    ({ query }) =>
      attendance.list({
        employee: query.employee,
        enrollee: query.enrollee,
        from: query.from,
        to: query.to,
        status: query.status,
        cursor: query.cursor,
        limit: query.limit ?? 100,
      }),
    {
      query: AttendanceDayList.query,
      response: { 200: AttendanceDayList.response, ...errors('invalid_cursor') },
      detail: { summary: 'AttendanceDay records, newest date first', tags: ['attendance'] },
    },
  );
}
