/** `punches/latest/` (polling by sequence) and `punches/` (filtered, cursor-paged), docs/api.md. */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { PunchLatest, PunchList } from './model';
import type { PunchService } from './service';

const tags = ['punches'];

export function punchRoutes(http: Http, punches: PunchService) {
  return adminRouter(http, 'punches')
    .get('/punches/latest', ({ query }) => punches.latest(query.after === undefined ? 0 : Number(query.after), query.limit ?? 100), {
      query: PunchLatest.query,
      response: { 200: PunchLatest.response, ...errors() },
      detail: { summary: 'Punches after a sequence, ascending, for polling', tags },
    })
    .get(
      '/punches',
      ({ query }) =>
        punches.list({
          employee: query.employee || undefined,
          device: query.device || undefined,
          from: query.from || undefined,
          to: query.to || undefined,
          cursor: query.cursor || undefined,
          limit: query.limit ?? 100,
        }),
      {
        query: PunchList.query,
        response: { 200: PunchList.response, ...errors('invalid_cursor') },
        detail: { summary: 'List punches, newest first', tags },
      },
    );
}
