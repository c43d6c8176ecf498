/** Enrollees: the link between an employee and a device PIN, and their areas. */
export { areaNamesOf, membersOfArea } from './area-membership';
export type { CardOutcome } from './card-rules';
export { CARD_MAX, normaliseCard } from './cards';
export type { EnrolleeEvents, LoggedEnrolleeEvents } from './events';
export { Consent, type ConsentView, type ConsentWithdrawalView, Enrollee, EnrolleeParams } from './model';
export { checkPinCarried } from './pin-allocation';
export type { RosterEntry } from './roster';
export { enrolleeRoutes } from './routes';
export { ENROLLEE_SETTINGS } from './runtime';
export type { ListFilter } from './search';
export { type EnrolleeRow, EnrolleeService, type PinHolder } from './service';
export type { EnrolleeView, ViewPart } from './view-shapes';
