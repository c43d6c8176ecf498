/** Templates that cannot reach a terminal (the diagnostics): its algorithm refused them, or it is full. */
import { and, eq, exists, like, ne, not, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Queryable } from '../../platform/db/client';
import { templateSync, templates } from './tables';

export interface TemplatesNotReaching {
  deviceId: string;
  /** `incompatible`: the terminal cannot use their algorithm; `full`: it had no room. */
  reason: 'incompatible' | 'full';
  templates: number;
  people: number;
  /** Algorithm versions of those templates. */
  algorithms: string[];
  since: number;
}

/** Another version of the same body part of the same person goes to (or is on) that terminal. */
function otherVersionReaches(q: Queryable) {
  const other = alias(templates, 'other');
  const otherSync = alias(templateSync, 'other_sync');
  return q
    .select({ one: sql`1` })
    .from(otherSync)
    .innerJoin(other, eq(other.id, otherSync.templateId))
    .where(
      and(
        eq(otherSync.deviceId, templateSync.deviceId),
        eq(other.enrolleeId, templates.enrolleeId),
        eq(other.type, templates.type),
        eq(other.fingerIndex, templates.fingerIndex),
        ne(otherSync.status, 'incompatible'),
      ),
    );
}

/**
 * Per terminal and reason, the templates that did not reach it: refused for their algorithm
 * (unless another version of the same finger goes there: re-enrolled at it), or the terminal full.
 */
export async function templatesNotReaching(q: Queryable): Promise<TemplatesNotReaching[]> {
  const full = and(eq(templateSync.status, 'failed'), or(like(templateSync.detail, '%-1001%'), like(templateSync.detail, '%full%')));
  const rows = await q
    .select({
      deviceId: templateSync.deviceId,
      reason: sql<'incompatible' | 'full'>`case when ${templateSync.status} = 'incompatible' then 'incompatible' else 'full' end`,
      templates: sql<number>`count(*)`,
      people: sql<number>`count(distinct ${templates.enrolleeId})`,
      algorithms: sql<string>`group_concat(distinct ${templates.algorithmVersion})`,
      since: sql<number>`min(${templateSync.updatedAt})`,
    })
    .from(templateSync)
    .innerJoin(templates, eq(templates.id, templateSync.templateId))
    .where(or(and(eq(templateSync.status, 'incompatible'), not(exists(otherVersionReaches(q)))), full))
    .groupBy(templateSync.deviceId, sql`2`);
  return rows.map((r) => ({ ...r, algorithms: (r.algorithms ?? '').split(',').filter(Boolean).sort() }));
}
