/**
 * purge-retention: removes what the RETENTION_* settings no longer keep, through each owning
 * module. Every limit set to 0 (or below) keeps that data forever. Rows are deleted in bounded
 * batches, each its own write transaction, so terminals' punch uploads never wait behind a purge.
 *
 * - punches with `punched_at` older than RETENTION_PUNCHES_DAYS, and attendance days whose local
 *   date is before the local date of that cutoff (the day holding the cutoff stays whole); when
 *   people's users left terminals, before that cutoff too (it decides only older punches);
 * - finished device commands completed before RETENTION_COMMANDS_DAYS; pending and sent stay;
 * - webhook delivery attempts, and message rows delivered, older than RETENTION_DELIVERIES_DAYS;
 *   pending and dead message rows stay (the events themselves are the log's);
 * - device log entries older than RETENTION_DEVICE_EVENTS_DAYS;
 * - deletion proofs complete (or, never complete, asked) before RETENTION_DELETION_PROOFS_DAYS;
 * - templates of enrollees deactivated longer than RETENTION_TEMPLATES_AFTER_DEACTIVATION,
 *   destroyed so deletes are queued to the terminals;
 * - staged agent uploads of sessions past ENROLLMENT_SESSION_TTL (the sessions are expired);
 * - past the punch horizon (RETENTION_PUNCHES_DAYS) too: the personal data of the event log
 *   (personal-data.ts: events keep their place and ids, lose names, PINs, cards, dates and
 *   times; never one a follower or webhook endpoint has not processed yet) and of the audit log
 *   (entries about a person keep who did what to which id, and when); and the tombstones of
 *   enrollees deleted before the horizon lose their name, employee key and PIN once no terminal
 *   is known to hold that PIN or owes a command about it (otherwise next time); and the
 *   built-in directory's employees inactive since before the horizon for whom nobody is
 *   enrolled any more are erased (a leaver's name: the reports name people from their tombstones);
 * - events of the log recorded before RETENTION_EVENTS_DAYS, behind its slowest reader: never
 *   one a log follower or a webhook endpoint (active or disabled) has not processed, nor one
 *   of a message queued by hand (the same hold as the redaction's);
 * - the databases `fpa:restore` replaced (`<db>.replaced-<time>`) more than RESTORE_KEEP_REPLACED
 *   ago: each holds everyone as of its restore, sealed templates included, and no deletion,
 *   consent withdrawal or purge after the restore reaches it (the server also does this at
 *   start: forgetReplacedDatabases).
 */

import { formatDuration } from '../../platform/config/values';
import { emptyWal } from '../../platform/db/erase';
import { removeReplacedBefore, removeUnfinishedRestore } from '../../platform/db/restore';
import { localDateOf } from '../../platform/time/dates';
import type { Anomalies } from '../anomalies';
import type { AttendanceService } from '../attendance';
import { audit, redactAuditBefore } from '../audit';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { EmployeeService } from '../employees';
import type { EnrolleeService } from '../enrollees';
import type { Enrollment } from '../enrollment';
import type { EventLog } from '../events';
import type { DeletionProofs } from '../proofs';
import type { PunchService } from '../punches';
import type { Webhooks } from '../webhooks';
import { personalDataRules } from './personal-data';
import type { RetentionRuntime } from './runtime';

const DAY_MS = 86_400_000;
/** Deleted enrollees looked at per step of the tombstone scrub. */
const TOMBSTONE_BATCH = 500;

export type PurgeCounts = {
  punches: number;
  attendance_days: number;
  device_commands: number;
  webhook_deliveries: number;
  webhook_messages: number;
  device_events: number;
  templates: number;
  sessions_expired: number;
  enrollees_scrubbed: number;
  employees_erased: number;
  events_redacted: number;
  audit_redacted: number;
  events_purged: number;
  deletion_proofs: number;
  anomalies: number;
  replaced_databases: number;
};

export interface RetentionDeps {
  punches: PunchService;
  attendance: AttendanceService;
  commands: CommandService;
  webhooks: Webhooks;
  devices: DeviceService;
  enrollment: Enrollment;
  enrollees: EnrolleeService;
  employees: EmployeeService;
  proofs: DeletionProofs;
  anomalies: Anomalies;
  log: EventLog;
}

export class Retention {
  constructor(
    private readonly ctx: RetentionRuntime,
    private readonly deps: RetentionDeps,
  ) {}

  async purge(): Promise<PurgeCounts> {
    const { ctx } = this;
    const { punches, attendance, commands, webhooks, devices, enrollment, log } = this.deps;
    const s = ctx.settings;
    const now = ctx.clock.now();
    const cutoff = (days: number): number | null => (days > 0 ? now - days * DAY_MS : null);
    const counts: PurgeCounts = {
      punches: 0,
      attendance_days: 0,
      device_commands: 0,
      webhook_deliveries: 0,
      webhook_messages: 0,
      device_events: 0,
      templates: 0,
      // Staged agent uploads live only as long as their session: expiring overdue sessions here
      // discards them even where nobody schedules `fpa:expire-sessions`.
      sessions_expired: (await enrollment.sessions.expireDue()).expired,
      enrollees_scrubbed: 0,
      employees_erased: 0,
      events_redacted: 0,
      audit_redacted: 0,
      events_purged: 0,
      deletion_proofs: 0,
      anomalies: 0,
      replaced_databases: this.forgetReplacedDatabases(),
    };
    const punchCutoff = cutoff(s.RETENTION_PUNCHES_DAYS);
    if (punchCutoff !== null) {
      counts.punches = await punches.purgeBefore(punchCutoff);
      counts.attendance_days = await attendance.purgeBefore(localDateOf(punchCutoff, s.ATTENDANCE_TIME_ZONE));
      counts.attendance_days += await attendance.purgeResetClockDays(await punches.resetClockHolders());
      counts.anomalies = await this.deps.anomalies.purgeBefore(punchCutoff);
      await devices.users.departures.purgeBefore(punchCutoff); // decides only punches dated before a departure
    }
    const commandCutoff = cutoff(s.RETENTION_COMMANDS_DAYS);
    if (commandCutoff !== null) counts.device_commands = await commands.purgeFinishedBefore(commandCutoff);
    const deliveryCutoff = cutoff(s.RETENTION_DELIVERIES_DAYS);
    if (deliveryCutoff !== null) Object.assign(counts, await webhooks.purgeBefore(deliveryCutoff));
    const proofCutoff = cutoff(s.RETENTION_DELETION_PROOFS_DAYS);
    if (proofCutoff !== null) counts.deletion_proofs = await this.deps.proofs.purgeBefore(proofCutoff);
    const eventCutoff = cutoff(s.RETENTION_DEVICE_EVENTS_DAYS);
    if (eventCutoff !== null) counts.device_events = await devices.purgeLogBefore(eventCutoff);
    if (s.RETENTION_TEMPLATES_AFTER_DEACTIVATION > 0) {
      counts.templates = await enrollment.templates.destroyOfDeactivated(now - s.RETENTION_TEMPLATES_AFTER_DEACTIVATION);
    }
    // Before the redaction: what is gone needs no rewriting.
    const logCutoff = cutoff(s.RETENTION_EVENTS_DAYS);
    if (logCutoff !== null) counts.events_purged = await log.pruning.purgeBefore(logCutoff, (events) => webhooks.stillOwed(events));
    if (punchCutoff !== null) Object.assign(counts, await this.purgePersonalData(punchCutoff));
    await ctx.db.write(({ tx }) =>
      audit(tx, ctx.clock.now(), { actor: 'system', action: 'retention.purged', targetType: 'retention', details: { ...counts } }),
    );
    return counts;
  }

  /** The people past the horizon: tombstones scrubbed, employees erased, events and audit entries redacted; then the WAL emptied. */
  private async purgePersonalData(
    punchCutoff: number,
  ): Promise<Pick<PurgeCounts, 'enrollees_scrubbed' | 'employees_erased' | 'events_redacted' | 'audit_redacted'>> {
    const { log, webhooks } = this.deps;
    const counts = {
      enrollees_scrubbed: await this.scrubTombstones(punchCutoff),
      employees_erased: await this.deps.employees.eraseInactiveBefore(punchCutoff),
      events_redacted: await log.pruning.redactOld(personalDataRules(punchCutoff, localDateOf(punchCutoff, this.ctx.settings.ATTENDANCE_TIME_ZONE)), (events) =>
        webhooks.stillOwed(events),
      ),
      audit_redacted: await redactAuditBefore(this.ctx.db, punchCutoff),
    };
    if (counts.enrollees_scrubbed + counts.employees_erased + counts.events_redacted + counts.audit_redacted > 0) await this.eraseOldFrames();
    return counts;
  }

  /**
   * What the purge scrubbed is zeroed in the database's pages (secure delete), but the WAL's
   * older frames, and the database file until they are checkpointed, still hold it: emptied
   * (platform/db/erase.ts), or said when it cannot be yet.
   */
  private async eraseOldFrames(): Promise<void> {
    if (await emptyWal(this.ctx.db)) return;
    this.ctx.log.warn('personal data purged, but the WAL could not be emptied yet: its older frames hold it until the next checkpoints');
  }

  /**
   * Deletes the databases a restore replaced (`fpa:restore`: `<db>.replaced-<time>` beside the
   * database file) once RESTORE_KEEP_REPLACED has passed since the restore, each named in the
   * log; returns how many. A safety net for a few days: it holds everyone as of the restore,
   * their sealed templates too, and the deletions, consent withdrawals and purges after the
   * restore never reach it. A file it cannot delete is a warning.
   */
  forgetReplacedDatabases(): number {
    const { db, clock, log, settings } = this.ctx;
    if (!db.filePath) return 0;
    const { removed, failed } = removeReplacedBefore(db.filePath, clock.now() - settings.RESTORE_KEEP_REPLACED);
    const kept = formatDuration(settings.RESTORE_KEEP_REPLACED);
    for (const file of removed) log.info(`deleted ${file}, the database a restore replaced, kept ${kept} (RESTORE_KEEP_REPLACED)`, { file });
    for (const { file, reason } of failed) {
      log.warn(`could not delete ${file}, the database a restore replaced (kept past RESTORE_KEEP_REPLACED ${kept}): ${reason}`, { file });
    }
    // A restore stopped before it put the backup in place left its copy: everyone as of the
    // backup, beyond every deletion and withdrawal since. Nothing else ever removed it.
    const unfinished = removeUnfinishedRestore(db.filePath);
    if (unfinished) log.info(`deleted ${unfinished}, the copy of a restore that did not finish (the database was not replaced)`, { file: unfinished });
    return removed.length + (unfinished ? 1 : 0);
  }

  /**
   * The tombstones of enrollees deleted before `cutoff` lose what named them, except where a
   * terminal is still known to hold their PIN (a removed terminal that never came back, a
   * delete not confirmed yet) or a command about it is unfinished: their deletes still need it.
   */
  private async scrubTombstones(cutoff: number): Promise<number> {
    const { enrollees, devices, commands } = this.deps;
    let scrubbed = 0;
    const skipped = new Set<string>();
    for (;;) {
      const batch = (await enrollees.retention.deletedBefore(cutoff, TOMBSTONE_BATCH + skipped.size)).filter((e) => !skipped.has(e.id));
      if (batch.length === 0) return scrubbed;
      const owed = await commands.lookups.pinsInOpenCommands(batch.map((e) => e.devicePin));
      const free: string[] = [];
      for (const e of batch) {
        if (owed.has(e.devicePin) || (await devices.users.pinKnown(this.ctx.db.orm, e.devicePin))) skipped.add(e.id);
        else free.push(e.id);
      }
      // Their deletion proofs stop naming them first (a crash in between leaves the name nowhere).
      await this.deps.proofs.forget(free);
      await this.deps.anomalies.forget(free);
      scrubbed += await enrollees.retention.scrubDeleted(free);
      if (batch.length < TOMBSTONE_BATCH) return scrubbed;
    }
  }
}
