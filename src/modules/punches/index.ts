/** Punches: ingestion from terminals, corrections, the feed (`punches/latest/`), lists and the live stream. */
export { type ImportResult, PunchCorrections } from './corrections';
export type { PunchEvents, PunchPayload } from './events';
export { punchRoutes } from './routes';
export { type IncomingPunch, type IngestResult, type NewPunch, type PunchFlagger, type PunchRow, PunchService } from './service';
export { punchStreamRoutes, punchStreamSource } from './stream';
export { PUNCH_SOURCES, type PunchSource } from './tables';
export { type PunchView, punchView } from './view';
