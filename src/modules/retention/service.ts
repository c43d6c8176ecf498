/**
 * purge-retention: removes what the RETENTION_* settings no longer keep, through each owning
 * module. Every limit set to 0 (or below) keeps that data forever. Rows are deleted in bounded
 * batches, each its own write transaction, so terminals' punch uploads never wait behind a purge.
 *
 * - punches with `punched_at` older than RETENTION_PUNCHES_DAYS, and attendance days whose local
 *   date is before the local date of that cutoff (the day holding the cutoff stays whole);
 * - finished device commands completed before RETENTION_COMMANDS_DAYS; pending and sent stay;
 * - webhook delivery attempts, and message rows delivered, older than RETENTION_DELIVERIES_DAYS;
 *   pending and dead message rows stay (the events themselves are the log's);
 * - device log entries older than RETENTION_DEVICE_EVENTS_DAYS;
 * - templates of enrollees deactivated longer than RETENTION_TEMPLATES_AFTER_DEACTIVATION,
 *   destroyed so deletes are queued to the terminals;
 * - staged agent uploads of sessions past ENROLLMENT_SESSION_TTL (the sessions are expired).
 */
import type { Runtime } from '../../platform/runtime';
import { localDateOf } from '../../platform/time/dates';
import type { AttendanceService } from '../attendance';
import { audit } from '../audit';
import type { Biometrics } from '../biometrics';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { Enrollment } from '../enrollment';
import type { PunchService } from '../punches';
import type { Webhooks } from '../webhooks';

const DAY_MS = 86_400_000;

export type PurgeCounts = {
  punches: number;
  attendance_days: number;
  device_commands: number;
  webhook_deliveries: number;
  webhook_messages: number;
  device_events: number;
  templates: number;
  sessions_expired: number;
};

export interface RetentionDeps {
  punches: PunchService;
  attendance: AttendanceService;
  commands: CommandService;
  webhooks: Webhooks;
  devices: DeviceService;
  biometrics: Biometrics;
  enrollment: Enrollment;
}

export class Retention {
  constructor(
    private readonly ctx: Runtime,
    private readonly deps: RetentionDeps,
  ) {}

  async purge(): Promise<PurgeCounts> {
    const { ctx } = this;
    const { punches, attendance, commands, webhooks, devices, biometrics, enrollment } = this.deps;
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
    };
    const punchCutoff = cutoff(s.RETENTION_PUNCHES_DAYS);
    if (punchCutoff !== null) {
      counts.punches = await punches.purgeBefore(punchCutoff);
      counts.attendance_days = await attendance.purgeBefore(localDateOf(punchCutoff, s.ATTENDANCE_TIME_ZONE));
    }
    const commandCutoff = cutoff(s.RETENTION_COMMANDS_DAYS);
    if (commandCutoff !== null) counts.device_commands = await commands.purgeFinishedBefore(commandCutoff);
    const deliveryCutoff = cutoff(s.RETENTION_DELIVERIES_DAYS);
    if (deliveryCutoff !== null) Object.assign(counts, await webhooks.purgeBefore(deliveryCutoff));
    const eventCutoff = cutoff(s.RETENTION_DEVICE_EVENTS_DAYS);
    if (eventCutoff !== null) counts.device_events = await devices.purgeLogBefore(eventCutoff);
    if (s.RETENTION_TEMPLATES_AFTER_DEACTIVATION > 0) {
      counts.templates = await biometrics.destroyOfDeactivated(now - s.RETENTION_TEMPLATES_AFTER_DEACTIVATION);
    }
    await ctx.db.write(({ tx }) =>
      audit(tx, ctx.clock.now(), { actor: 'system', action: 'retention.purged', targetType: 'retention', details: { ...counts } }),
    );
    return counts;
  }
}
