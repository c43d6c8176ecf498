/**
 * Per-terminal sync status of each template (`fpa_template_sync`): `pending` when queued,
 * `present` once the terminal confirmed it (or uploaded it), `incompatible` when its algorithm
 * cannot take it, `failed` otherwise. The fan-out writes the rows; the terminals' answers set them.
 */
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx } from '../../platform/db/client';
import type { Clock } from '../../platform/runtime';
import type { NewCommand } from '../commands';
import { templateSync, templates } from './tables';

export type SyncRow = typeof templateSync.$inferInsert;

export class TemplateSync {
  constructor(private readonly clock: Clock) {}

  /** Records what a terminal answered to a template command (only for the version it carried). */
  async recordSync(
    tx: Tx,
    templateId: string,
    deviceId: string,
    version: number,
    status: 'present' | 'failed' | 'incompatible',
    detail: string | null,
  ): Promise<void> {
    await tx
      .update(templateSync)
      .set({ status, detail, updatedAt: this.clock.now() })
      .where(and(eq(templateSync.templateId, templateId), eq(templateSync.deviceId, deviceId), eq(templateSync.templateVersion, version)));
  }

  /** A terminal was removed: nothing is held there any more. */
  async forgetDevice(tx: Tx, deviceId: string): Promise<void> {
    await tx.delete(templateSync).where(eq(templateSync.deviceId, deviceId));
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

  /** Templates this terminal should hold: every sync row but the ones its algorithm cannot take. */
  async countExpected(q: Queryable, deviceId: string): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(templateSync)
      .where(and(eq(templateSync.deviceId, deviceId), ne(templateSync.status, 'incompatible')));
    return row?.n ?? 0;
  }

  /** Templates marked present on a device. */
  async countPresent(q: Queryable, deviceId: string): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(templateSync)
      .where(and(eq(templateSync.deviceId, deviceId), eq(templateSync.status, 'present')));
    return row?.n ?? 0;
  }
}

export async function upsertSync(tx: Tx, rows: SyncRow[]): Promise<void> {
  for (const chunk of chunks(rows, 400)) {
    await tx
      .insert(templateSync)
      .values(chunk)
      .onConflictDoUpdate({
        target: [templateSync.templateId, templateSync.deviceId],
        set: {
          status: sql`excluded.status`,
          templateVersion: sql`excluded.template_version`,
          detail: sql`excluded.detail`,
          commandId: sql`null`,
          updatedAt: sql`excluded.updated_at`,
        },
      });
  }
}

export async function linkSyncToCommands(tx: Tx, templateId: string, commands: NewCommand[], ids: number[]): Promise<void> {
  for (let i = 0; i < commands.length; i++) {
    await tx
      .update(templateSync)
      .set({ commandId: ids[i] ?? null })
      .where(and(eq(templateSync.templateId, templateId), eq(templateSync.deviceId, commands[i]!.deviceId)));
  }
}
