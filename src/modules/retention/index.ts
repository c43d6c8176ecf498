/** Retention: the daily purge, through each module that owns the data. */

export { retentionJobs } from './jobs';
export { RETENTION_SETTINGS } from './runtime';
export { Retention } from './service';
