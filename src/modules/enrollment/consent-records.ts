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
