/** `enrollees/` (docs/api.md): create, list, read, change and delete enrollees. */
import { t } from 'elysia';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { Enrollee, EnrolleeCreate, EnrolleeList, EnrolleeParams, EnrolleePatch } from './model';
import type { EnrolleeService } from './service';

const tags = ['enrollees'];

export function enrolleeRoutes(http: Http, enrollees: EnrolleeService) {
  return adminRouter(http, 'enrollees')
    .get('/enrollees', ({ query, scope }) => enrollees.views.list({ ...query, limit: query.limit ?? 100 }, scope), {
      query: EnrolleeList.query,
      response: { 200: EnrolleeList.response, ...errors('invalid_cursor') },
      detail: { summary: 'List enrollees: search, filter by area, status, consent and biometrics, sort by name, employee, PIN or age', tags },
    })
    .post(
      '/enrollees',
      async ({ body, admin, scope, set }) => {
        const row = await enrollees.changes.create(body.employee, { areas: body.areas, by: admin.by, scope });
        set.status = 201;
        return enrollees.views.viewOne(row);
      },
      {
        body: EnrolleeCreate,
        response: { 201: Enrollee, ...errors('unknown_area', 'unknown_employee', 'employee_inactive', 'conflict') },
        detail: { summary: 'Create an enrollee with an auto-generated device PIN', tags },
      },
    )
    .get('/enrollees/:id', async ({ params, scope }) => enrollees.views.viewOne(await enrollees.get(params.id, undefined, scope)), {
      params: EnrolleeParams,
      response: { 200: Enrollee, ...errors('not_found') },
      detail: { summary: 'One enrollee', tags },
    })
    .patch(
      '/enrollees/:id',
      async ({ params, body, admin, scope }) => enrollees.views.viewOne(await enrollees.changes.update(params.id, body, admin.by, scope)),
      {
        params: EnrolleeParams,
        body: EnrolleePatch,
        response: { 200: Enrollee, ...errors('not_found', 'invalid_card', 'conflict', 'unknown_area', 'employee_inactive') },
        detail: { summary: 'Change areas, display name, card or active state', tags },
      },
    )
    .delete(
      '/enrollees/:id',
      async ({ params, admin, scope, set }) => {
        await enrollees.changes.delete(params.id, { by: admin.by, scope });
        set.status = 204;
      },
      {
        params: EnrolleeParams,
        response: { 204: t.Void(), ...errors('not_found') },
        detail: { summary: 'Delete: templates destroyed, the user removed from every terminal', tags },
      },
    );
}
