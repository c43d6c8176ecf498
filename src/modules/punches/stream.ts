/**
 * `punches/stream/` (docs/api.md): a WebSocket replaying punches after a sequence, then live, one
 * JSON message per punch (the punch view). The hub itself is the platform's (platform/http/stream.ts).
 */
import { asc, desc, gt } from 'drizzle-orm';
import type { Http } from '../../platform/http/router';
import { type StreamHub, type StreamQuota, type StreamSource, streamRoute } from '../../platform/http/stream';
import type { Runtime } from '../../platform/runtime';
import { StreamQuery } from './model';
import { punches } from './tables';
import { punchView } from './view';

export function punchStreamSource(ctx: Runtime): StreamSource {
  return {
    async read(after, limit) {
      const rows = await ctx.db.orm.select().from(punches).where(gt(punches.sequence, after)).orderBy(asc(punches.sequence)).limit(limit);
      return rows.map((row) => ({ position: row.sequence, kind: 'punch', message: JSON.stringify(punchView(row)) }));
    },
    async head() {
      const [row] = await ctx.db.orm.select({ sequence: punches.sequence }).from(punches).orderBy(desc(punches.sequence)).limit(1);
      return row?.sequence ?? 0;
    },
  };
}

export function punchStreamRoutes(http: Http, deps: { hub: StreamHub; source: StreamSource; quota: StreamQuota }) {
  return streamRoute(http, {
    name: 'punch-stream',
    path: '/punches/stream',
    ...deps,
    query: StreamQuery,
    detail: {
      summary: 'WebSocket: one JSON message per punch, oldest first, then live',
      tags: ['punches'],
      description:
        'Upgrade with `Authorization: Bearer <JWT>`, or `?access_token=` from a browser. Closed with 4008 when the client falls behind, 4401 when its token expires.',
    },
  });
}
