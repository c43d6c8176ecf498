/** `work-schedules/` and `shift-assignments/` (docs/api.md "Attendance that payroll can use"). */
import { Elysia, t } from 'elysia';
import { errors, Text } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import {
  Id,
  ShiftAssignmentBatch,
  ShiftAssignmentCreate,
  ShiftAssignmentCreated,
  ShiftAssignmentList,
  ShiftAssignmentsCreated,
  WorkSchedule,
  WorkScheduleCreate,
  WorkScheduleList,
  WorkSchedulePatch,
} from './model';
import type { Schedules } from './schedules';

const tags = ['calendar'];
const NameOrId = t.Object({ id: Text({ maxLength: 100, description: 'The schedule’s id or name.' }) });

export function scheduleRoutes(http: Http, schedules: Schedules) {
  return new Elysia({ name: 'fpa-schedule-routes', seed: http.runtime.instanceId })
    .use(workScheduleRoutes(http, schedules))
    .use(assignmentRoutes(http, schedules));
}

function workScheduleRoutes(http: Http, schedules: Schedules) {
  return adminRouter(http, 'schedules')
    .get('/work-schedules', ({ query, scope }) => schedules.list({ ...query, limit: query.limit ?? 100 }, scope), {
      query: WorkScheduleList.query,
      response: { 200: WorkScheduleList.response, ...errors('invalid_cursor') },
      detail: { summary: 'Work schedules, by name', tags },
    })
    .post(
      '/work-schedules',
      async ({ body, admin, set }) => {
        const schedule = await schedules.create(body, admin.by);
        set.status = 201;
        return schedule;
      },
      {
        body: WorkScheduleCreate,
        response: { 201: WorkSchedule, ...errors('conflict') },
        detail: { summary: 'Add a work schedule (an end before the start is an overnight shift)', tags },
      },
    )
    .get('/work-schedules/:id', ({ params, scope }) => schedules.get(params.id, scope), {
      params: NameOrId,
      response: { 200: WorkSchedule, ...errors('not_found') },
      detail: { summary: 'One work schedule', tags },
    })
    .patch('/work-schedules/:id', ({ params, body, admin, scope }) => schedules.update(params.id, body, admin.by, scope), {
      params: NameOrId,
      body: WorkSchedulePatch,
      response: { 200: WorkSchedule, ...errors('not_found', 'conflict') },
      detail: {
        summary: 'Change a work schedule; the days of its assignments are recomputed (a caller limited to areas: only one nobody outside its areas works)',
        tags,
      },
    })
    .delete(
      '/work-schedules/:id',
      async ({ params, admin, scope, set }) => {
        await schedules.delete(params.id, admin.by, scope);
        set.status = 204;
      },
      {
        params: NameOrId,
        response: { 204: t.Void(), ...errors('not_found', 'conflict') },
        detail: { summary: 'Remove a work schedule no assignment uses (a caller limited to areas: only one nobody outside its areas works)', tags },
      },
    );
}

function assignmentRoutes(http: Http, schedules: Schedules) {
  return adminRouter(http, 'shift-assignments')
    .get('/shift-assignments', ({ query, scope }) => schedules.listAssignments({ ...query, limit: query.limit ?? 100 }, scope), {
      query: ShiftAssignmentList.query,
      response: { 200: ShiftAssignmentList.response, ...errors('invalid_cursor', 'not_found') },
      detail: { summary: 'Shift assignments, by first date', tags },
    })
    .post(
      '/shift-assignments',
      async ({ body, admin, scope, set }) => {
        const assignment = await schedules.assign(body, admin.by, scope);
        set.status = 201;
        return assignment;
      },
      {
        body: ShiftAssignmentCreate,
        response: { 201: ShiftAssignmentCreated, ...errors('not_found', 'unknown_area') },
        detail: {
          summary: 'Assign a schedule to an enrollee or an area over dates (own beats area, then priority, then newest); its days are recomputed',
          tags,
        },
      },
    )
    .post(
      '/shift-assignments/batch',
      async ({ body, admin, scope, set }) => {
        const results = await schedules.assignMany(body, admin.by, scope);
        set.status = 201;
        return { results, next_cursor: null };
      },
      {
        body: ShiftAssignmentBatch,
        response: { 201: ShiftAssignmentsCreated, ...errors('not_found') },
        detail: { summary: 'Assign a schedule to many people at once (one own assignment each); their days are recomputed', tags },
      },
    )
    .delete(
      '/shift-assignments/:id',
      async ({ params, admin, scope, set }) => {
        await schedules.unassign(params.id, admin.by, scope);
        set.status = 204;
      },
      { params: Id, response: { 204: t.Void(), ...errors('not_found') }, detail: { summary: 'Remove a shift assignment; its days are recomputed', tags } },
    );
}
