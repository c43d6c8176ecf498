/** Enrollees: the link between an employee and a device PIN, and their areas. */
export type { EnrolleeChanges, EnrolleeEvents, EnrolleeRef } from './events';
export { EnrolleeService, enrolleeRef, type EnrolleeRow, type EnrolleeView, type ViewPart } from './service';
export { ENROLLEE_STATUSES, type EnrolleeStatus } from './tables';
export { Consent, EnrolleeParams } from './model';
export { enrolleeRoutes } from './routes';
