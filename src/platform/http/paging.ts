/**
 * Keyset paging with the opaque cursor of docs/api.md. A cursor holds the name of the list that
 * gave it and the keys of the last row shown: a list takes only its own cursors, so another
 * list's (whose keys may well have the same kinds: two lists paged by sequence) or a made-up
 * one is `invalid_cursor`, never read as a place in this list.
 */

import { FpaError } from '../errors';
import { type CursorValue, decodeCursor, encodeCursor } from './cursor';

export interface Page<T> {
  results: T[];
  next_cursor: string | null;
}

/** What a cursor's key must be: text, or an integer (an id, a sequence, a time in ms). */
export type CursorKey = 'text' | 'integer';

/**
 * Every paged list, by the name its cursors carry (one name per list, and per order of a list
 * that can be sorted several ways: a name shared by two would let each take the other's cursors).
 */
const PAGED_LISTS = [
  'anomalies',
  'api-keys',
  'areas',
  'area-members-by-name-key',
  'attendance-days',
  'attendance-summary',
  'audit-log',
  'device-commands',
  'device-commands-newest',
  'device-users',
  'devices',
  'employees',
  'enrollees',
  'enrollee-consents',
  'enrollees-by-name-key',
  'enrollees-by-employee',
  'enrollees-by-pin',
  'enrollees-newest',
  'enrollment-agents',
  'enrollment-sessions',
  'holidays',
  'leaves',
  'pay-periods',
  'punches',
  'roster-by-name-key',
  'shift-assignments',
  'users',
  'webhook-deliveries',
  'webhook-messages',
  'webhooks',
  'weekends',
  'work-schedules',
] as const;

export type ListName = (typeof PAGED_LISTS)[number];

const invalidCursor = () =>
  new FpaError(
    'invalid_cursor',
    'the cursor is not valid: it was not given by this list with these filters, or by an earlier release (start the walk again)',
    {},
  );

function fits(value: CursorValue, kind: CursorKey): boolean {
  return kind === 'text' ? typeof value === 'string' : typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * The keys of a cursor of `list`, checked against the keys that list pages on (their number and
 * kinds), or null when there is none. A cursor that is not one this list could have given (made
 * up, tampered with, another list's) is `invalid_cursor`: its values are never bound as keys of
 * another kind (NaN, a float, text compared with an id), nor as a place in another list.
 */
export function cursorKeys(list: ListName, cursor: string | undefined, kinds: readonly CursorKey[]): CursorValue[] | null {
  if (cursor === undefined || cursor === '') return null;
  const decoded = decodeCursor(cursor);
  if (!decoded || decoded[0] !== list) throw invalidCursor();
  const keys = decoded.slice(1);
  if (keys.length !== kinds.length || !keys.every((v, i) => fits(v, kinds[i]!))) throw invalidCursor();
  return keys;
}

/** The cursor of `list` after a row with these keys. */
export function cursorOf(list: ListName, keys: readonly CursorValue[]): string {
  return encodeCursor([list, ...keys]);
}

/** The cursor of a list paged on one text key. */
export function textCursor(list: ListName, cursor: string | undefined): string | null {
  const keys = cursorKeys(list, cursor, ['text']);
  return keys ? String(keys[0]) : null;
}

/** The cursor of a list paged on one integer key (an id, a sequence). */
export function integerCursor(list: ListName, cursor: string | undefined): number | null {
  const keys = cursorKeys(list, cursor, ['integer']);
  return keys ? Number(keys[0]) : null;
}

/** Takes `limit + 1` fetched rows and builds the page of `list` with the next cursor. */
export function pageOf<R, T>(list: ListName, rows: R[], limit: number, keyOf: (row: R) => string | number, view: (rows: R[]) => T[]): Page<T> {
  const page = rows.slice(0, limit);
  return {
    results: view(page),
    next_cursor: rows.length > limit ? cursorOf(list, [keyOf(page[page.length - 1]!)]) : null,
  };
}

/** A cursor of two text keys (a name and an id), or null; `invalid_cursor` when it is not one of `list`. */
export function twoKeyCursor(list: ListName, cursor: string | undefined): [string, string] | null {
  const keys = cursorKeys(list, cursor, ['text', 'text']);
  return keys ? [String(keys[0]), String(keys[1])] : null;
}

/** A cursor of a time (ms) and a text id, or null; `invalid_cursor` when it is not one of `list`. */
export function timeIdCursor(list: ListName, cursor: string | undefined): { time: number; id: string } | null {
  const keys = cursorKeys(list, cursor, ['integer', 'text']);
  return keys ? { time: Number(keys[0]), id: String(keys[1]) } : null;
}
