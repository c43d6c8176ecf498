/** Keyset paging over a single text or number column, with the opaque cursor of docs/api.md. */

import { FpaError } from '../errors';
import { type CursorValue, decodeCursor, encodeCursor } from './cursor';

export interface Page<T> {
  results: T[];
  next_cursor: string | null;
}

/** What a cursor's key must be: text, or an integer (an id, a sequence, a time in ms). */
export type CursorKey = 'text' | 'integer';

const invalidCursor = () => new FpaError('invalid_cursor', 'the cursor is not valid', {});

function fits(value: CursorValue, kind: CursorKey): boolean {
  return kind === 'text' ? typeof value === 'string' : typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * The keys of a list's cursor, checked against the keys that list pages on (their number and
 * kinds), or null when there is none. A cursor that is not one the list could have given (made
 * up, tampered with, from another list) is `invalid_cursor`: its values are never bound as keys
 * of another kind (NaN, a float, text compared with an id).
 */
export function cursorKeys(cursor: string | undefined, kinds: readonly CursorKey[]): CursorValue[] | null {
  if (cursor === undefined || cursor === '') return null;
  const decoded = decodeCursor(cursor);
  if (!decoded || decoded.length !== kinds.length || !decoded.every((v, i) => fits(v, kinds[i]!))) throw invalidCursor();
  return decoded;
}

/** The cursor of a list paged on one text key. */
export function textCursor(cursor: string | undefined): string | null {
  const keys = cursorKeys(cursor, ['text']);
  return keys ? String(keys[0]) : null;
}

/** The cursor of a list paged on one integer key (an id, a sequence). */
export function integerCursor(cursor: string | undefined): number | null {
  const keys = cursorKeys(cursor, ['integer']);
  return keys ? Number(keys[0]) : null;
}

/** Takes `limit + 1` fetched rows and builds the page with the next cursor. */
export function pageOf<R, T>(rows: R[], limit: number, keyOf: (row: R) => string | number, view: (rows: R[]) => T[]): Page<T> {
  const page = rows.slice(0, limit);
  return {
    results: view(page),
    next_cursor: rows.length > limit ? encodeCursor([keyOf(page[page.length - 1]!)]) : null,
  };
}

/** A cursor of two text keys (a name and an id), or null; `invalid_cursor` when it is not one. */
export function twoKeyCursor(cursor: string | undefined): [string, string] | null {
  const keys = cursorKeys(cursor, ['text', 'text']);
  return keys ? [String(keys[0]), String(keys[1])] : null;
}

/** A cursor of a time (ms) and a text id, or null; `invalid_cursor` when it is not one. */
export function timeIdCursor(cursor: string | undefined): { time: number; id: string } | null {
  const keys = cursorKeys(cursor, ['integer', 'text']);
  return keys ? { time: Number(keys[0]), id: String(keys[1]) } : null;
}
