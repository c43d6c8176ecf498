/** Periodic jobs: one lease per job in the database, schedules, `jobs/` routes. */
export { JobRunner, summarize, type JobDefinition, type JobResult, type JobRunOutcome } from './runner';
export { jobRoutes } from './routes';
