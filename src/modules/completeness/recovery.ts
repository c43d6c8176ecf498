/**
 * Re-uploads asked of terminals: queued as `reupload_logs` commands (`DATA QUERY ATTLOG
 * StartTime=… EndTime=…`, docs/protocol/adms.md), answered by the terminal re-sending the records
 * of the range through its normal ATTLOG upload (stored de-duplicated, as always), and finished
 * here: what was new counted per local date, the terminal's own count per date (the distinct
 * lines it re-sent), and the counts' agreement taken again from there.
 */
import { and, eq, gt, gte, inArray, lte, or, sql } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { addDays } from '../../platform/time/dates';
import { formatLocalWallTime, usableZoneOrUtc } from '../../platform/time/zone';
import { type CommandService, commandSentAt } from '../commands';
import { type DeviceRow, type DeviceService, deviceRef } from '../devices';
import type { EventChannel } from '../events';
import { countPerDateFromDevice, type PunchService } from '../punches';
import type { CompletenessEvents, RecoveryRef } from './events';
import type { EvidenceSpan } from './evidence';
import type { CompletenessRuntime } from './runtime';
import { punchCounts, punchDays, punchRecoveries, type RecoveryReason, type RecoveryRow } from './tables';

/** Records a little older than the range's start are asked for too: terminal clocks drift. */
const MARGIN_MS = 10 * 60_000;
/** A failed re-upload is not asked again for this long (a terminal that cannot answer it). */
const RETRY_AFTER_MS = 60 * 60_000;
const OPEN = ['planned', 'queued', 'answered'] as const;

export interface RecoveryDeps {
  devices: DeviceService;
  commands: CommandService;
  punches: PunchService;
}

/** Distinct attendance lines a terminal sent while a re-upload was open, per local date. */
type SeenLines = Map<string, Set<string>>;

/** The terminal's clock ahead of real time (behind: negative), as last measured; 0 when unknown. */
function driftMs(device: DeviceRow): number {
  return (device.clockDriftSeconds ?? 0) * 1000;
}

export class Recoveries {
  /** recovery id → the lines seen for it (lost at a restart: the stored count is used then). */
  private readonly seen = new Map<string, { deviceId: string; from: string; to: string; dates: SeenLines }>();

  constructor(
    private readonly ctx: CompletenessRuntime,
    private readonly events: EventChannel<CompletenessEvents>,
    private readonly deps: RecoveryDeps,
  ) {}

  /** The terminal's wall time at an instant (its zone, or UTC when it has none that works). */
  wallTime(device: DeviceRow, instant: number): string {
    return formatLocalWallTime(new Date(instant), usableZoneOrUtc(this.deps.devices.timeZoneOf(device)));
  }

  async openFor(q: Queryable, deviceId: string): Promise<RecoveryRow[]> {
    return q
      .select()
      .from(punchRecoveries)
      .where(and(eq(punchRecoveries.deviceId, deviceId), inArray(punchRecoveries.status, [...OPEN])));
  }

  /** Whether a re-upload may be queued now: none open, and no failed one in the last hour. */
  async mayQueue(q: Queryable, deviceId: string, now: number): Promise<boolean> {
    const [busy] = await q
      .select({ id: punchRecoveries.id })
      .from(punchRecoveries)
      .where(
        and(
          eq(punchRecoveries.deviceId, deviceId),
          // A failed one, or one done that brought fewer than were missing, is tried again an hour later.
          sql`(${punchRecoveries.status} in ('planned', 'queued', 'answered') or (${punchRecoveries.status} in ('failed', 'done') and coalesce(${punchRecoveries.recovered}, 0) < coalesce(${punchRecoveries.missing}, 0) and ${punchRecoveries.finishedAt} > ${now - RETRY_AFTER_MS}))`,
        ),
      )
      .limit(1);
    return !busy;
  }

  /**
   * A re-upload of [from, to] (instants) for a terminal, in the caller's write; the range reaches
   * back at most PUNCH_RECOVERY_LOOKBACK. `planned` ones (after an outage) are only recorded: the
   * check sends them once the terminal had time to send its backlog by itself (send). Null when
   * PUNCH_RECOVERY is off or the terminal may not be asked now (see mayQueue).
   */
  async queue(
    w: WriteContext,
    device: DeviceRow,
    reason: RecoveryReason,
    range: { from: number; to: number },
    missing: number | null,
    options: { planned?: boolean } = {},
  ): Promise<RecoveryRef | null> {
    const { settings, clock } = this.ctx;
    const now = clock.now();
    if (!settings.PUNCH_RECOVERY || device.status !== 'approved') return null;
    if (!(await this.mayQueue(w.tx, device.id, now))) return null;
    const row: RecoveryRow = {
      id: crypto.randomUUID(),
      deviceId: device.id,
      reason,
      // The terminal stamps records with its own clock: the range widens by its measured drift
      // (not moved: a clock set right since it was measured stamps on time again), with the
      // margin at both ends.
      fromTime: this.wallTime(device, Math.max(range.from - MARGIN_MS, now - settings.PUNCH_RECOVERY_LOOKBACK) + Math.min(0, driftMs(device))),
      toTime: this.wallTime(device, Math.max(range.to, range.from) + Math.max(0, driftMs(device)) + MARGIN_MS),
      commandId: null,
      status: 'planned',
      missing,
      recovered: null,
      returnCode: null,
      sequenceAtQueue: 0,
      queuedAt: now,
      answeredAt: null,
      finishedAt: null,
    };
    await w.tx.insert(punchRecoveries).values(row);
    return options.planned ? refOf(row) : this.send(w, row);
  }

  /** Sends a planned re-upload: the `reupload_logs` command queued, what is stored from now on is new. */
  async send(w: WriteContext, recovery: RecoveryRow): Promise<RecoveryRef> {
    const { id, fromTime: from, toTime: to, deviceId } = recovery;
    const [command] = await this.deps.commands.enqueue(w, [
      { deviceId, kind: 'reupload_logs', payload: { startTime: from, endTime: to, recovery: id }, supersedeKey: `recovery:${id}` },
    ]);
    const set = {
      status: 'queued' as const,
      commandId: command ?? null,
      sequenceAtQueue: await this.deps.punches.maxSequence(),
      queuedAt: this.ctx.clock.now(),
    };
    await w.tx.update(punchRecoveries).set(set).where(eq(punchRecoveries.id, id));
    w.afterCommit(() => this.seen.set(id, { deviceId, from, to, dates: new Map() }));
    return refOf({ ...recovery, ...set });
  }

  /** Whether an earlier re-upload for the same gap (of this terminal, finished since this one was asked for the gap) brought fewer than were missing. */
  private async shortBefore(q: Queryable, recovery: RecoveryRow): Promise<boolean> {
    const [row] = await q
      .select({ id: punchRecoveries.id })
      .from(punchRecoveries)
      .where(
        and(
          eq(punchRecoveries.deviceId, recovery.deviceId),
          eq(punchRecoveries.status, 'done'),
          eq(punchRecoveries.reason, 'count_mismatch'),
          sql`${punchRecoveries.id} <> ${recovery.id} and coalesce(${punchRecoveries.recovered}, 0) < coalesce(${punchRecoveries.missing}, 0)`,
          sql`${punchRecoveries.finishedAt} > ${recovery.queuedAt - 2 * RETRY_AFTER_MS}`,
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  /** An upload from a terminal: its lines within an open re-upload's range are counted for it. */
  linesUploaded(deviceId: string, lines: readonly { pin: string; localTime: string }[]): void {
    for (const open of this.seen.values()) {
      if (open.deviceId !== deviceId) continue;
      for (const l of lines) {
        if (l.localTime < open.from || l.localTime > open.to) continue;
        const date = l.localTime.slice(0, 10);
        const set = open.dates.get(date) ?? new Set<string>();
        open.dates.set(date, set);
        set.add(`${l.pin}\t${l.localTime}`);
      }
    }
  }

  /** The terminal answered the command: `answered` (Return=0), or `failed` (an error code, expired, cancelled). */
  async answered(w: WriteContext, recovery: RecoveryRow, ok: boolean, returnCode: number | null): Promise<RecoveryRow> {
    const now = this.ctx.clock.now();
    const set = ok ? { status: 'answered' as const, answeredAt: now, returnCode } : { status: 'failed' as const, finishedAt: now, returnCode, recovered: 0 };
    await w.tx.update(punchRecoveries).set(set).where(eq(punchRecoveries.id, recovery.id));
    if (!ok) w.afterCommit(() => this.seen.delete(recovery.id));
    return { ...recovery, ...set };
  }

  /**
   * Finishes an answered re-upload: the punches within its range stored since its command went
   * to the terminal (new rows: a line already stored is a duplicate) are what it recovered, per
   * local date; each date of the range records the terminal's own count
   * (the distinct lines it re-sent, or, after a restart lost them, what is stored); the counts'
   * agreement is taken again from now when they agree (`stillMissing`: what the terminal's count
   * says is missing now, after the re-upload, at most 0), or when the terminal has no more to give.
   * Announces `punch_gap_closed` (an outage check only when it found something). Returns what it
   * recovered, and whether the counts agree from now (else the check compares them: a gap).
   */
  async finish(
    w: WriteContext,
    recovery: RecoveryRow,
    device: DeviceRow,
    counts: { reportedCount: number | null; stillMissing: number },
  ): Promise<{ recovered: number; agreed: boolean }> {
    const now = this.ctx.clock.now();
    const { tx } = w;
    const { added, recovered, missing } = await this.addedByReupload(tx, recovery, device);
    const seen = this.seen.get(recovery.id);
    const stored = seen ? null : await countPerDateFromDevice(tx, device.id, recovery.fromTime, recovery.toTime);
    for (let date = recovery.fromTime.slice(0, 10); date <= recovery.toTime.slice(0, 10); date = addDays(date, 1)) {
      const reported = seen ? (seen.dates.get(date)?.size ?? 0) : (stored!.get(date) ?? 0);
      const n = added.get(date) ?? 0;
      await tx
        .insert(punchDays)
        .values({ deviceId: device.id, date, reported, reportedAt: now, recovered: n })
        .onConflictDoUpdate({
          target: [punchDays.deviceId, punchDays.date],
          set: { reported, reportedAt: now, recovered: sql`${punchDays.recovered} + ${n}` },
        });
    }
    await tx.update(punchRecoveries).set({ status: 'done', recovered, missing, finishedAt: now }).where(eq(punchRecoveries.id, recovery.id));
    const remaining = Math.max(0, (missing ?? 0) - recovered);
    // Brought fewer than the counts said were missing: the gap stays open, asked once more an hour
    // later; a second short one (the terminal has no more to give) ends it, the remainder said in
    // `punch_gap_closed`. Else the agreement is taken again from now.
    const keepOpen = remaining > 0 && !(await this.shortBefore(tx, recovery));
    // Found all it was asked for (an outage re-upload asks for none: its `missing` is null), yet the
    // terminal's count still holds more than is stored since the last agreement: records outside
    // its range (held before a silence began). Not agreed: the check finds that gap, as any other.
    const agreed = !keepOpen && (remaining > 0 || counts.stillMissing <= 0);
    const agreement = keepOpen
      ? { gapMissing: remaining }
      : agreed
        ? { agreedAt: now, agreedCount: counts.reportedCount, agreedSequence: await this.deps.punches.maxSequence(), gapSince: null, gapMissing: null }
        : {};
    await tx
      .update(punchCounts)
      .set({ ...agreement, updatedAt: now })
      .where(eq(punchCounts.deviceId, device.id));
    w.afterCommit(() => this.seen.delete(recovery.id));
    if (recovery.reason === 'count_mismatch' || recovered > 0) {
      await this.events.record(w, 'punch_gap_closed', {
        device: deviceRef(device),
        reason: recovery.reason,
        recovery: refOf(recovery),
        status: 'done',
        recovered,
        remaining,
        return_code: recovery.returnCode,
      });
    }
    return { recovered, agreed };
  }

  /**
   * What a re-upload added, per local date of its range: the new rows stored since its command
   * went to the terminal (a line already stored is a duplicate, never a row). Punches the terminal
   * sent by itself between the queueing and the send (its backlog, as it came back) were stored
   * then and are not the re-upload's: they are taken off what was `missing` too, which becomes
   * what was still missing when the re-upload went out.
   */
  private async addedByReupload(q: Queryable, recovery: RecoveryRow, device: DeviceRow) {
    const sentAt = recovery.commandId === null ? null : await commandSentAt(q, recovery.commandId);
    const sinceQueued = await countPerDateFromDevice(q, device.id, recovery.fromTime, recovery.toTime, { afterSequence: recovery.sequenceAtQueue });
    const added =
      sentAt === null
        ? sinceQueued
        : await countPerDateFromDevice(q, device.id, recovery.fromTime, recovery.toTime, { afterSequence: recovery.sequenceAtQueue, receivedFrom: sentAt });
    const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
    const recovered = sum(added);
    const byItself = sum(sinceQueued) - recovered;
    return { added, recovered, missing: recovery.missing === null ? null : Math.max(0, recovery.missing - byItself) };
  }

  /** Announces a failed re-upload of a gap (the gap stays open; asked again after an hour). */
  async failed(w: WriteContext, recovery: RecoveryRow, device: DeviceRow): Promise<void> {
    if (recovery.reason !== 'count_mismatch') return;
    await this.events.record(w, 'punch_gap_closed', {
      device: deviceRef(device),
      reason: recovery.reason,
      recovery: refOf(recovery),
      status: 'failed',
      recovered: 0,
      remaining: recovery.missing ?? 0,
      return_code: recovery.returnCode,
    });
  }

  /** Re-uploads of a terminal finished (done) within any of the spans (evidence.ts), the evidence of which dates a gap may lie on. */
  async doneWithin(q: Queryable, deviceId: string, spans: readonly EvidenceSpan[]): Promise<RecoveryRow[]> {
    if (spans.length === 0) return [];
    const within = spans.map(({ after, until }) =>
      and(after === null ? undefined : gt(punchRecoveries.finishedAt, after), until === null ? undefined : lte(punchRecoveries.finishedAt, until)),
    );
    return q
      .select()
      .from(punchRecoveries)
      .where(and(eq(punchRecoveries.deviceId, deviceId), eq(punchRecoveries.status, 'done'), or(...within)));
  }

  /** Re-uploads of a terminal overlapping local dates from..to, newest first. */
  async overlapping(q: Queryable, deviceId: string, from: string, to: string): Promise<RecoveryRow[]> {
    const rows = await q
      .select()
      .from(punchRecoveries)
      .where(and(eq(punchRecoveries.deviceId, deviceId), lte(punchRecoveries.fromTime, `${to} 23:59:59`), gte(punchRecoveries.toTime, `${from} 00:00:00`)));
    return rows.sort((a, b) => b.queuedAt - a.queuedAt);
  }
}

export function refOf(r: RecoveryRow): RecoveryRef {
  return { id: r.id, from: r.fromTime, to: r.toTime, command: r.commandId };
}
