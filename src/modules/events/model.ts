/** The events module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { FpaError } from '../../platform/errors';
import { Instant, Int, QueryInt, Text } from '../../platform/http/model';

/** `?type=a,b`: event types, comma-separated. */
const Types = t.String({ pattern: '^[a-z_]{1,64}(,[a-z_]{1,64}){0,49}$', description: 'Event types to include, comma-separated (default: every type).' });
const After = t.String({ pattern: '^\\d{1,15}$', description: 'The last sequence already seen; 0 or absent for the start.' });

export const Event = t.Object({
  sequence: Int({ description: 'Position in the log; gap-free, in commit order.' }),
  id: t.String({ description: 'Stable id (`evt_…`): the `webhook-id` of every delivery of this event.' }),
  type: t.String({ description: 'The event type, e.g. `punch_received`.' }),
  at: Instant('When it was recorded.'),
  data: t.Record(t.String(), t.Unknown(), { description: 'Ids and facts; never template bytes, keys or secrets.' }),
});

/** An event as the API, the stream and webhooks show it. */
export type EventView = Static<typeof Event>;

export const EventList = {
  query: t.Object({
    after: t.Optional(After),
    type: t.Optional(Types),
    limit: t.Optional(QueryInt('limit', { minimum: 1, maximum: 1000, description: 'At most this many (default 100).' })),
  }),
  response: t.Object({
    results: t.Array(Event),
    last_sequence: Int({
      description: 'Pass as `after` in the next poll: the last event read, matched by `type` or not (the head when the page is not full).',
    }),
  }),
};

export const EventStreamQuery = t.Object({
  after: t.Optional(After),
  type: t.Optional(Types),
  access_token: t.Optional(Text({ maxLength: 4096, description: 'Administrator JWT, for browsers that cannot set headers on a WebSocket.' })),
});

/**
 * Event types of a `type` query parameter, each one of `known`: a mistyped type is a 400 naming
 * it, not a feed that stays empty for ever.
 */
export function typesOf(type: string | undefined, known: readonly string[]): string[] | undefined {
  if (!type) return undefined;
  const types = [...new Set(type.split(','))];
  const unknown = types.filter((t) => !known.includes(t));
  if (unknown.length > 0) throw new FpaError('validation_error', `type must be one or more of: ${known.join(', ')}`, { field: 'type', unknown });
  return types;
}
