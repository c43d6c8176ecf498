/**
 * Per-terminal sync status of each template (`fpa_template_sync`): `pending` when queued,
 * `present` once the terminal confirmed it (or uploaded it), `incompatible` when its algorithm
 * cannot take it, `failed` otherwise. The fan-out writes the rows; the terminals' answers set them.
 * A refusal (`incompatible`, or a full terminal) is kept beside the status while the same version
 * is sent again, with the time it first happened: a retry still on its way has not reached the
 * terminal, and the diagnostics go on saying so.
 *
 * The status is about one version (`template_version`); beside it, `held_version` is the newest
 * version the terminal confirmed it holds, kept whatever later versions do there. A terminal that
 * holds a version, or may (its write is queued, went out, or failed), is a holder (`mayHold`): a
 * withdrawal or deletion deletes the template there, and the deletion proof waits for it; the row
 * goes when that delete is queued (the proof follows the delete).
 */
import { and, eq, inArray, isNotNull, ne, or, sql } from 'drizzle-orm';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx } from '../../platform/db/client';
import type { Clock } from '../../platform/runtime';
import type { NewCommand } from '../commands';
import { type Refusal, templateSync, templates } from './tables';

export type SyncRow = typeof templateSync.$inferInsert;

/**
 * The terminal holds some version of the template, or may: one it confirmed (`held_version`),
 * or the version of a status that does not say it is not there (`pending`, `present`, `failed`).
 * Only `incompatible` with nothing confirmed is no holder: never sent, or refused (`Return=-30`).
 */
export const mayHold = or(ne(templateSync.status, 'incompatible'), isNotNull(templateSync.heldVersion))!;

/** The terminal confirmed it holds some version of the template (the newest it confirmed: `held_version`). */
export const holdsSome = isNotNull(templateSync.heldVersion);

/**
 * What a terminal's answer does to the refusal standing on a template: one made (again), lifted
 * (the terminal took it, or answered something else), or left as it was (nothing reached the
 * terminal: the command expired or was cancelled).
 */
export type RefusalChange = { refusal: Refusal; code: number } | 'lifted' | 'unchanged';

/** The columns a refusal change sets: a refusal made again keeps the time it first happened. */
function refusalColumns(change: RefusalChange, now: number): SQLiteUpdateSetSource<typeof templateSync> {
  if (change === 'unchanged') return {};
  if (change === 'lifted') return { refusal: null, refusedAt: null, refusedCode: null };
  return {
    refusal: change.refusal,
    refusedCode: change.code,
    refusedAt: sql`case when ${templateSync.refusal} = ${change.refusal} then coalesce(${templateSync.refusedAt}, ${now}) else ${now} end`,
  };
}

export class TemplateSync {
  constructor(private readonly clock: Clock) {}

  /**
   * Records what a terminal answered to a template command: the status only for the version it
   * carried (a later version's status stands); a version it took is held there whatever the
   * status is about now (a late answer to an earlier version too). A refusal or failure leaves
   * what it held before as it was.
   */
  async recordSync(
    tx: Tx,
    templateId: string,
    deviceId: string,
    version: number,
    answer: { status: 'present' | 'failed' | 'incompatible'; detail: string | null; refusal: RefusalChange },
  ): Promise<void> {
    const now = this.clock.now();
    const row = and(eq(templateSync.templateId, templateId), eq(templateSync.deviceId, deviceId));
    await tx
      .update(templateSync)
      .set({ status: answer.status, detail: answer.detail, updatedAt: now, ...refusalColumns(answer.refusal, now) })
      .where(and(row, eq(templateSync.templateVersion, version)));
    if (answer.status !== 'present') return;
    await tx
      .update(templateSync)
      .set({ heldVersion: sql`max(coalesce(${templateSync.heldVersion}, 0), ${version})` })
      .where(row);
  }

  /** A terminal was removed: nothing is held there any more. */
  async forgetDevice(tx: Tx, deviceId: string): Promise<void> {
    await tx.delete(templateSync).where(eq(templateSync.deviceId, deviceId));
  }

  /**
   * The terminal confirmed the delete of the enrollee's user: none of their templates is held
   * there any more, so their rows there go (as when an area change queues that delete: fan-out.ts
   * `removeFromDevices`), but for those in `kept`, written again after that delete.
   */
  async forgetUserOn(tx: Tx, deviceId: string, enrolleeId: string, kept: ReadonlySet<string>): Promise<void> {
    const theirs = await tx.select({ id: templates.id }).from(templates).where(eq(templates.enrolleeId, enrolleeId));
    const gone = theirs.map((t) => t.id).filter((id) => !kept.has(id));
    for (const ids of chunks(gone, 400)) {
      await tx.delete(templateSync).where(and(eq(templateSync.deviceId, deviceId), inArray(templateSync.templateId, ids)));
    }
  }

  /** Enrollees with a template that did not reach this terminal (`failed`, `incompatible`): the reconciliation sends them again. */
  async unsyncedOn(q: Queryable, deviceId: string): Promise<string[]> {
    const rows = await q
      .selectDistinct({ enrolleeId: templates.enrolleeId })
      .from(templateSync)
      .innerJoin(templates, eq(templates.id, templateSync.templateId))
      .where(and(eq(templateSync.deviceId, deviceId), inArray(templateSync.status, ['failed', 'incompatible'])));
    return rows.map((r) => r.enrolleeId);
  }

  /**
   * The body parts this terminal should hold of the service's templates, as a terminal counts
   * them (`FPCount`, `FaceCount`, `PvCount`): a finger, a face, a palm of five templates, one
   * each, by enrollee. Templates it cannot take are left out, but where it still holds an
   * earlier version.
   */
  async expectedParts(q: Queryable, deviceId: string): Promise<{ enrolleeId: string; type: string; fingerIndex: number }[]> {
    return q
      .selectDistinct({ enrolleeId: templates.enrolleeId, type: templates.type, fingerIndex: templates.fingerIndex })
      .from(templateSync)
      .innerJoin(templates, eq(templates.id, templateSync.templateId))
      .where(and(eq(templateSync.deviceId, deviceId), mayHold));
  }

  /** Templates a device confirmed it holds (in some version: a later one may be on its way, or not reach it). */
  async countPresent(q: Queryable, deviceId: string): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(templateSync)
      .where(and(eq(templateSync.deviceId, deviceId), holdsSome));
    return row?.n ?? 0;
  }
}

/**
 * Writes what the fan-out decided (`pending`, `present`, `incompatible`). A refusal of the same
 * version stands through a retry (`pending`) and, refused again before sending, keeps the time it
 * first happened; a new version, or the template present, starts afresh. The version the terminal
 * confirmed (`held_version`) stays whatever the new status: a present one sets it.
 */
export async function upsertSync(tx: Tx, rows: SyncRow[]): Promise<void> {
  const sameVersion = sql`${templateSync.templateVersion} = excluded.template_version`;
  const retry = sql`(excluded.status = 'pending' and ${sameVersion})`;
  const again = sql`(${sameVersion} and ${templateSync.refusal} = excluded.refusal)`;
  for (const chunk of chunks(rows, 400)) {
    await tx
      .insert(templateSync)
      .values(chunk.map(judged))
      .onConflictDoUpdate({
        target: [templateSync.templateId, templateSync.deviceId],
        set: {
          status: sql`excluded.status`,
          templateVersion: sql`excluded.template_version`,
          detail: sql`excluded.detail`,
          commandId: sql`null`,
          updatedAt: sql`excluded.updated_at`,
          refusal: sql`case when ${retry} then ${templateSync.refusal} else excluded.refusal end`,
          refusedAt: sql`case when ${retry} then ${templateSync.refusedAt} when ${again} then coalesce(${templateSync.refusedAt}, excluded.refused_at) else excluded.refused_at end`,
          refusedCode: sql`case when ${retry} then ${templateSync.refusedCode} else excluded.refused_code end`,
          heldVersion: sql`coalesce(excluded.held_version, ${templateSync.heldVersion})`,
        },
        // A terminal judged unable to use the template now (its finger reader switched off,
        // another algorithm after a firmware update) is `incompatible` with the new version, and
        // stays a holder of the version it confirmed (`held_version`). One that confirmed none but
        // may hold the version of its row (its write is queued, went out, or failed without
        // saying it had no room) keeps that row: what it may hold is still there, and withdrawal
        // and deletion delete at holders only.
        setWhere: sql`not (excluded.status = 'incompatible' and ${templateSync.heldVersion} is null and (${templateSync.status} = 'pending' or (${templateSync.status} = 'failed' and ${templateSync.refusal} is null)))`,
      });
  }
}

/**
 * A row as written: judged `incompatible` before sending is a refusal like the terminal's,
 * without its code; `present` (the terminal uploaded it, or is its source) is held there.
 */
function judged(r: SyncRow): SyncRow {
  if (r.status === 'incompatible') return { ...r, refusal: 'incompatible', refusedAt: r.updatedAt, refusedCode: null };
  if (r.status === 'present') return { ...r, heldVersion: r.templateVersion };
  return r;
}

export async function linkSyncToCommands(tx: Tx, templateId: string, commands: NewCommand[], ids: number[]): Promise<void> {
  for (let i = 0; i < commands.length; i++) {
    await tx
      .update(templateSync)
      .set({ commandId: ids[i] ?? null })
      .where(and(eq(templateSync.templateId, templateId), eq(templateSync.deviceId, commands[i]!.deviceId)));
  }
}
