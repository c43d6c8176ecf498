/** Templates that cannot reach a terminal (the diagnostics), per kind: it does not read the kind, its algorithm refused them, or it is full. */
import { and, eq, exists, isNotNull, isNull, ne, not, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Queryable } from '../../platform/db/client';
import { type Refusal, templateSync, templates } from './tables';

/** The terminal refused the template's algorithm version (2022+ firmware). */
export const ALGORITHM_MISMATCH = -30;
/** The terminal has no room for the template. */
export const TERMINAL_FULL = -1001;

/**
 * The refusals kept here, as the command queue has them: a template sent (`update_template`)
 * and answered with one of these codes. The diagnostics say them as `templates_incompatible` and
 * `terminal_full`, so the failed commands of those answers are not said again.
 */
export const TEMPLATE_REFUSALS = { kind: 'update_template', returnCodes: [ALGORITHM_MISMATCH, TERMINAL_FULL] } as const;

export interface TemplatesNotReaching {
  deviceId: string;
  /** `incompatible`: the terminal cannot use them (it does not read the kind, or not their algorithm); `full`: it had no room. */
  reason: Refusal;
  /** Their kind (`fingerprint`, `visible_face`…): one entry per terminal, reason and kind. */
  type: string;
  templates: number;
  /** Body parts (a finger, a face, a palm), as people count them: a face or a palm comes as several templates. */
  parts: number;
  people: number;
  /** Algorithm versions of those templates. */
  algorithms: string[];
  /** Of those, how many the terminal itself refused (the others the service judged before sending), and with which return codes. */
  refusedByTerminal: number;
  returnCodes: number[];
  /** Algorithm versions of the templates the service judged before sending. */
  judgedAlgorithms: string[];
  /** When the oldest of these refusals first happened (a retry refused again does not move it). */
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
        or(isNull(otherSync.refusal), ne(otherSync.refusal, 'incompatible')),
      ),
    );
}

const list = (joined: string | null) => (joined ?? '').split(',').filter(Boolean);

/**
 * Per terminal, reason and kind, the templates whose refusal stands there, retries still on their way
 * included: refused for their algorithm (unless another version of the same finger goes there:
 * re-enrolled at it), or the terminal full.
 */
export async function templatesNotReaching(q: Queryable): Promise<TemplatesNotReaching[]> {
  const byTerminal = isNotNull(templateSync.refusedCode);
  const rows = await q
    .select({
      deviceId: templateSync.deviceId,
      reason: sql<Refusal>`${templateSync.refusal}`,
      type: templates.type,
      templates: sql<number>`count(*)`,
      parts: sql<number>`count(distinct ${templates.enrolleeId} || ':' || ${templates.fingerIndex})`,
      people: sql<number>`count(distinct ${templates.enrolleeId})`,
      algorithms: sql<string | null>`group_concat(distinct ${templates.algorithmVersion})`,
      refusedByTerminal: sql<number>`sum(${byTerminal})`,
      returnCodes: sql<string | null>`group_concat(distinct ${templateSync.refusedCode})`,
      judgedAlgorithms: sql<string | null>`group_concat(distinct case when ${not(byTerminal)} then ${templates.algorithmVersion} end)`,
      since: sql<number>`min(${templateSync.refusedAt})`,
    })
    .from(templateSync)
    .innerJoin(templates, eq(templates.id, templateSync.templateId))
    .where(or(and(eq(templateSync.refusal, 'incompatible'), not(exists(otherVersionReaches(q)))), eq(templateSync.refusal, 'full')))
    .groupBy(templateSync.deviceId, templateSync.refusal, templates.type);
  return rows.map((r) => ({
    ...r,
    algorithms: list(r.algorithms).sort(),
    judgedAlgorithms: list(r.judgedAlgorithms).sort(),
    returnCodes: list(r.returnCodes)
      .map(Number)
      .sort((a, b) => a - b),
  }));
}
