/** Employees: the directory enrollees link to (the host's, or the built-in table). */
export { BUILTIN_LOOKUP_FIELDS, BuiltinEmployeeDirectory, type Employee, type EmployeeDirectory } from './directory';
export type { EmployeeView } from './model';
export { employeeRoutes } from './routes';
export { EMPLOYEE_SETTINGS } from './runtime';
export { EmployeeService, recordEmployeeModel, recordedEmployeeModel } from './service';
