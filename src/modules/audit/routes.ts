/** `audit-log/` (docs/api.md): who did what, newest first. */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { AuditList } from './model';
import type { AuditService } from './service';

export function auditRoutes(http: Http, audit: AuditService) {
  return adminRouter(http, 'audit-log').get('/audit-log', ({ query }) => audit.list({ ...query, limit: query.limit ?? 100 }), {
    query: AuditList.query,
    response: { 200: AuditList.response, ...errors('invalid_cursor') },
    detail: { summary: 'The audit log: actor, action, target, time and details, newest first', tags: ['operations'] },
  });
}
