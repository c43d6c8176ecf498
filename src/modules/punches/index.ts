/** Punches: ingestion from terminals, the feed (`punches/latest/`), lists and the live stream. */
export type { PunchEvents, PunchPayload } from './events';
export { punchRoutes } from './routes';
export { PunchService, type IncomingPunch, type IngestResult, type PunchRow } from './service';
export { PunchStreamHub, punchStreamRoutes } from './stream';
export { punchView, type PunchView } from './view';
