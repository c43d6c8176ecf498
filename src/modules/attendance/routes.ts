/** `GET /api/fingerprint/v1/attendance-days/` (API.md): filters, cursor paging, admin only. */
import { API_PREFIX } from '../../platform/http/api-prefix';
import { Elysia } from 'elysia';
import type { Core } from '../../app/core';
import { adminRouter, limitOf } from '../../platform/http/router';
import type { AttendanceService } from './service';

export function attendanceRoutes(core: Core, attendance: AttendanceService) {
  const routes = adminRouter(core, 'attendance-days').get('/attendance-days', ({ query }) =>
    attendance.list({
      employee: query.employee,
      enrollee: query.enrollee,
      from: query.from,
      to: query.to,
      status: query.status,
      cursor: query.cursor,
      limit: limitOf(query),
    }),
  );
  // Typed as a plain Elysia: the plugin mounts every feature router the same way.
  return new Elysia({ name: 'fpa-attendance-api', seed: core.ctx.instanceId, prefix: API_PREFIX }).use(routes) as unknown as Elysia;
}
