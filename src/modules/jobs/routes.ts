/** `jobs/` (docs/api.md): the periodic jobs, and running one now (also with the local operator token). */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { JobList, JobOutcome, JobParams, JobRun } from './model';
import type { JobRunner } from './runner';

const tags = ['operations'];

export function jobRoutes(http: Http, jobs: JobRunner) {
  // Only running a job takes the local operator token: `bun run fpa:<job>` hands the run to the
  // server that holds the database; listing is for administrators. (A router's hooks also run
  // for the routers it uses, so the listing router is used by the run router, not around it.)
  const list = adminRouter(http, 'jobs').get('/jobs', async () => ({ results: await jobs.describe(), next_cursor: null }), {
    response: { 200: JobList, ...errors() },
    detail: { summary: 'Periodic jobs: schedule, last run, last result, next run, holder', tags },
  });
  const run = adminRouter(http, 'jobs-run', { allowOperatorToken: true }).post(
    '/jobs/:name/run',
    ({ params, body, admin }) => jobs.run(params.name, { wait: true, trigger: `api:${admin.by}`, params: body?.params ?? {} }),
    {
      params: JobParams,
      body: JobRun,
      response: { 200: JobOutcome, ...errors('not_found', 'job_running') },
      detail: { summary: 'Run a job now and answer its summary', tags },
    },
  );
  return run.use(list);
}
