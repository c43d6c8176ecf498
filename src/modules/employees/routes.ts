/** `employees/` (docs/api.md): the built-in employee directory. */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { Employee, EmployeeCreate, EmployeeList, EmployeeParams } from './model';
import type { EmployeeService } from './service';

const tags = ['employees'];

export function employeeRoutes(http: Http, employees: EmployeeService) {
  return adminRouter(http, 'employees')
    .get('/employees', ({ query, scope }) => employees.list({ cursor: query.cursor, limit: query.limit ?? 100, enrolled: query.enrolled }, scope), {
      query: EmployeeList.query,
      response: { 200: EmployeeList.response, ...errors('not_found', 'invalid_cursor') },
      detail: { summary: 'List employees of the built-in directory', tags },
    })
    .get('/employees/:id', ({ params, scope }) => employees.get(params.id, scope), {
      params: EmployeeParams,
      response: { 200: Employee, ...errors('not_found') },
      detail: { summary: 'One employee', tags },
    })
    .post(
      '/employees',
      async ({ body, set }) => {
        const created = await employees.create(body);
        set.status = 201;
        return created;
      },
      {
        body: EmployeeCreate,
        response: { 201: Employee, ...errors('not_found', 'conflict') },
        detail: { summary: 'Add an employee to the built-in directory', tags },
      },
    );
}
