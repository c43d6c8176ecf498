/** The shapes the enrollees' service answers with, and what other modules add to them. */
import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../platform/db/client';
import type { EnrolleeRef } from './events';
import type { Enrollee } from './model';
import type { EnrolleeRow } from './tables';

export type EnrolleeView = Static<typeof Enrollee>;

export interface EnrolleePatch {
  areas?: string[];
  display_name?: string;
  card?: string | null;
  active?: boolean;
}

/** The fields of the enrollee view that modules above this one (enrollment, proofs) contribute. */
export type ViewParts = Pick<EnrolleeView, 'consent' | 'consent_withdrawn' | 'has_deletion_proof' | 'fingers' | 'biometrics'>;

/** Parts of the enrollee view contributed by modules above this one. */
export type ViewPart = (q: Queryable, ids: readonly string[]) => Promise<Map<string, Partial<ViewParts>>>;

export function enrolleeRef(row: EnrolleeRow): EnrolleeRef {
  return { id: row.id, employee: row.employeeKey, device_pin: row.devicePin, display_name: row.displayName, card: row.card };
}
