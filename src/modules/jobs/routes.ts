/** `jobs/` (docs/api.md): the periodic jobs, and running one now (also with the local operator token). */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { JobList, JobOutcome, JobParams, JobRun } from './model';
import type { JobRunner } from './runner';

const tags = ['operations'];

export function jobRoutes(http: Http, jobs: JobRunner) {
  return adminRouter(http, 'jobs', { allowOperatorToken: true })
    .get('/jobs', async () => ({ results: await jobs.describe(), next_cursor: null }), {
      response: { 200: JobList, ...errors() },
      detail: { summary: 'Periodic jobs: schedule, last run, last result, next run, holder', tags },
    })
    .post('/jobs/:name/run', ({ params, body, admin }) => jobs.run(params.name, { wait: true, trigger: `api:${admin.by}`, params: body?.params ?? {} }), {
      params: JobParams,
      body: JobRun,
      response: { 200: JobOutcome, ...errors('not_found', 'job_running') },
      detail: { summary: 'Run a job now and answer its summary (admin JWT or the local operator token)', tags },
    });
}
