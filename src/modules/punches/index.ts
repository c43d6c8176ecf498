/** Punches: ingestion from terminals, corrections, the feed (`punches/latest/`), lists and the live stream. */
export { PunchCorrections } from './corrections';
export type { LoggedPunchEvents, PunchEvents, PunchPayload } from './events';
export { punchRoutes } from './routes';
export { type IncomingPunch, type IngestResult, type PunchFlagger, PunchService } from './service';
export { punchStreamRoutes, punchStreamSource } from './stream';
export type { PunchView } from './view';
