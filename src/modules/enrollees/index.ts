/** Enrollees: the link between an employee and a device PIN, and their areas. */

export type { RosterEntry } from './area-membership';
export { CARD_MAX, normaliseCard } from './cards';
export type { EnrolleeEvents } from './events';
export { Consent, Enrollee, EnrolleeParams } from './model';
export { enrolleeRoutes } from './routes';
export { type EnrolleeRow, EnrolleeService } from './service';
