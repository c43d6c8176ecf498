/** People from a spreadsheet: `employees/import/` with a dry run. */
export { employeeImportRoutes } from './routes';
export { EmployeeImport } from './service';
