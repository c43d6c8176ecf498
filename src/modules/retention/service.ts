/**
 * purge-retention: removes what the RETENTION_* settings no longer keep. Every limit set to 0
 * (or below) keeps that data forever. Rows are deleted in bounded batches, each batch its own
 * write transaction, so terminals' punch uploads are never kept waiting behind a long purge.
 *
 * - punches with `punched_at` older than RETENTION_PUNCHES_DAYS, and attendance days whose local
 *   date is before the local date of that cutoff (the day holding the cutoff stays whole);
 * - finished device commands (succeeded, failed, expired, superseded) completed before
 *   RETENTION_COMMANDS_DAYS; pending and sent commands always stay;
 * - webhook delivery attempts, and delivered, dead or held outbox rows, older than
 *   RETENTION_DELIVERIES_DAYS; a pending outbox row always stays, even when its punch is gone
 *   (its payload is self-contained);
 * - device events older than RETENTION_DEVICE_EVENTS_DAYS;
 * - templates of enrollees deactivated longer than RETENTION_TEMPLATES_AFTER_DEACTIVATION,
 *   destroyed through the template service so deletes are queued to the terminals;
 * - staged agent uploads of sessions past ENROLLMENT_SESSION_TTL (the sessions are expired).
 */
import { and, asc, eq, exists, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { localDateOf } from '../attendance/calendar';
import { audit } from '../audit/service';
import { expireSessions } from '../enrollment/sessions';
import type { Core } from '../../app/core';
import {
  attendanceDays,
  deviceCommands,
  deviceEvents,
  enrollees,
  punches,
  templates,
  webhookDeliveries,
  webhookOutbox,
} from '../../app/schema';

export const PURGE_BATCH = 5000;
/** Enrollees whose templates are destroyed per transaction (each queues device commands). */
const TEMPLATE_BATCH = 50;
const DAY_MS = 86_400_000;

export type PurgeCounts = {
  punches: number;
  attendance_days: number;
  device_commands: number;
  webhook_deliveries: number;
  webhook_outbox: number;
  device_events: number;
  templates: number;
  sessions_expired: number;
};

const FINISHED_COMMANDS = ['succeeded', 'failed', 'expired', 'superseded'] as const;

export async function purgeRetention(core: Core): Promise<PurgeCounts> {
  const { ctx } = core;
  const s = ctx.settings;
  const now = ctx.clock.now();
  const cutoff = (days: number): number | null => (days > 0 ? now - days * DAY_MS : null);
  const counts: PurgeCounts = {
    punches: 0,
    attendance_days: 0,
    device_commands: 0,
    webhook_deliveries: 0,
    webhook_outbox: 0,
    device_events: 0,
    templates: 0,
    sessions_expired: 0,
  };

  // Staged agent uploads live only as long as their session: expiring overdue sessions here
  // discards them even where nobody schedules `fpa:expire-sessions`.
  counts.sessions_expired = (await expireSessions(ctx, core.commands)).expired;

  const punchCutoff = cutoff(s.RETENTION_PUNCHES_DAYS);
  if (punchCutoff !== null) {
    counts.punches = await deleteInBatches(core, punches, lt(punches.punchedAt, punchCutoff));
    const firstKeptDate = localDateOf(punchCutoff, s.ATTENDANCE_TIME_ZONE);
    counts.attendance_days = await deleteInBatches(core, attendanceDays, lt(attendanceDays.date, firstKeptDate));
  }
  const commandCutoff = cutoff(s.RETENTION_COMMANDS_DAYS);
  if (commandCutoff !== null) {
    counts.device_commands = await deleteInBatches(
      core,
      deviceCommands,
      and(inArray(deviceCommands.status, [...FINISHED_COMMANDS]), lt(sql`coalesce(${deviceCommands.completedAt}, ${deviceCommands.createdAt})`, commandCutoff))!,
    );
  }
  const deliveryCutoff = cutoff(s.RETENTION_DELIVERIES_DAYS);
  if (deliveryCutoff !== null) {
    counts.webhook_deliveries = await deleteInBatches(core, webhookDeliveries, lt(webhookDeliveries.createdAt, deliveryCutoff));
    counts.webhook_outbox = await deleteInBatches(
      core,
      webhookOutbox,
      and(inArray(webhookOutbox.status, ['delivered', 'dead', 'held']), lt(sql`coalesce(${webhookOutbox.deliveredAt}, ${webhookOutbox.createdAt})`, deliveryCutoff))!,
    );
  }
  const eventCutoff = cutoff(s.RETENTION_DEVICE_EVENTS_DAYS);
  if (eventCutoff !== null) counts.device_events = await deleteInBatches(core, deviceEvents, lt(deviceEvents.createdAt, eventCutoff));

  if (s.RETENTION_TEMPLATES_AFTER_DEACTIVATION > 0) {
    counts.templates = await destroyTemplatesOfDeactivated(core, now - s.RETENTION_TEMPLATES_AFTER_DEACTIVATION);
  }

  await ctx.db.write(({ tx }) =>
    audit(tx, ctx.clock.now(), { actor: 'system', action: 'retention.purged', targetType: 'retention', details: { ...counts } }),
  );
  return counts;
}

/** Deletes matching rows PURGE_BATCH at a time (by rowid), one transaction per batch. */
async function deleteInBatches(core: Core, table: SQLiteTable, condition: SQL): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await core.ctx.db.write(async ({ tx }) => {
      const result = await tx.run(sql`delete from ${table} where rowid in (select rowid from ${table} where ${condition} limit ${PURGE_BATCH})`);
      return result.rowsAffected;
    });
    total += deleted;
    if (deleted < PURGE_BATCH) return total;
  }
}

async function destroyTemplatesOfDeactivated(core: Core, deactivatedBefore: number): Promise<number> {
  const { ctx } = core;
  const hasTemplates = exists(ctx.db.orm.select({ one: sql`1` }).from(templates).where(eq(templates.enrolleeId, enrollees.id)));
  let total = 0;
  for (;;) {
    const due = await ctx.db.orm
      .select({ id: enrollees.id, devicePin: enrollees.devicePin })
      .from(enrollees)
      .where(and(eq(enrollees.status, 'deactivated'), lt(enrollees.deactivatedAt, deactivatedBefore), hasTemplates))
      .orderBy(asc(enrollees.id))
      .limit(TEMPLATE_BATCH);
    if (due.length === 0) return total;
    const destroyed = await ctx.db.write(async (w) => {
      let n = 0;
      for (const enrollee of due) {
        // Re-checked inside the transaction: the enrollee may have been reactivated meanwhile.
        const current = await w.tx.query.enrollees.findFirst({ where: eq(enrollees.id, enrollee.id) });
        if (current?.status !== 'deactivated' || current.deactivatedAt === null || current.deactivatedAt >= deactivatedBefore) continue;
        n += await core.templates.destroyTemplatesIn(w, enrollee, 'retention: deactivated enrollee', 'system');
      }
      return n;
    });
    total += destroyed;
    // Enrollees skipped above still match the read; stop rather than loop on them.
    if (destroyed === 0) return total;
  }
}
