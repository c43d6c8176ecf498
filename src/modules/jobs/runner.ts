/**
 * Periodic jobs. Each job is one function that the schedule, `POST jobs/{name}/run/` and the
 * `bun run fpa:<name>` script all call. A lease row in the database makes sure one instance
 * runs a job at a time and that a run never overlaps itself; a scheduled run also claims its
 * slot (the time its schedule fired for) in that row, so each scheduled occurrence runs once
 * across instances, however late another instance's tick for it comes. Every job is idempotent,
 * so a schedule that fires twice (a laptop waking up, elysia-cron#32) does no harm.
 *
 * With TASK_BACKEND=cron the schedules run in-process through @elysiajs/cron, started and
 * stopped with the service; with `external` nothing is scheduled.
 */
import { cron } from '@elysiajs/cron';
import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { type AnyElysia, Elysia } from 'elysia';
import { describeError, FpaError } from '../../platform/errors';
import { actingAs } from '../../platform/request-context';
import type { JobRuntime } from './runtime';
import { slotOf } from './slots';
import { jobLeases } from './tables';

export type JobResult = Record<string, unknown>;

export interface JobDefinition {
  name: string;
  /** Cron pattern (croner syntax, seconds optional); null for jobs only run by hand (rotate-keys). */
  schedule: string | null;
  description: string;
  /** The parameters it takes (`params` of `POST jobs/{name}/run/`, the script's options); none when absent. */
  params?: readonly string[];
  /** Throws a validation_error for parameters it cannot run with; checked before the run is taken or recorded. */
  checkParams?(params: Record<string, string>): void | Promise<void>;
  run(params: Record<string, string>): Promise<JobResult>;
  /**
   * A daily job whose missed run matters (a machine switched off at night, a server down over a
   * weekend): at start, a slot of its schedule that no instance ran is run then, once across
   * instances. `params` says what a scheduled run covers, given the slot claimed before it (null:
   * none yet): the nights it follows, not only the last one.
   */
  catchUp?: { params?(previousSlot: number | null): Record<string, string> | Promise<Record<string, string>> };
}

export interface JobRunOutcome {
  job: string;
  status: 'succeeded' | 'failed' | 'skipped';
  result: JobResult;
  summary: string;
  started_at: string;
  finished_at: string;
}

const LEASE_MS = 5 * 60_000;
const RENEW_MS = 60_000;

interface RunOptions {
  wait?: boolean;
  trigger?: string;
  params?: Record<string, string>;
  /** A scheduled run: the slot its schedule fired for (ms), claimed once across instances. */
  slot?: number;
}

export class JobRunner {
  private readonly definitions = new Map<string, JobDefinition>();
  private scheduler: AnyElysia | null = null;
  private readonly running = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(private readonly ctx: JobRuntime) {}

  register(definition: JobDefinition): void {
    this.definitions.set(definition.name, definition);
  }

  names(): string[] {
    return [...this.definitions.keys()];
  }

  has(name: string): boolean {
    return this.definitions.has(name);
  }

  /**
   * Runs a job now under its lease. `wait` (manual runs) waits for a run elsewhere to end;
   * scheduled runs simply skip.
   */
  async run(name: string, options: RunOptions = {}): Promise<JobRunOutcome> {
    const definition = this.definitions.get(name);
    if (!definition) throw new FpaError('not_found', 'no such job', { job: name, jobs: this.names() });
    // A caller's mistake is refused here: it never becomes a failed run in the job's history.
    await refuseParams(definition, options.params ?? {});
    // The whole run (lease taken to lease released) is tracked, so stop() never lets the
    // database close under a run that still has to release its lease.
    return this.tracked(() => this.runUnderLease(definition, options));
  }

  private async runUnderLease(definition: JobDefinition, options: RunOptions): Promise<JobRunOutcome> {
    const name = definition.name;
    const startedAt = this.ctx.clock.now();
    const deadline = Date.now() + (options.wait ? 30_000 : 0);
    while (!(await this.acquire(name, options.slot))) {
      if (Date.now() >= deadline) {
        if (options.wait) throw new FpaError('job_running', `${name} is running in another instance`, { job: name });
        return outcome(name, 'skipped', { reason: await this.whySkipped(name, options.slot) }, startedAt, this.ctx.clock.now());
      }
      await Bun.sleep(250);
    }
    const renew = setInterval(() => void this.renew(name), RENEW_MS);
    let status: 'succeeded' | 'failed' = 'succeeded';
    let result: JobResult;
    try {
      // What the job writes is the job's in the audit log, whoever asked for the run.
      result = await actingAs({ kind: 'job', id: name }, () => definition.run(options.params ?? {}));
    } catch (error) {
      status = 'failed';
      result = { error: describeError(error) };
    } finally {
      clearInterval(renew);
    }
    const finishedAt = this.ctx.clock.now();
    await this.release(name, status, result, finishedAt);
    const run = outcome(name, status, result, startedAt, finishedAt);
    // Routine scheduled runs would flood the log every minute; failures and manual runs are news.
    const level = status === 'failed' ? 'error' : options.trigger === 'schedule' ? 'debug' : 'info';
    this.ctx.log[level](`job ${name} ${status}`, { trigger: options.trigger ?? 'manual', summary: run.summary });
    return run;
  }

  /**
   * What a job's schedule runs at each tick: the run for the slot the tick is for (the latest
   * time at or before now its pattern names), skipped when any instance has claimed that slot.
   */
  runScheduled(name: string, trigger = 'schedule'): Promise<JobRunOutcome> {
    // Tracked from its first await: a tick that fires as the service stops is waited for by stop(), or skipped.
    return this.tracked(async () => {
      const definition = this.definitions.get(name);
      const now = this.ctx.clock.now();
      if (this.stopping) return outcome(name, 'skipped', { reason: 'the service is stopping' }, now, now);
      const slot = definition?.schedule ? slotOf(definition.schedule, now) : now - (now % 1000);
      const params = await definition?.catchUp?.params?.(await this.lastSlot(name));
      return this.run(name, { trigger, slot, ...(params ? { params } : {}) });
    });
  }

  /** A piece of work stop() waits for. */
  private async tracked<T>(work: () => Promise<T>): Promise<T> {
    const whole = work();
    this.running.add(whole);
    try {
      return await whole;
    } finally {
      this.running.delete(whole);
    }
  }

  /**
   * Runs, once across instances, the slot of each catch-up job that no instance ran: the nights
   * this machine was off. Each in turn, after the start: a slot run meanwhile by another
   * instance, or by the schedule, is skipped by its claim.
   */
  async catchUp(): Promise<JobRunOutcome[]> {
    const out: JobRunOutcome[] = [];
    for (const d of this.definitions.values()) {
      if (this.stopping) break;
      if (!d.schedule || !d.catchUp) continue;
      const missed = await this.lastSlot(d.name);
      if (missed !== null && missed >= slotOf(d.schedule, this.ctx.clock.now())) continue;
      out.push(await this.runScheduled(d.name, 'catch-up'));
    }
    return out;
  }

  /** The latest slot an instance claimed a scheduled run of; null when none ever was. */
  private async lastSlot(name: string): Promise<number | null> {
    const [row] = await this.ctx.db.orm.select({ lastSlot: jobLeases.lastSlot }).from(jobLeases).where(eq(jobLeases.name, name));
    return row?.lastSlot ?? null;
  }

  /** Starts the in-process schedules (TASK_BACKEND=cron). */
  start(): void {
    if (this.scheduler || this.ctx.settings.TASK_BACKEND !== 'cron') return;
    let app: AnyElysia = new Elysia({ name: `fpa-jobs-${this.ctx.instanceId}` });
    for (const definition of this.definitions.values()) {
      if (!definition.schedule) continue;
      app = app.use(
        cron({
          name: definition.name,
          pattern: definition.schedule,
          protect: true,
          catch: true,
          // Returning the promise lets croner's `protect` skip a tick while this instance's
          // run is still going; the lease does the same across instances.
          run: () =>
            this.runScheduled(definition.name).catch((error: unknown) =>
              this.ctx.log.error(`scheduled job ${definition.name} failed`, { error: describeError(error) }),
            ),
        }),
      );
    }
    this.scheduler = app;
    this.stopping = false;
    // After the start's own work: what the nights this machine was off missed.
    void this.tracked(() =>
      this.catchUp().catch((error: unknown) => this.ctx.log.error('catching up missed job runs failed', { error: describeError(error) })),
    );
  }

  /** Stops the schedules and waits for runs in progress. */
  async stop(): Promise<void> {
    // No catch-up job, nor a tick's run, starts from now on; those under way are waited for.
    this.stopping = true;
    const store = (this.scheduler?.store as { cron?: Record<string, { stop(): void }> } | undefined)?.cron ?? {};
    for (const job of Object.values(store)) job.stop();
    this.scheduler = null;
    await Promise.allSettled([...this.running]);
  }

  /** `GET jobs/`: schedule, last run, last result, next run and holder of each job. */
  async describe() {
    const rows = await this.ctx.db.orm.select().from(jobLeases);
    const byName = new Map(rows.map((r) => [r.name, r]));
    const store = (this.scheduler?.store as { cron?: Record<string, { nextRun(): Date | null }> } | undefined)?.cron ?? {};
    const now = this.ctx.clock.now();
    return [...this.definitions.values()].map((d) => {
      const row = byName.get(d.name);
      const held = row?.holder && row.leaseUntil && row.leaseUntil > now;
      return {
        name: d.name,
        description: d.description,
        schedule: d.schedule,
        scheduled: this.ctx.settings.TASK_BACKEND === 'cron' && d.schedule !== null,
        running: Boolean(held),
        holder: held ? row!.holder : null,
        last_started_at: iso(row?.lastStartedAt),
        last_finished_at: iso(row?.lastFinishedAt),
        last_status: row?.lastStatus ?? null,
        last_result: row?.lastResult ?? null,
        last_holder: row?.lastHolder ?? null,
        next_run_at: store[d.name]?.nextRun()?.toISOString() ?? null,
      };
    });
  }

  /**
   * Frees every job lease (what a process does when it takes a file database's writer lock: the
   * holders it finds died, in a crash or a kill, mid-run). Each is recorded as interrupted, so a
   * run killed mid-way neither blocks the job for a lease nor reads as still running.
   */
  async releaseLeases(): Promise<string[]> {
    const now = this.ctx.clock.now();
    const released = await this.ctx.db.write(({ tx }) =>
      tx
        .update(jobLeases)
        // `last_holder` the dead one (the right side reads the row as it was).
        .set({
          holder: null,
          leaseUntil: null,
          lastFinishedAt: now,
          lastStatus: 'failed',
          lastResult: { error: 'interrupted: the process running it ended' },
          lastHolder: sql`${jobLeases.holder}`,
        })
        .where(isNotNull(jobLeases.holder))
        .returning({ name: jobLeases.name }),
    );
    const names = released.map((r) => r.name);
    if (names.length > 0) this.ctx.log.warn('job runs of a previous process were interrupted; their leases are released', { jobs: names });
    return names;
  }

  /**
   * Takes the lease when it is free (or expired); a scheduled run also claims its slot, in the
   * same compare-and-set, when no instance has claimed it or a later one.
   */
  private async acquire(name: string, slot?: number): Promise<boolean> {
    const now = this.ctx.clock.now();
    const free = or(isNull(jobLeases.holder), lt(jobLeases.leaseUntil, now));
    const unclaimed = slot === undefined ? undefined : or(isNull(jobLeases.lastSlot), lt(jobLeases.lastSlot, slot));
    return this.ctx.db.write(async ({ tx }) => {
      await tx.insert(jobLeases).values({ name }).onConflictDoNothing();
      const taken = await tx
        .update(jobLeases)
        .set({ holder: this.ctx.instanceId, leaseUntil: now + LEASE_MS, lastStartedAt: now, ...(slot === undefined ? {} : { lastSlot: slot }) })
        .where(and(eq(jobLeases.name, name), free, unclaimed))
        .returning({ name: jobLeases.name });
      return taken.length === 1;
    });
  }

  /** Why a run that did not wait was skipped: its slot already claimed, or the job running elsewhere. */
  private async whySkipped(name: string, slot: number | undefined): Promise<string> {
    if (slot === undefined) return 'running in another instance';
    const claimed = await this.lastSlot(name);
    return claimed !== null && claimed >= slot ? `already run for its slot (${new Date(slot).toISOString()})` : 'running in another instance';
  }

  private async renew(name: string): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db
      .write(({ tx }) =>
        tx
          .update(jobLeases)
          .set({ leaseUntil: now + LEASE_MS })
          .where(and(eq(jobLeases.name, name), eq(jobLeases.holder, this.ctx.instanceId))),
      )
      .catch(() => undefined);
  }

  private async release(name: string, status: string, result: JobResult, now: number): Promise<void> {
    await this.ctx.db.write(({ tx }) =>
      tx
        .update(jobLeases)
        .set({ holder: null, leaseUntil: null, lastFinishedAt: now, lastStatus: status, lastResult: result, lastHolder: this.ctx.instanceId })
        .where(and(eq(jobLeases.name, name), eq(jobLeases.holder, this.ctx.instanceId))),
    );
  }
}

/** Parameters the job does not take, or values it cannot run with: a validation_error naming them. */
async function refuseParams(definition: JobDefinition, params: Record<string, string>): Promise<void> {
  const accepted = definition.params ?? [];
  const unknown = Object.keys(params).filter((key) => !accepted.includes(key));
  if (unknown.length > 0) {
    const takes = accepted.length > 0 ? `it takes ${accepted.join(', ')}` : 'it takes none';
    throw new FpaError('validation_error', `${definition.name} has no parameter ${unknown.join(', ')} (${takes})`, { job: definition.name, unknown, accepted });
  }
  await definition.checkParams?.(params);
}

function iso(ms: number | null | undefined): string | null {
  return ms ? new Date(ms).toISOString() : null;
}

/** One line an operator reads: `check-devices succeeded: offline=1 online=3`. */
export function summarize(name: string, status: string, result: JobResult): string {
  const parts = Object.entries(result).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return `${name} ${status}${parts.length ? `: ${parts.join(' ')}` : ''}`;
}

function outcome(name: string, status: JobRunOutcome['status'], result: JobResult, started: number, finished: number): JobRunOutcome {
  return {
    job: name,
    status,
    result,
    summary: summarize(name, status, result),
    started_at: new Date(started).toISOString(),
    finished_at: new Date(finished).toISOString(),
  };
}
