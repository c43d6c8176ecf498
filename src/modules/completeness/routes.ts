/** `devices/{sn}/completeness/` (API.md, "Proof"). */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { SerialParams } from '../devices';
import { CompletenessQuery, CompletenessReport } from './model';
import type { Completeness } from './service';

export function completenessRoutes(http: Http, completeness: Completeness) {
  return adminRouter(http, 'completeness').get(
    '/devices/:serial/completeness',
    ({ params, query, admin }) => completeness.report(params.serial, { from: query.from, to: query.to }, admin),
    {
      params: SerialParams,
      query: CompletenessQuery,
      response: { 200: CompletenessReport, ...errors('not_found', 'validation_error') },
      detail: {
        summary:
          'Whether every punch a terminal holds is stored, per local date: stored, reported by the terminal (and when), recovered by re-uploads, and complete, recovering, gap or unknown',
        tags: ['devices'],
      },
    },
  );
}
