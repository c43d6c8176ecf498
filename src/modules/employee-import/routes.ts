/** `employees/import/` (API.md "HR at a glance"). */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { EmployeeImportBody, ImportQuery, ImportResult } from './model';
import type { EmployeeImport } from './service';

export function employeeImportRoutes(http: Http, imports: EmployeeImport) {
  // Its own router: the body is CSV or a JSON array, not the JSON object of every other route.
  return adminRouter(http, 'employee-import', { body: 'records' }).post(
    '/employees/import',
    ({ body, query, admin, scope }) => imports.run(body, { dryRun: query.dry_run === true, by: admin.by, scope }),
    {
      body: EmployeeImportBody,
      query: ImportQuery,
      response: { 200: ImportResult, ...errors('not_found') },
      detail: {
        summary: 'Import people: `text/csv` with the header `id,name,areas,card` (or a JSON array); `?dry_run=true` stores nothing',
        tags: ['employees'],
        description:
          'Each good line adds the employee to the built-in directory (or renames them) and enrolls them, or changes their areas and card; a bad line is reported by line and nothing of it is stored. Areas must exist (unknown_area otherwise, unless AREAS_CREATED_ON_USE). An empty areas or card cell keeps what is stored. A caller limited to some areas imports into its own areas only (a new person without areas goes into them) and cannot change people enrolled outside them.',
      },
    },
  );
}
