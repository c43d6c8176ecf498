/** `punches/latest/` (polling by sequence), `punches/` (filtered, cursor-paged) and the corrections, docs/api.md. */
import { Elysia } from 'elysia';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import type { PunchCorrections } from './corrections';
import { PunchImport, PunchLatest, PunchList, PunchManual, PunchVoid } from './model';
import type { PunchService } from './service';

const tags = ['punches'];

export function punchRoutes(http: Http, punches: PunchService, corrections: PunchCorrections) {
  return new Elysia({ name: 'fpa-punch-routes', seed: http.runtime.instanceId })
    .use(readRoutes(http, punches))
    .use(correctionRoutes(http, corrections))
    .use(importRoute(http, corrections));
}

function readRoutes(http: Http, punches: PunchService) {
  return adminRouter(http, 'punches')
    .get('/punches/latest', ({ query, scope }) => punches.latest(query.after === undefined ? 0 : Number(query.after), query.limit ?? 100, scope), {
      query: PunchLatest.query,
      response: { 200: PunchLatest.response, ...errors('cursor_ahead') },
      detail: {
        summary: 'Punches after a sequence, ascending, for polling',
        tags,
        description:
          'An `after` beyond every sequence ever handed out is refused with 409 `cursor_ahead` and the head in `details.last_sequence`: the database was restored from an older copy without its counters; read on after that head (README "Backups").',
      },
    })
    .get(
      '/punches',
      ({ query, scope }) =>
        punches.list(
          {
            employee: query.employee || undefined,
            device: query.device || undefined,
            source: query.source,
            from: query.from || undefined,
            to: query.to || undefined,
            cursor: query.cursor || undefined,
            limit: query.limit ?? 100,
          },
          scope,
        ),
      {
        query: PunchList.query,
        response: { 200: PunchList.response, ...errors('invalid_cursor') },
        detail: { summary: 'List punches, newest first', tags },
      },
    );
}

function correctionRoutes(http: Http, corrections: PunchCorrections) {
  return adminRouter(http, 'punch-corrections')
    .post(
      '/punches/manual',
      async ({ body, admin, scope, set }) => {
        const punch = await corrections.manual(body, admin.by, scope);
        set.status = 201;
        return punch;
      },
      {
        body: PunchManual.body,
        response: { 201: PunchManual.response, ...errors('not_found', 'conflict') },
        detail: { summary: 'Enter a punch by hand (source `manual`), with the reason; audited', tags },
      },
    )
    .post('/punches/:id/void', ({ params, body, admin, scope }) => corrections.void(params.id, body.reason, admin.by, scope), {
      params: PunchVoid.params,
      body: PunchVoid.body,
      response: { 200: PunchVoid.response, ...errors('not_found', 'conflict') },
      detail: { summary: 'Void a punch: it stays listed (`voided: true`) and no longer counts; audited', tags },
    });
}

// Its own router: the body is CSV or a JSON array, not the JSON object of every other route.
function importRoute(http: Http, corrections: PunchCorrections) {
  return adminRouter(http, 'punch-import', { body: 'records' }).post(
    '/punches/import',
    ({ body, query, admin, scope }) => corrections.import(body, admin.by, scope, { dryRun: query.dry_run === true }),
    {
      body: PunchImport.body,
      query: PunchImport.query,
      response: { 200: PunchImport.response, ...errors() },
      detail: {
        summary:
          'Import punches (source `import`): `text/csv` with the header `employee,at,state`, or a JSON array of the same fields; `?dry_run=true` stores nothing',
        tags,
        description:
          'Good records are stored, bad ones are reported by line and nothing of them is stored; a punch already stored (same enrollee, same instant) counts as a duplicate, so importing a corrected file again is safe.',
      },
    },
  );
}
