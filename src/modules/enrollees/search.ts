/**
 * `GET enrollees/` with search, filters and sorts (API.md "HR at a glance"): keyset-paged on the
 * sort's own index, so a page costs a seek and a short walk whatever the page's depth.
 *
 * - `search`: every word of it is a part of the name (ignoring case and accents), or the whole
 *   of it starts the employee id, is the PIN, or is the card (leading zeros dropped).
 * - `area`: a member of that area (by name). `status`: active or deactivated (never the deleted).
 * - `consent` and `biometrics`: conditions the enrollment module contributes (`addListFilter`),
 *   answered from its indexes by enrollee.
 * - `sort`: `name` (ignoring case and accents, as the search: `Ångström` under A; by the folded
 *   name stored with it, platform/name-key.ts), `employee`, `pin` (numeric: 1, 11, 10020),
 *   `-created_at` (newest first); without it, by id as before.
 * - `ids`: exactly these people (ids separated by commas): a page naming people by id (the
 *   console's punch list, anomalies) asks for those, not for everyone.
 * - `scope`: the caller's areas (empty: everywhere); people in none of them are left out.
 */
import { and, eq, inArray, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { type CursorKey, cursorKeys, cursorOf, type ListName } from '../../platform/http/paging';
import { nameKey } from '../../platform/name-key';
import { type EnrolleeRow, enrolleeAreas, enrollees } from './tables';

export const ENROLLEE_SORTS = ['name', 'employee', 'pin', '-created_at'] as const;
export type EnrolleeSort = (typeof ENROLLEE_SORTS)[number];

export interface EnrolleeListFilters {
  employee?: string;
  device_pin?: string;
  search?: string;
  /** Enrollee ids separated by commas (the HTTP model bounds how many). */
  ids?: string;
  area?: string;
  status?: 'active' | 'deactivated';
  consent?: 'given' | 'missing';
  biometrics?: 'none' | 'some';
  sort?: EnrolleeSort;
  /** The caller's areas (names); empty or absent: everywhere. */
  scope?: readonly string[];
  cursor?: string;
  limit: number;
}

/** A condition another module answers: `consent` (given|missing), `biometrics` (none|some). */
export type ListFilter = (value: string, enrolleeId: SQL) => SQL;

/**
 * Each sort: the key expressions in order (the last is the id, unique), whether descending, and
 * the kinds of its cursor's keys (a cursor of another sort is refused).
 */
/** Each order of the list, with its cursor's own list name (a cursor of one order is not one of another). */
const SORT_KEYS: Record<EnrolleeSort | 'id', { list: ListName; keys: SQL[]; desc: boolean; cursor: CursorKey[]; of: (r: EnrolleeRow) => (string | number)[] }> =
  {
    id: { list: 'enrollees', keys: [sql`${enrollees.id}`], desc: false, cursor: ['text'], of: (r) => [r.id] },
    // By the folded name (its cursor holds the key, not the name: a cursor of the order by
    // `display_name collate nocase` of earlier releases is another list's, refused).
    name: {
      list: 'enrollees-by-name-key',
      keys: [sql`${enrollees.nameKey}`, sql`${enrollees.id}`],
      desc: false,
      cursor: ['text', 'text'],
      of: (r) => [r.nameKey, r.id],
    },
    employee: {
      list: 'enrollees-by-employee',
      keys: [sql`${enrollees.employeeKey}`, sql`${enrollees.id}`],
      desc: false,
      cursor: ['text', 'text'],
      of: (r) => [r.employeeKey, r.id],
    },
    pin: {
      list: 'enrollees-by-pin',
      keys: [sql`cast(${enrollees.devicePin} as integer)`, sql`${enrollees.id}`],
      desc: false,
      cursor: ['integer', 'text'],
      of: (r) => [Number(r.devicePin), r.id],
    },
    '-created_at': {
      list: 'enrollees-newest',
      keys: [sql`${enrollees.createdAt}`, sql`${enrollees.id}`],
      desc: true,
      cursor: ['integer', 'text'],
      of: (r) => [r.createdAt, r.id],
    },
  };

/** `%`, `_` and the escape itself taken literally in a LIKE pattern (escape `\`). */
const likeText = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Folded names (`Díaz` is found by `diaz`), remembered: every search reads every name. Emptied
 * when it grows past the bound. (The sort reads the stored key; the search folds what it reads, as
 * before, so a name stored before its key was filled is found all the same.)
 */
const folded = new Map<string, string>();
const FOLDED_MAX = 200_000;

function foldedName(name: string): string {
  let out = folded.get(name);
  if (out === undefined) {
    if (folded.size >= FOLDED_MAX) folded.clear();
    out = nameKey(name);
    folded.set(name, out);
  }
  return out;
}

/**
 * Whose name holds every word of the search. SQLite folds neither accents nor non-ASCII case, so
 * the names (id and name only) are matched here: 10,000 names take a few milliseconds, and a part
 * of a name can use no b-tree index anyway.
 */
async function namesMatching(q: Queryable, search: string): Promise<string[]> {
  const words = nameKey(search).split(/\s+/).filter(Boolean);
  const rows = await q.select({ id: enrollees.id, name: enrollees.displayName }).from(enrollees).where(ne(enrollees.status, 'deleted'));
  return rows
    .filter((r) => {
      const name = foldedName(r.name);
      return words.every((w) => name.includes(w));
    })
    .map((r) => r.id);
}

async function searchCondition(q: Queryable, search: string): Promise<SQL | undefined> {
  const text = search.trim();
  if (text === '') return undefined;
  const named = await namesMatching(q, text);
  const matches: SQL[] = [sql`${enrollees.employeeKey} like ${`${likeText(text)}%`} escape '\\'`];
  if (named.length > 0) matches.push(sql`${enrollees.id} in (select value from json_each(${JSON.stringify(named)}))`);
  if (/^\d{1,20}$/.test(text)) {
    matches.push(eq(enrollees.devicePin, text));
    matches.push(eq(enrollees.card, text.replace(/^0+(?=\d)/, '')));
  }
  return or(...matches);
}

/** Members of any of these areas (by name). */
function inAreas(names: readonly string[]): SQL {
  return sql`exists (select 1 from ${enrolleeAreas} ea join fpa_areas a on a.id = ea.area_id where ea.enrollee_id = ${enrollees.id} and a.name in (${sql.join(
    names.map((n) => sql`${n}`),
    sql`, `,
  )}))`;
}

export async function searchEnrollees(
  q: Queryable,
  filters: EnrolleeListFilters,
  extra: ReadonlyMap<string, ListFilter>,
): Promise<{ rows: EnrolleeRow[]; next_cursor: string | null }> {
  const sort = SORT_KEYS[filters.sort ?? 'id'];
  const conditions: (SQL | undefined)[] = [ne(enrollees.status, 'deleted')];
  if (filters.employee) conditions.push(eq(enrollees.employeeKey, filters.employee));
  if (filters.device_pin) conditions.push(eq(enrollees.devicePin, filters.device_pin));
  if (filters.status) conditions.push(eq(enrollees.status, filters.status));
  if (filters.search) conditions.push(await searchCondition(q, filters.search));
  if (filters.ids) conditions.push(inArray(enrollees.id, [...new Set(filters.ids.split(','))]));
  if (filters.area) conditions.push(inAreas([filters.area]));
  if (filters.scope && filters.scope.length > 0) conditions.push(inAreas(filters.scope));
  for (const name of ['consent', 'biometrics'] as const) {
    const value = filters[name];
    const filter = extra.get(name);
    if (value && filter) conditions.push(filter(value, sql`${enrollees.id}`));
  }
  if (filters.cursor) {
    const after = cursorKeys(sort.list, filters.cursor, sort.cursor) ?? [];
    // A row value comparison: SQLite seeks the sort's index to it.
    const keys = sql.join(sort.keys, sql`, `);
    const values = sql.join(
      after.map((v) => sql`${v}`),
      sql`, `,
    );
    conditions.push(sort.desc ? sql`(${keys}) < (${values})` : sql`(${keys}) > (${values})`);
  }
  const order = sort.keys.map((k) => (sort.desc ? sql`${k} desc` : sql`${k} asc`));
  const rows = await q
    .select()
    .from(enrollees)
    .where(and(...conditions))
    .orderBy(...order)
    .limit(filters.limit + 1);
  const page = rows.slice(0, filters.limit);
  const last = page[page.length - 1];
  return { rows: page, next_cursor: rows.length > filters.limit && last ? cursorOf(sort.list, sort.of(last)) : null };
}
