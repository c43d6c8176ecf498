/** The events module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { FpaError } from '../../platform/errors';
import { DigitsText, Instant, Int, OneOf, QueryInt, Text } from '../../platform/http/model';

/** `?type=a,b`: event types, comma-separated. */
const Types = t.String({ pattern: '^[a-z_]{1,64}(,[a-z_]{1,64}){0,49}$', description: 'Event types to include, comma-separated (default: every type).' });
const After = DigitsText('The last sequence already seen; 0 or absent for the start.');

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
    order: t.Optional(
      OneOf(
        ['asc', 'desc'],
        '`asc` (default): the events after `after`, oldest first, to follow the log. `desc`: the newest first, before `before` (default: the newest of all), after `after` if given.',
      ),
    ),
    before: t.Optional(DigitsText('With `order=desc`: the events before this sequence (the `last_sequence` of the page read before).')),
  }),
  response: t.Object({
    results: t.Array(Event),
    last_sequence: Int({
      description:
        'Ascending: pass as `after` in the next poll: the last event read, matched by `type` or not (the head when the page is not full). `order=desc`: pass as `before` for the events before these: the oldest event read, or `after` (0) once none is left before it.',
    }),
  }),
};

/** `order=desc` and where it starts (`before`); a `before` without it is a 400 naming it (`after` is the way forward). */
export function readingBack(query: { order?: 'asc' | 'desc'; before?: string }): { before?: number } | null {
  if (query.order === 'desc') return { before: query.before === undefined ? undefined : Number(query.before) };
  if (query.before !== undefined) throw new FpaError('validation_error', 'before reads the log newest first: give order=desc with it', { field: 'before' });
  return null;
}

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
