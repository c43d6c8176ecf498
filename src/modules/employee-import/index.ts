/** People from a spreadsheet: `employees/import/` with a dry run. */

export { ImportResult } from './model';
export { employeeImportRoutes } from './routes';
export { IMPORT_SETTINGS } from './runtime';
export { EmployeeImport } from './service';
