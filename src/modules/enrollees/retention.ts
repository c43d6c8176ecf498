/**
 * Retention of people who left: the tombstones of deleted enrollees lose what named them, and
 * deactivated enrollees are found for the modules that destroy what they hold
 * (`enrollees.retention`).
 */

import { and, asc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import type { EnrolleeRuntime } from './runtime';
import type { EnrolleeRow } from './tables';
import { enrollees } from './tables';

export class EnrolleeRetention {
  constructor(private readonly ctx: EnrolleeRuntime) {}

  /**
   * Deleted enrollees whose tombstone still names them, deleted before `cutoff`. The caller
   * keeps those whose PIN a terminal may still hold (`scrubDeleted`).
   */
  deletedBefore(cutoff: number, limit: number): Promise<{ id: string; devicePin: string }[]> {
    return this.ctx.db.orm
      .select({ id: enrollees.id, devicePin: enrollees.devicePin })
      .from(enrollees)
      .where(and(eq(enrollees.status, 'deleted'), lt(enrollees.updatedAt, cutoff), ne(enrollees.displayName, '')))
      .orderBy(asc(enrollees.updatedAt))
      .limit(limit);
  }

  /**
   * The tombstones of these deleted enrollees lose the person's name, employee key and PIN
   * (`~<id>` takes its place: unique, and no terminal PIN). The PIN counter only moves forward,
   * so the PIN is still never handed out again; only an explicit `pin` could take it again, once
   * nothing of the person is known on any terminal (the caller checks). Returns how many.
   */
  async scrubDeleted(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.ctx.db.write(async ({ tx }) => {
      let n = 0;
      for (const chunk of chunks(ids, 500)) {
        const rows = await tx
          .update(enrollees)
          .set({ displayName: '', nameKey: '', employeeKey: '', devicePin: sql`'~' || ${enrollees.id}`, card: null })
          .where(and(inArray(enrollees.id, [...chunk]), eq(enrollees.status, 'deleted')))
          .returning({ id: enrollees.id });
        n += rows.length;
      }
      return n;
    });
  }

  /** Those of `among` deactivated before `cutoff`. */
  async deactivatedBefore(q: Queryable, cutoff: number, among: readonly string[]): Promise<EnrolleeRow[]> {
    const out: EnrolleeRow[] = [];
    for (const ids of chunks(among, 500)) {
      out.push(
        ...(await q
          .select()
          .from(enrollees)
          .where(and(inArray(enrollees.id, ids), eq(enrollees.status, 'deactivated'), lt(enrollees.deactivatedAt, cutoff)))),
      );
    }
    return out;
  }
}
