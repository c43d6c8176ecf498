/** The audit log: who did what to devices, consent, templates, agents, keys and jobs. */

import { and, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import { type Page, pageOf, readCursor } from '../../platform/http/paging';
import type { Runtime } from '../../platform/runtime';
import { rangeBound } from '../../platform/time/dates';
import type { AuditEntryView } from './model';
import { auditLog } from './tables';

export interface AuditEntry {
  actor: string;
  action: string;
  targetType: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

export async function audit(q: Queryable, now: number, entry: AuditEntry): Promise<void> {
  await auditMany(q, now, [entry]);
}

/** Many entries at once (an import audits every punch it stored), in inserts of 500 rows. */
export async function auditMany(q: Queryable, now: number, entries: readonly AuditEntry[]): Promise<void> {
  for (const chunk of chunks(entries, 500)) {
    await q.insert(auditLog).values(
      chunk.map((entry) => ({
        actor: entry.actor,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId ?? null,
        details: entry.details ?? null,
        createdAt: now,
      })),
    );
  }
}

/** `audit-log/`: newest first, filtered by actor, action and time. */
export class AuditService {
  constructor(private readonly ctx: Runtime) {}

  async list(filters: { actor?: string; action?: string; from?: string; to?: string; cursor?: string; limit: number }): Promise<Page<AuditEntryView>> {
    const zone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
    const conditions: SQL[] = [];
    if (filters.actor) conditions.push(eq(auditLog.actor, filters.actor));
    if (filters.action) conditions.push(eq(auditLog.action, filters.action));
    if (filters.from) conditions.push(gte(auditLog.createdAt, rangeBound(filters.from, 'from', zone)));
    if (filters.to) conditions.push(lt(auditLog.createdAt, rangeBound(filters.to, 'to', zone)));
    const before = readCursor(filters.cursor);
    if (before !== null) conditions.push(lt(auditLog.id, Number(before)));
    const rows = await this.ctx.db.orm
      .select()
      .from(auditLog)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(desc(auditLog.id))
      .limit(filters.limit + 1);
    return pageOf(
      rows,
      filters.limit,
      (r) => r.id,
      (page) =>
        page.map((r) => ({
          id: r.id,
          actor: r.actor,
          action: r.action,
          target_type: r.targetType,
          target_id: r.targetId,
          at: new Date(r.createdAt).toISOString(),
          details: r.details ?? {},
        })),
    );
  }
}
