/** The durable event log and the one way modules react to each other. */
export { EventLog, newEventId, type EventBus, type EventChannel, type EventMap, type LoggedEvent, type NewEvent, type Reactor } from './service';
