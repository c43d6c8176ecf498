/** Retention: the daily purge, through each module that owns the data. */
export { Retention, type PurgeCounts } from './service';
export { retentionJobs } from './jobs';
