/**
 * Every table of the service, gathered from the modules that own them: the schema drizzle-kit
 * writes migrations from (drizzle.config.ts). Times are integer milliseconds since the epoch
 * (UTC); lists and maps are JSON text; employee keys are plain text so the schema never depends
 * on the employee model a host chooses (docs/spec.md "Versioning" 5). Production code reads and writes
 * a table only through the module that owns it.
 */
export * from '../modules/anomalies/tables';
export * from '../modules/areas/tables';
export * from '../modules/attendance/tables';
export * from '../modules/audit/tables';
export * from '../modules/calendar/tables';
export * from '../modules/commands/tables';
export * from '../modules/completeness/tables';
export * from '../modules/console/tables';
export * from '../modules/devices/tables';
export * from '../modules/employees/tables';
export * from '../modules/enrollees/tables';
export * from '../modules/enrollment/tables';
export * from '../modules/events/tables';
export * from '../modules/jobs/tables';
export * from '../modules/proofs/tables';
export * from '../modules/punches/tables';
export * from '../modules/sign-in-factors/tables';
export * from '../modules/users/tables';
export * from '../modules/webhooks/tables';
