/** Retention: the daily purge, through each module that owns the data. */

export { retentionJobs } from './jobs';
export { Retention } from './service';
