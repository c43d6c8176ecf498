/** The durable event log, the one way modules react to each other, and its API. */
export { type FollowerOptions, LogFollower } from './follower';
export { eventRoutes } from './routes';
export { type EventBus, type EventChannel, EventLog, type EventMap, type EventView, eventView, type LoggedEvent, type NewEvent, type Reactor } from './service';
