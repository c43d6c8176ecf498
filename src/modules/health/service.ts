/**
 * An operator's first look (`health/`): terminals, commands, webhook backlog, jobs, punches
 * today; and readiness for load balancers (`/readyz`). It only asks the other modules.
 */
import { stat } from 'node:fs/promises';
import { isMigrated } from '../../platform/db/client';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import { dayBounds, localDateOf } from '../../platform/time/dates';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { JobRunner } from '../jobs';
import type { PunchService } from '../punches';
import type { WebhookBacklog, Webhooks } from '../webhooks';
import type { HealthView } from './model';
import type { HealthRuntime } from './runtime';

export interface HealthDeps {
  devices: DeviceService;
  commands: CommandService;
  webhooks: Webhooks;
  jobs: JobRunner;
  punches: PunchService;
}

export class HealthService {
  constructor(
    private readonly ctx: HealthRuntime,
    private readonly deps: HealthDeps,
  ) {
    this.registerAlertGauges();
  }

  /**
   * What an operator alerts on, in `/metrics` (the same figures as `health/`, which needs an
   * administrator): each job's last run (a failed nightly job is otherwise silent), the age of the
   * oldest undelivered webhook message (payroll falling behind; the webhooks module adds the
   * endpoints disabled and the dead letters), and the database's size on disk.
   */
  private registerAlertGauges(): void {
    const { metrics } = this.ctx;
    const jobs = () => this.deps.jobs.describe();
    metrics.gauge('fpa_job_last_succeeded', 'Whether the job’s last run succeeded (1) or failed (0); a job never run is absent.', ['job'], async () =>
      (await jobs()).flatMap((j) =>
        j.last_status === 'succeeded' || j.last_status === 'failed' ? [{ labels: { job: j.name }, value: j.last_status === 'succeeded' ? 1 : 0 }] : [],
      ),
    );
    metrics.gauge('fpa_job_last_finished_timestamp_seconds', 'When the job’s last run finished (Unix time); a job never run is absent.', ['job'], async () =>
      (await jobs()).flatMap((j) => (j.last_finished_at ? [{ labels: { job: j.name }, value: Date.parse(j.last_finished_at) / 1000 }] : [])),
    );
    metrics.gauge(
      'fpa_webhook_oldest_pending_age_seconds',
      'Age of the oldest webhook message not delivered yet, held ones of disabled endpoints included (0 when none).',
      [],
      async () => {
        const oldest = (await this.deps.webhooks.backlog()).oldest_at;
        return [{ value: oldest ? Math.max(0, (this.ctx.clock.now() - Date.parse(oldest)) / 1000) : 0 }];
      },
    );
    metrics.gauge('fpa_database_bytes', 'Size on disk of the database file and its WAL (a `file:` database only).', ['file'], async () => {
      const path = this.ctx.db.filePath;
      if (!path) return [];
      return [
        { labels: { file: 'database' }, value: await sizeOf(path) },
        { labels: { file: 'wal' }, value: await sizeOf(`${path}-wal`) },
      ];
    });
  }

  /**
   * A caller limited to areas is told about its own terminals, their commands and its punches;
   * the webhook backlog and the jobs are no area's (policy.ts): it gets none of them (0 and []).
   */
  /**
   * `options.endpoints`: whether the caller may see the webhook endpoints (`GET webhooks/`); one
   * who may not gets the counts without the endpoints concerned (`attention` empty).
   */
  async health(scope: AreaScope = EVERYWHERE, options: { endpoints?: boolean } = {}): Promise<HealthView> {
    const { devices, commands, webhooks, jobs, punches } = this.deps;
    const now = this.ctx.clock.now();
    const zone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
    const today = localDateOf(now, zone);
    const counts = await devices.views.counts(scope);
    const byStatus = await commands.lookups.countByStatus(undefined, scope);
    const limited = isLimited(scope);
    const backlog = limited ? NO_BACKLOG : await webhooks.backlog();
    return {
      status: 'ok',
      at: new Date(now).toISOString(),
      terminals: { online: counts.online, offline: counts.offline, pending: counts.pending_approval, disabled: counts.disabled },
      commands: {
        pending: (byStatus.pending ?? 0) + (byStatus.sent ?? 0),
        failed: byStatus.failed ?? 0,
        deletes_pending: await commands.lookups.countOpenDeletes(undefined, scope),
      },
      webhooks: {
        // Not `ok` while payroll is missing messages; the service itself is up (no status but this part's changes).
        status: backlog.endpoints_disabled > 0 || backlog.dead_letters > 0 || backlog.attention.some((a) => a.failing_since !== null) ? 'warning' : 'ok',
        backlog: backlog.pending,
        held: backlog.held,
        oldest_pending_at: backlog.oldest_at,
        oldest_pending_age_seconds: backlog.oldest_at ? Math.floor((now - Date.parse(backlog.oldest_at)) / 1000) : null,
        endpoints_disabled: backlog.endpoints_disabled,
        dead_letters: backlog.dead_letters,
        attention: options.endpoints === false ? [] : backlog.attention,
      },
      jobs: (limited ? [] : await jobs.describe()).map((j) => ({
        name: j.name,
        last_status: j.last_status,
        last_finished_at: j.last_finished_at,
        next_run_at: j.next_run_at,
      })),
      punches_today: await punches.countSince(dayBounds(today, zone).start, scope),
    };
  }

  /** Ready to serve: the database answers and every migration is applied. */
  async ready(): Promise<boolean> {
    try {
      return await isMigrated(this.ctx.db);
    } catch {
      return false;
    }
  }
}

/** What a caller limited to areas is told of the webhooks: nothing (they are no area's). */
const NO_BACKLOG: WebhookBacklog = { pending: 0, held: 0, oldest_at: null, endpoints_disabled: 0, dead_letters: 0, attention: [] };

/** A file's size in bytes; 0 when it is not there (no WAL between checkpoints' truncations). */
async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
