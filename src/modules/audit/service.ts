/** The audit log: who did what to devices, consent, templates, agents, keys and jobs. */

import { and, desc, eq, gte, lt, or, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Database, Queryable } from '../../platform/db/client';
import type { Actor, ActorKind } from '../../platform/http/caller';
import { integerCursor, type Page, pageOf } from '../../platform/http/paging';
import { currentActor, servingHead } from '../../platform/request-context';
import { instantFilter } from '../../platform/time/dates';
import type { AuditEntryView } from './model';
import type { AuditRuntime } from './runtime';
import { auditLog } from './tables';

export interface AuditEntry {
  actor: string;
  /** What kind of actor and its id; default: the request's caller (or job) when it is `actor`, else read from `actor`. */
  actorKind?: ActorKind;
  actorId?: string;
  action: string;
  targetType: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

/** Actors named by convention in the first releases' `by` strings. */
function actorOfName(name: string): Actor | null {
  if (name.startsWith('device:')) return { kind: 'terminal', id: name.slice('device:'.length) };
  if (name.startsWith('agent:')) return { kind: 'agent', id: name.slice('agent:'.length) };
  return null;
}

/**
 * Kind and id of an entry's actor: given, or by the `device:`/`agent:` convention, or the
 * current request's authenticated caller when the entry names it (or the running job), or
 * `operator`/`system` by name; null when nothing says (an in-process call by the host).
 */
export function actorOf(entry: AuditEntry): Actor | null {
  if (entry.actorKind) return { kind: entry.actorKind, id: entry.actorId ?? entry.actor };
  const named = actorOfName(entry.actor);
  if (named) return named;
  const current = currentActor();
  if (current && (current.by === undefined || current.by === entry.actor)) return { kind: current.kind, id: current.id };
  if (entry.actor === 'operator') return { kind: 'operator', id: 'operator' };
  if (entry.actor === 'system') return { kind: 'job', id: 'system' };
  return null;
}

export async function audit(q: Queryable, now: number, entry: AuditEntry): Promise<void> {
  await auditMany(q, now, [entry]);
}

/** Many entries at once (an import audits every punch it stored), in inserts of 500 rows. */
export async function auditMany(q: Queryable, now: number, entries: readonly AuditEntry[]): Promise<void> {
  for (const chunk of chunks(entries, 500)) {
    await q.insert(auditLog).values(
      chunk.map((entry) => {
        const who = actorOf(entry);
        return {
          actor: entry.actor,
          actorKind: who?.kind ?? null,
          actorId: who?.id ?? null,
          action: entry.action,
          targetType: entry.targetType,
          targetId: entry.targetId ?? null,
          details: entry.details ?? null,
          createdAt: now,
        };
      }),
    );
  }
}

/**
 * A download of people's data in bulk (a report, the payroll export, a deletion proof): one entry
 * in a write of its own, made before the file is sent, so no write is held open while it streams
 * (a streamed export reads outside any write). Reads of the API's lists are not audited: too many.
 * Nor is a HEAD request for a file.
 */
export async function auditDownload(db: Database, now: number, entry: AuditEntry): Promise<void> {
  // A HEAD answers the headers only: nobody's data left the service.
  if (servingHead()) return;
  await db.write(({ tx }) => audit(tx, now, entry));
}

/** Targets whose audit details are about a person. */
const PERSONAL_TARGETS = ['enrollee', 'punch', 'leave', 'shift_assignment', 'employee'];
/** Targets whose id is the person's own key (an employee of the directory): redacted, the target keeps its type only. */
const PERSONAL_TARGET_IDS = ['employee'];
/** Detail keys that carry a person's data, whatever the target (a terminal user's PIN). */
const PERSONAL_KEYS = ['employee', 'device_pin', 'pin', 'card', 'display_name', 'at'];
/** Rows rewritten per transaction. */
const REDACT_BATCH = 5000;

/**
 * Retention: audit entries about a person keep who did what to which id and when, and lose the
 * rest of their details (`{ enrollee, redacted: true }`): those recorded before `cutoff`, and
 * those of a punch timed before it (`at`, an import of old punches recorded lately). An entry
 * about an employee of the directory loses its target id too (the employee's key). Batches of
 * REDACT_BATCH, each its own write transaction. Returns how many entries were redacted.
 */
export async function redactAuditBefore(db: Database, cutoff: number): Promise<number> {
  const cutoffIso = new Date(cutoff).toISOString();
  const personal = sql.join(
    [
      sql`${auditLog.targetType} in (${sql.join(
        PERSONAL_TARGETS.map((t) => sql`${t}`),
        sql`, `,
      )})`,
      ...PERSONAL_KEYS.map((key) => sql`json_type(${auditLog.details}, ${`$.${key}`}) is not null`),
    ],
    sql` or `,
  );
  const old = sql`(${auditLog.createdAt} < ${cutoff} or json_extract(${auditLog.details}, '$.at') < ${cutoffIso})`;
  let total = 0;
  for (;;) {
    const n = await db.write(async ({ tx }) => {
      const result = await tx.run(
        sql`update ${auditLog} set details = json_object('enrollee', json_extract(details, '$.enrollee'), 'redacted', json('true')),
              target_id = case when target_type in (${sql.join(
                PERSONAL_TARGET_IDS.map((t) => sql`${t}`),
                sql`, `,
              )}) then null else target_id end
            where rowid in (select rowid from ${auditLog} where ${auditLog.details} is not null and json_extract(${auditLog.details}, '$.redacted') is null
              and ${old} and (${personal}) limit ${REDACT_BATCH})`,
      );
      return result.rowsAffected;
    });
    total += n;
    if (n < REDACT_BATCH) return total;
  }
}

/** `audit-log/`: newest first, filtered by actor, action and time. */
export class AuditService {
  constructor(private readonly ctx: AuditRuntime) {}

  async list(filters: {
    actor?: string;
    actor_kind?: string;
    actor_id?: string;
    action?: string;
    target?: string;
    from?: string;
    to?: string;
    cursor?: string;
    limit: number;
  }): Promise<Page<AuditEntryView>> {
    const zone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
    const conditions: SQL[] = [];
    if (filters.actor) conditions.push(eq(auditLog.actor, filters.actor));
    if (filters.actor_kind) conditions.push(eq(auditLog.actorKind, filters.actor_kind));
    if (filters.actor_id) conditions.push(eq(auditLog.actorId, filters.actor_id));
    if (filters.action) conditions.push(eq(auditLog.action, filters.action));
    // A person's id also finds what was done to things of theirs (a leave, a punch, an assignment).
    if (filters.target) conditions.push(or(eq(auditLog.targetId, filters.target), sql`json_extract(${auditLog.details}, '$.enrollee') = ${filters.target}`)!);
    const { start, end } = instantFilter(filters, zone);
    if (start !== null) conditions.push(gte(auditLog.createdAt, start));
    if (end !== null) conditions.push(lt(auditLog.createdAt, end));
    const before = integerCursor('audit-log', filters.cursor);
    if (before !== null) conditions.push(lt(auditLog.id, before));
    const rows = await this.ctx.db.orm
      .select()
      .from(auditLog)
      .where(conditions.length > 0 ? and(...conditions) : undefined)
      .orderBy(desc(auditLog.id))
      .limit(filters.limit + 1);
    return pageOf(
      'audit-log',
      rows,
      filters.limit,
      (r) => r.id,
      (page) =>
        page.map((r) => ({
          id: r.id,
          actor: r.actor,
          actor_kind: r.actorKind,
          actor_id: r.actorId,
          action: r.action,
          target_type: r.targetType,
          target_id: r.targetId,
          at: new Date(r.createdAt).toISOString(),
          details: r.details ?? {},
        })),
    );
  }
}
