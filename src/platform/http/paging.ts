/** Keyset paging over a single text or number column, with the opaque cursor of docs/api.md. */

import { FpaError } from '../errors';
import { decodeCursor, encodeCursor } from './cursor';

export interface Page<T> {
  results: T[];
  next_cursor: string | null;
}

export function readCursor(cursor: string | undefined): string | number | null {
  if (cursor === undefined || cursor === '') return null;
  const decoded = decodeCursor(cursor);
  const first = decoded?.[0];
  if (first === undefined) throw new FpaError('invalid_cursor', 'the cursor is not valid', {});
  return first;
}

/** A cursor of one text key (a PIN, a name), or null; `invalid_cursor` when it is not one. */
export function textCursor(cursor: string | undefined): string | null {
  const key = readCursor(cursor);
  if (typeof key === 'number') throw new FpaError('invalid_cursor', 'the cursor is not valid', {});
  return key;
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
  if (!cursor) return null;
  const decoded = decodeCursor(cursor);
  if (!decoded || typeof decoded[0] !== 'string' || typeof decoded[1] !== 'string') throw new FpaError('invalid_cursor', 'the cursor is not valid', {});
  return [decoded[0], decoded[1]];
}
