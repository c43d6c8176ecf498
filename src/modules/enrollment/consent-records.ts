/** Reading consent records: shared by consent changes (consent.ts) and store_template's check (template-store.ts). */
import { and, eq, isNull } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import type { ConsentView } from '../enrollees';
import { consents } from './tables';

export async function hasConsent(q: Queryable, enrolleeId: string): Promise<boolean> {
  const [row] = await q
    .select({ id: consents.id })
    .from(consents)
    .where(and(eq(consents.enrolleeId, enrolleeId), isNull(consents.withdrawnAt)))
    .limit(1);
  return row !== undefined;
}

export function consentView(c: { version: string; method: string; givenBy: string; givenAt: number }): ConsentView {
  return { version: c.version, method: c.method, given_by: c.givenBy, given_at: new Date(c.givenAt).toISOString() };
}

/**
 * When this person's consent was last withdrawn (or ended by their deletion); null if never. A
 * consent replaced by a new one (its end is the next one's start) was not withdrawn.
 */
export async function lastWithdrawnAt(q: Queryable, enrolleeId: string): Promise<number | null> {
  const rows = await q.select({ givenAt: consents.givenAt, withdrawnAt: consents.withdrawnAt }).from(consents).where(eq(consents.enrolleeId, enrolleeId));
  const starts = new Set(rows.map((r) => r.givenAt));
  const ends = rows.flatMap((r) => (r.withdrawnAt !== null && !starts.has(r.withdrawnAt) ? [r.withdrawnAt] : []));
  return ends.length === 0 ? null : Math.max(...ends);
}
