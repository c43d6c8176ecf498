/** `events/` (poll the log) and `events/stream/` (a WebSocket over it), docs/api.md. */
import { Elysia } from 'elysia';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { type StreamHub, type StreamQuota, streamRoute } from '../../platform/http/stream';
import { isLimited, type MembersOf } from '../../platform/scope';
import { EventList, EventStreamQuery, readingBack, typesOf } from './model';
import type { EventLog } from './service';

const tags = ['events'];

export function eventRoutes(http: Http, deps: { events: EventLog; hub: StreamHub; quota: StreamQuota; members: MembersOf; eventTypes: readonly string[] }) {
  const { events, hub, quota, members, eventTypes } = deps;
  const poll = adminRouter(http, 'events').get(
    '/events',
    async ({ query, scope }) => {
      const after = query.after === undefined ? 0 : Number(query.after);
      const [back, types] = [readingBack(query), typesOf(query.type, eventTypes)];
      return events.page({ after, limit: query.limit ?? 100, types, back, members: isLimited(scope) ? await members(scope) : null });
    },
    {
      query: EventList.query,
      response: { 200: EventList.response, ...errors('cursor_ahead') },
      detail: {
        summary: 'The durable log of every domain event, after a sequence, ascending (or the newest first)',
        tags,
        description:
          'An `after` beyond every sequence ever handed out is refused with 409 `cursor_ahead`, as on `punches/latest/`. `order=desc` reads the newest first (the console’s recent events), page after page back with `before`.',
      },
    },
  );
  // The stream authenticates itself (a browser passes the token as `access_token`).
  return new Elysia({ name: 'fpa-events-api', seed: http.runtime.instanceId }).use(poll).use(
    streamRoute(http, {
      name: 'event-stream',
      path: '/events/stream',
      hub,
      source: events.streamSource(),
      quota,
      members,
      query: EventStreamQuery,
      kinds: (query) => {
        const types = typesOf(query.type, eventTypes);
        return types ? new Set(types) : null;
      },
      detail: {
        summary: 'WebSocket: one JSON message per event (as `events/`), oldest first, then live',
        tags,
        description: 'Like `punches/stream/`, for every event type; `?after=` resumes (4409 beyond the head, as there), `?type=` filters.',
      },
    }),
  );
}
