/** `anomalies/` (API.md, "Proof"). */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { AnomalyList, AnomalyQuery } from './model';
import type { Anomalies } from './service';

export function anomalyRoutes(http: Http, anomalies: Anomalies) {
  return adminRouter(http, 'anomalies').get('/anomalies', ({ query, admin }) => anomalies.list(query, admin), {
    query: AnomalyQuery,
    response: { 200: AnomalyList, ...errors('validation_error', 'invalid_cursor', 'not_found') },
    detail: {
      summary:
        'Punches that deserve a look (a PIN or card where the terminal holds the person’s biometric, impossible travel, a punch on leave, a repeated punch), newest first, within the caller’s areas; never a change to attendance',
      tags: ['punches'],
    },
  });
}
