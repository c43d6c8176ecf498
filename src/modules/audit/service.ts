/** The audit log: who did what to devices, consent, templates, agents, keys and jobs. */
import type { Queryable } from '../../platform/db/client';
import { auditLog } from './tables';

export interface AuditEntry {
  actor: string;
  action: string;
  targetType: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

export async function audit(q: Queryable, now: number, entry: AuditEntry): Promise<void> {
  await q.insert(auditLog).values({
    actor: entry.actor,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId ?? null,
    details: entry.details ?? null,
    createdAt: now,
  });
}
