/** People from a spreadsheet: `employees/import/` with a dry run. */

export { ImportResult } from './model';
export { employeeImportRoutes } from './routes';
export { EmployeeImport } from './service';
