/**
 * The listing of stored punches (`punches/`): filtered, newest first, cursor-paged by sequence;
 * an employee's page read through the enrollee index.
 */

import type { InValue } from '@libsql/client';
import { and, desc, eq, getTableName, inArray, lt, type SQL } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import { placeholders } from '../../platform/db/placeholders';
import { cursorOf, integerCursor } from '../../platform/http/paging';
import { instantFilter } from '../../platform/time/dates';
import type { EnrolleeService } from '../enrollees';
import { BUCKET_SQL, bucketOf, bucketsBetween, punchedWithin } from './buckets';
import type { PunchRuntime } from './runtime';
import { bucketEdges } from './spans';
import type { PunchRow } from './tables';
import { type PunchSource, punches } from './tables';
import { punchView } from './view';

/** The filters of `punches/`. */
export interface PunchListFilters {
  employee?: string;
  device?: string;
  source?: PunchSource;
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

/** `punches/`: filtered, newest first, cursor-paged by sequence. */
export async function listPunches(ctx: PunchRuntime, enrollees: EnrolleeService, filters: PunchListFilters, seen?: SQL) {
  const zone = ctx.settings.ATTENDANCE_TIME_ZONE;
  const { start, end } = instantFilter(filters, zone);
  const before = integerCursor('punches', filters.cursor);
  const limit = filters.limit;
  const rows = filters.employee
    ? await pageOfEmployee(ctx, enrollees, filters.employee, { ...filters, start, end, before, seen })
    : await ctx.db.orm
        .select()
        .from(punches)
        .where(
          and(
            filters.source ? eq(punches.source, filters.source) : undefined,
            filters.device ? eq(punches.deviceSerial, filters.device) : undefined,
            start !== null || end !== null ? punchedWithin(start, end) : undefined,
            before !== null ? lt(punches.sequence, before) : undefined,
            seen,
          ),
        )
        .orderBy(desc(punches.sequence))
        .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    results: page.map(punchView),
    next_cursor: rows.length > limit ? cursorOf('punches', [page[page.length - 1]!.sequence]) : null,
  };
}

/**
 * One page (limit + 1 rows, newest first) of an employee's punches, by the enrollee index: no
 * index leads with the employee (one would cost every stored punch a random page), so the
 * employee's enrollee ids and the day buckets of the range are sought as IN-lists, reading
 * only the index (it holds the sequence, the rowid). Their sequences are sorted here and the
 * page's rows fetched by sequence. The work grows with this person's punches in the range,
 * not with the table. Without a bound the range runs from the first day bucket holding any
 * punch to the last (the index's edges).
 */
async function pageOfEmployee(
  ctx: PunchRuntime,
  enrollees: EnrolleeService,
  employee: string,
  f: { device?: string; source?: PunchSource; start: number | null; end: number | null; before: number | null; limit: number; seen?: SQL },
): Promise<PunchRow[]> {
  const ids = await enrollees.idsOfEmployee(employee);
  if (ids.length === 0) return [];
  const edges = f.start === null || f.end === null ? await bucketEdges((statement) => ctx.db.client.execute(statement)) : null;
  if (edges === null && (f.start === null || f.end === null)) return [];
  const first = f.start !== null ? bucketOf(f.start) : edges!.first;
  const last = f.end !== null ? bucketOf(f.end - 1) : edges!.last;
  if ((f.start !== null && f.end !== null && !(f.end > f.start)) || last < first) return [];
  const sequences: number[] = [];
  for (const buckets of bucketsBetween(first, last)) {
    for (const chunk of chunks(ids, 400)) {
      const bounds: [string, InValue][] = [];
      if (f.start !== null) bounds.push(['punched_at >= ?', f.start]);
      if (f.end !== null) bounds.push(['punched_at < ?', f.end]);
      if (f.source) bounds.push(['source = ?', f.source]);
      if (f.before !== null) bounds.push(['sequence < ?', f.before]);
      const extra = bounds.map(([condition]) => ` and ${condition}`).join('');
      const args: InValue[] = [...buckets, ...chunk, ...bounds.map(([, value]) => value)];
      const found = await ctx.db.client.execute({
        sql: `select sequence from ${getTableName(punches)} indexed by fpa_punches_enrollee_day where ${BUCKET_SQL} in (${placeholders(buckets.length)}) and enrollee_id in (${placeholders(chunk.length)})${extra}`,
        args,
      });
      for (const r of found.rows) sequences.push(Number(r.sequence));
    }
  }
  sequences.sort((a, b) => b - a);
  // The rows, newest first, until the page is full: the employee key (and terminal) are checked
  // on the row, which the index does not hold.
  const rows: PunchRow[] = [];
  const want = f.limit + 1;
  for (let i = 0; i < sequences.length && rows.length < want; ) {
    const slice = sequences.slice(i, i + Math.max(want - rows.length, 100));
    i += slice.length;
    const found = await ctx.db.orm
      .select()
      .from(punches)
      .where(and(inArray(punches.sequence, slice), eq(punches.employeeKey, employee), f.device ? eq(punches.deviceSerial, f.device) : undefined, f.seen))
      .orderBy(desc(punches.sequence));
    rows.push(...found.slice(0, want - rows.length));
  }
  return rows;
}
