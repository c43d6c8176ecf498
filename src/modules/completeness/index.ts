/** Punch completeness: per terminal and date, stored vs reported, and automatic re-uploads of what is missing. */
export type { CompletenessEvents } from './events';
export { ServerHeartbeat } from './heartbeat';
export { completenessJobs } from './jobs';
export type { CompletenessView } from './model';
export * as completenessReactions from './reactions';
export { completenessRoutes } from './routes';
export { COMPLETENESS_SETTINGS } from './runtime';
export { Completeness } from './service';
export { gapsOfReuploads, type OpenGap } from './unresent';
