/** Enrollees: the link between an employee and a device PIN, and their areas. */
export type { EnrolleeChanges, EnrolleeEvents, EnrolleeRef } from './events';
export { Consent, Enrollee, EnrolleeParams } from './model';
export { enrolleeRoutes } from './routes';
export { type EnrolleeRow, EnrolleeService, type EnrolleeView, enrolleeRef, type ViewPart } from './service';
export { ENROLLEE_STATUSES, type EnrolleeStatus } from './tables';
