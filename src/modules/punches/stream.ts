/**
 * `punches/stream/` (docs/api.md): a WebSocket replaying punches after a sequence, then live, one
 * JSON message per punch (the punch view). The hub itself is the platform's (platform/http/stream.ts).
 */
import { asc, desc, getTableName, gt } from 'drizzle-orm';
import { headBehind } from '../../platform/db/sequences';
import type { Http } from '../../platform/http/router';
import { type StreamHub, type StreamQuota, type StreamSource, streamRoute } from '../../platform/http/stream';
import type { MembersOf } from '../../platform/scope';
import { StreamQuery } from './model';
import type { PunchRuntime } from './runtime';
import { punches } from './tables';
import { punchView } from './view';

export function punchStreamSource(ctx: PunchRuntime): StreamSource {
  return {
    async read(after, limit) {
      const rows = await ctx.db.orm.select().from(punches).where(gt(punches.sequence, after)).orderBy(asc(punches.sequence)).limit(limit);
      // Whom it is about: a punch is its person's, or (a PIN no person holds) its terminal's.
      return rows.map((row) => ({
        position: row.sequence,
        kind: 'punch',
        message: JSON.stringify(punchView(row)),
        about: { enrollee: row.enrolleeId, device: row.deviceSerial },
      }));
    },
    async head() {
      const [row] = await ctx.db.orm.select({ sequence: punches.sequence }).from(punches).orderBy(desc(punches.sequence)).limit(1);
      return row?.sequence ?? 0;
    },
    beyondHead: (after) => headBehind(ctx.db, getTableName(punches), after),
  };
}

export function punchStreamRoutes(http: Http, deps: { hub: StreamHub; source: StreamSource; quota: StreamQuota; members: MembersOf }) {
  return streamRoute(http, {
    name: 'punch-stream',
    path: '/punches/stream',
    ...deps,
    query: StreamQuery,
    detail: {
      summary: 'WebSocket: one JSON message per punch, oldest first, then live',
      tags: ['punches'],
      description:
        'Upgrade to a WebSocket with `Authorization: Bearer <JWT>`, or `?access_token=` from a browser (a browser cannot set headers on a WebSocket), or the web console’s session cookie (only from the console’s own origin). Resumes after `?after=<sequence>`; without it only live punches come. Each message is one punch (the `Punch` schema). Closed with 4008 when the client falls behind, 4401 when its token expires, 4409 when `after` is beyond every sequence ever handed out (the database was restored from an older copy; the reason is `cursor_ahead last_sequence=<n>`: resume after that). An administrator (token subject) holding WEBSOCKET_MAX_PER_ADMIN open streams on the instance is refused with 429 `rate_limited` before the upgrade; a plain GET without the handshake is 426 `upgrade_required`.',
    },
  });
}
