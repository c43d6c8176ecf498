/** Periodic jobs: one lease per job in the database, schedules, `jobs/` routes. */

export type { JobView } from './model';
export { jobRoutes } from './routes';
export { type JobDefinition, JobRunner } from './runner';
export { JOB_SETTINGS } from './runtime';
