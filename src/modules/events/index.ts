/** The durable event log and the one way modules react to each other. */
export { type EventBus, type EventChannel, EventLog, type EventMap, type LoggedEvent, type NewEvent, newEventId, type Reactor } from './service';
