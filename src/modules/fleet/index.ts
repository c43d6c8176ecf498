/** A real fleet: the users terminals hold, adoption and removal of their own users, resync and reconciliation. */
export type { FleetEvents } from './events';
export { fleetJobs } from './jobs';
export type { TerminalUserView } from './model';
export * as fleetReactions from './reactions';
export { USERS_LOST } from './reconcile';
export { fleetRoutes } from './routes';
export { FLEET_SETTINGS } from './runtime';
export { Fleet } from './service';
