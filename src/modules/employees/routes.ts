/** `employees/` (docs/api.md): the built-in employee directory. */
import { t } from 'elysia';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { Employee, EmployeeCreate, EmployeeList, EmployeeParams, EmployeePatch } from './model';
import type { EmployeeService } from './service';

const tags = ['employees'];

export function employeeRoutes(http: Http, employees: EmployeeService) {
  return adminRouter(http, 'employees')
    .get(
      '/employees',
      ({ query, scope }) => employees.list({ cursor: query.cursor, limit: query.limit ?? 100, enrolled: query.enrolled, active: query.active }, scope),
      {
        query: EmployeeList.query,
        response: { 200: EmployeeList.response, ...errors('not_found', 'invalid_cursor') },
        detail: { summary: 'List employees of the built-in directory', tags },
      },
    )
    .get('/employees/:id', ({ params, scope }) => employees.get(params.id, scope), {
      params: EmployeeParams,
      response: { 200: Employee, ...errors('not_found') },
      detail: { summary: 'One employee', tags },
    })
    .post(
      '/employees',
      async ({ body, admin, set }) => {
        const created = await employees.create(body, admin.by);
        set.status = 201;
        return created;
      },
      {
        body: EmployeeCreate,
        response: { 201: Employee, ...errors('not_found', 'conflict') },
        detail: { summary: 'Add an employee to the built-in directory', tags },
      },
    )
    .patch('/employees/:id', ({ params, body, admin, scope }) => employees.setActive(params.id, body.active, admin.by, scope), {
      params: EmployeeParams,
      body: EmployeePatch,
      response: { 200: Employee, ...errors('not_found', 'conflict') },
      detail: {
        summary: 'Deactivate a leaver (or reactivate): not offered nor enrolled again while inactive',
        description:
          'Built-in directory only (a host’s own directory: 409). Deactivating is refused (409, `reason: person_active`) while a person of theirs is active: deactivate or delete the person first.',
        tags,
      },
    })
    .delete(
      '/employees/:id',
      async ({ params, admin, scope, set }) => {
        await employees.erase(params.id, admin.by, scope);
        set.status = 204;
      },
      {
        params: EmployeeParams,
        response: { 204: t.Void(), ...errors('not_found', 'conflict') },
        detail: {
          summary: 'Erase an employee from the built-in directory (their name goes)',
          description:
            'Refused (409, `reason: person_enrolled`) while a person is enrolled for them: delete the person first. Reports keep naming the person from their own record until retention.',
          tags,
        },
      },
    );
}
