/**
 * Punch completeness: whether the punches stored from a terminal are all it holds, per terminal
 * and local date, and their recovery when not.
 *
 * A terminal reports how many attendance records it holds (`TransactionCount`: in its options,
 * its getrequest `INFO=` and INFO replies). Each report is kept; the job `check-completeness`
 * compares how much that count grew since it last agreed with the punches stored from the
 * terminal against how many were stored since. Equal: they agree again (now). The terminal's
 * count ahead, still after a settling time (a record counted before its upload arrives): a gap,
 * `punch_gap_found`, and a re-upload of the range since the last agreement is queued
 * (recovery.ts). Behind (a cleared log): they agree from then on, and days before the clear are
 * not vouched for by that agreement (status.ts). A terminal back after a silence,
 * and every terminal after this server was down (its own heartbeat, heartbeat.ts), are asked to
 * re-upload the silent range too: planned at once, sent by the check a settling time later, once
 * the terminal had time to send its backlog by itself. Per date, days.ts says what is known and
 * status.ts the date's status.
 */
import { eq } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import type { Caller } from '../../platform/http/caller';
import { type DeviceRow, deviceRef } from '../devices';
import type { EventChannel, EventLog } from '../events';
import { countFromDevice, newestFromDeviceAt } from '../punches';
import { completenessOf } from './days';
import type { CompletenessEvents } from './events';
import { Recoveries, type RecoveryDeps } from './recovery';
import type { CompletenessRuntime } from './runtime';
import { type PunchCountRow, punchCounts, type RecoveryReason } from './tables';

type Outcome = 'agreed' | 'gaps' | 'finished' | 'asked';

export type CheckResult = {
  checked: number;
  agreed: number;
  gaps: number;
  finished: number;
  /** Re-uploads planned after an outage, sent now. */
  asked: number;
};

export class Completeness {
  readonly events: EventChannel<CompletenessEvents>;
  readonly recoveries: Recoveries;

  constructor(
    private readonly ctx: CompletenessRuntime,
    log: EventLog,
    readonly deps: RecoveryDeps,
  ) {
    this.events = log.channel<CompletenessEvents>();
    this.recoveries = new Recoveries(ctx, this.events, deps);
  }

  /** `devices/{sn}/completeness/` (days.ts). */
  report(serial: string, range: { from?: string; to?: string }, caller: Caller) {
    return completenessOf(
      this.ctx,
      { devices: this.deps.devices, recoveries: this.recoveries, stateOf: (q, id) => this.stateOf(q, id) },
      serial,
      range,
      caller,
    );
  }

  /** A report stays unanswered by uploads this long before its difference counts as a gap. */
  settleMs(): number {
    return Math.max(3 * this.ctx.settings.ADMS_POLL_DELAY, 60_000);
  }

  /** Keeps a terminal's reported count (reactions.ts: in the write that records the report). */
  async countReported(w: WriteContext, device: DeviceRow, count: number, at: number): Promise<void> {
    const before = await this.stateOf(w.tx, device.id);
    // A count that fell: the log was cleared (or the terminal reset). Kept with what held then.
    const cleared = before?.reportedCount != null && count < before.reportedCount ? { clearedAt: at, ...(await this.heldAtClear(w.tx, before)) } : {};
    const reported = { reportedCount: count, reportedAt: at, reportedSequence: await this.deps.punches.maxSequence(), ...cleared, updatedAt: at };
    await w.tx
      .insert(punchCounts)
      .values({ deviceId: device.id, ...reported })
      .onConflictDoUpdate({ target: punchCounts.deviceId, set: reported });
  }

  /**
   * What held when a terminal's log was cleared: the agreement in force, and what was missing then
   * (lost with the log). An earlier clear's loss is kept, from its own agreement on: a second clear
   * must not vouch for the dates of the first one's gap.
   */
  private async heldAtClear(q: Queryable, before: PunchCountRow): Promise<{ agreedBeforeClearAt: number | null; missingAtClear: number | null }> {
    const missing = Math.max(0, before.gapMissing ?? (await this.difference(q, before))?.missing ?? 0);
    if (before.missingAtClear !== null) return { agreedBeforeClearAt: before.agreedBeforeClearAt, missingAtClear: before.missingAtClear + missing };
    return { agreedBeforeClearAt: before.agreedAt, missingAtClear: missing > 0 ? missing : null };
  }

  async stateOf(q: Queryable, deviceId: string): Promise<PunchCountRow | null> {
    const [row] = await q.select().from(punchCounts).where(eq(punchCounts.deviceId, deviceId)).limit(1);
    return row ?? null;
  }

  /** How many more records the terminal reports than were stored from it since they last agreed. */
  async difference(q: Queryable, state: PunchCountRow): Promise<{ missing: number; stored: number } | null> {
    if (state.reportedCount === null) return null;
    const stored = await countFromDevice(q, state.deviceId, state.agreedSequence);
    const grew = state.reportedCount - (state.agreedCount ?? 0);
    return { missing: grew - stored, stored };
  }

  /** Job `check-completeness`: every approved terminal's counts compared (see the file comment). */
  async check(): Promise<CheckResult> {
    const result: CheckResult = { checked: 0, agreed: 0, gaps: 0, finished: 0, asked: 0 };
    for (const device of await this.deps.devices.withStatus('approved')) {
      const outcomes = await this.ctx.db.write((w) => this.checkOne(w, device));
      result.checked++;
      for (const outcome of outcomes) result[outcome]++;
    }
    return result;
  }

  /** One terminal: a planned re-upload sent, an answered one finished, else its counts compared. */
  private async checkOne(w: WriteContext, device: DeviceRow): Promise<Outcome[]> {
    const now = this.ctx.clock.now();
    const open = await this.recoveries.openFor(w.tx, device.id);
    // After an outage the terminal first sends its backlog by itself; then it is asked for the range.
    const planned = open.find((r) => r.status === 'planned');
    if (planned) {
      if (now - planned.queuedAt < this.settleMs()) return [];
      await this.recoveries.send(w, planned);
      return ['asked'];
    }
    const state = await this.stateOf(w.tx, device.id);
    if (!state) return [];
    const answered = open.find((r) => r.status === 'answered');
    const diff = await this.difference(w.tx, state);
    if (answered) {
      // The re-upload's records may trail its answer: finished once the counts agree, or after settling.
      if ((diff && diff.missing <= 0) || now - (answered.answeredAt ?? now) >= this.settleMs()) {
        const { agreed } = await this.recoveries.finish(w, answered, device, { reportedCount: state.reportedCount, stillMissing: diff?.missing ?? 0 });
        // Still short, though it found what it was asked for (records outside its range): compared as ever.
        const then = agreed ? null : await this.compareCounts(w, device, state, diff, now);
        return then ? ['finished', then] : ['finished'];
      }
      return [];
    }
    if (open.length > 0) return [];
    const outcome = await this.compareCounts(w, device, state, diff, now);
    return outcome ? [outcome] : [];
  }

  /**
   * A terminal's counts, no re-upload open: they agree (or it holds fewer), or it holds more and
   * still does a settling time after it said so: a gap, announced, its re-upload queued.
   */
  private async compareCounts(
    w: WriteContext,
    device: DeviceRow,
    state: PunchCountRow,
    diff: { missing: number; stored: number } | null,
    now: number,
  ): Promise<'agreed' | 'gaps' | null> {
    if (!diff) return null;
    // Fewer than stored, with punches stored after the report a moment ago: the count is older
    // than they are (uploaded between two reports), and the next report, at the terminal's next
    // poll, counts them. Waited for a settling time only: a count that stays (a full terminal
    // dropping its oldest records) is agreed on as before.
    if (diff.missing < 0 && (await this.storedJustAfterReport(w.tx, state, now))) return null;
    if (diff.missing <= 0) {
      await this.agree(w, state, now);
      return 'agreed';
    }
    if (now - (state.reportedAt ?? now) < this.settleMs()) return null;
    if (state.gapSince !== null && state.gapMissing === diff.missing && !(await this.recoveries.mayQueue(w.tx, device.id, now))) return null;
    const from = state.agreedAt ?? now - this.ctx.settings.PUNCH_RECOVERY_LOOKBACK;
    const recovery = await this.recoveries.queue(w, device, 'count_mismatch', { from, to: now }, diff.missing);
    if (state.gapSince === null || recovery) {
      await this.events.record(w, 'punch_gap_found', {
        device: deviceRef(device),
        reason: 'count_mismatch',
        missing: diff.missing,
        reported: state.reportedCount!,
        stored: (state.agreedCount ?? 0) + diff.stored,
        recovery,
      });
    }
    await w.tx
      .update(punchCounts)
      .set({ gapSince: state.gapSince ?? now, gapMissing: diff.missing, updatedAt: now })
      .where(eq(punchCounts.deviceId, device.id));
    return 'gaps';
  }

  /** Whether a punch from the terminal was stored after it reported its count, less than a settling time ago. */
  private async storedJustAfterReport(q: Queryable, state: PunchCountRow, now: number): Promise<boolean> {
    if (state.reportedSequence === null) return false;
    const at = await newestFromDeviceAt(q, state.deviceId, state.reportedSequence);
    return at !== null && now - at < this.settleMs();
  }

  /**
   * The counts agree (or the terminal holds fewer: a cleared log, kept by countReported so that
   * days before it are not vouched for by this agreement, status.ts), as of the moment the terminal
   * reported that count.
   */
  private async agree(w: WriteContext, state: PunchCountRow, now: number): Promise<void> {
    await w.tx
      .update(punchCounts)
      .set({
        agreedAt: state.reportedAt ?? now,
        agreedCount: state.reportedCount,
        agreedSequence: await this.deps.punches.maxSequence(),
        gapSince: null,
        gapMissing: null,
        updatedAt: now,
      })
      .where(eq(punchCounts.deviceId, state.deviceId));
  }

  /**
   * The terminal answered a re-upload (reactions.ts): failed → announced; Return=0 → finished at
   * once when the counts already agree (the records came before the answer), else by the job.
   */
  async recoveryAnswered(w: WriteContext, recoveryId: string, device: DeviceRow, ok: boolean, returnCode: number | null): Promise<void> {
    const [recovery] = (await this.recoveries.openFor(w.tx, device.id)).filter((r) => r.id === recoveryId);
    if (!recovery) return;
    const answered = await this.recoveries.answered(w, recovery, ok, returnCode);
    if (!ok) {
      await this.recoveries.failed(w, answered, device);
      return;
    }
    const state = await this.stateOf(w.tx, device.id);
    const diff = state ? await this.difference(w.tx, state) : null;
    if (!diff || diff.missing <= 0)
      await this.recoveries.finish(w, answered, device, { reportedCount: state?.reportedCount ?? null, stillMissing: diff?.missing ?? 0 });
  }

  /**
   * Plans a re-upload of a silent range (the terminal was away, or this server was): sent by the
   * check once the terminal had time to send its backlog by itself.
   */
  async afterOutage(w: WriteContext, device: DeviceRow, reason: RecoveryReason, since: number): Promise<void> {
    await this.recoveries.queue(w, device, reason, { from: since, to: this.ctx.clock.now() }, null, { planned: true });
  }
}
