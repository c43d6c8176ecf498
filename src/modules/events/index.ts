/** The durable event log, the one way modules react to each other, and its API. */
export { type FollowerStop, LogFollower } from './follower';
export type { EventView } from './model';
export type { RedactionRule } from './pruning';
export { eventRoutes } from './routes';
export { EVENT_SETTINGS } from './runtime';
export { type EventBus, type EventChannel, EventLog, type LoggedEvent, type ReactionTo, type StoredForm } from './service';
