/**
 * Device commands: queued in the database, rendered to ADMS text when a terminal polls, and
 * closed by the terminal's `devicecmd` result (matched by command id, never by CMD echo).
 *
 * States: pending → sent → succeeded | failed | expired (| superseded while still pending).
 * A sent command with no result by its acknowledgement deadline, or one that failed with a
 * transient code, goes back to pending with a doubling backoff until COMMAND_MAX_RETRIES.
 * Deletes are the exception: they never expire and are retried until the terminal answers,
 * because a terminal must not keep biometric data it should no longer hold. Enroll commands
 * wait for the person at the terminal until their session ends. A `reboot` is never resent
 * unanswered (a terminal restarting answers nothing): the terminal's next handshake closes it as
 * succeeded (terminalStarted), else it fails at its deadline.
 *
 * This class is the queue's life: commands in, results and timeouts, their ends. What a poll
 * reads and marks is `polls` (polls.ts), the operator's actions are `operator`
 * (operator-actions.ts), what other modules ask of the queue is `lookups` (lookups.ts).
 */
import { and, eq, inArray, lt, lte, notInArray, or, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Tx, WriteContext } from '../../platform/db/client';
import { deleteInBatches } from '../../platform/db/purge';
import { type DeviceService, noteOnDevice } from '../devices';
import type { EventChannel, EventLog } from '../events';
import { CommandEndings } from './endings';
import type { CommandEvents } from './events';
import {
  type CommandAnswer,
  type CommandRow,
  DELETE_KINDS,
  INTERACTIVE_KINDS,
  isPermanentFailure,
  NEVER_EXPIRES,
  type NewCommand,
  NO_RESULT,
  NOT_RESENT_KINDS,
  RESTARTED,
  USER_NOT_ON_DEVICE,
  wentOut,
} from './kinds';
import { finishedForm } from './logged';
import { CommandLookups } from './lookups';
import { refusalNoted } from './open';
import { OperatorActions } from './operator-actions';
import { CommandPolls } from './polls';
import { notIndexed } from './query-plans';
import type { CommandRuntime } from './runtime';
import { closeKeyed, pendingWithKeys, planQueue, type QueuePlan, type ReplacedDelete } from './supersede';
import { type CommandStatus, deviceCommands } from './tables';

/** What is told of deletes closed for a delete that took their place (CommandService.onDeletesReplaced). */
export type DeletesReplaced = (w: WriteContext, replaced: readonly ReplacedDelete[]) => Promise<void>;

/** Retries back off by doubling, but a terminal that comes back is served within the hour. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** SQLite bind-variable budget per `IN (...)` list. */
const IN_CHUNK = 500;
/** Ignored results noted one by one on the terminal's log per request; the rest are counted. */
const IGNORED_NOTED = 20;

/** A command a result may close: sent, or put back for a resend after it went out (a late answer to that send). */
function awaitsResult(command: CommandRow): boolean {
  return command.status === 'sent' || (command.status === 'pending' && wentOut(command));
}

/**
 * Notes on the terminal's log the results that were ignored because no command of this terminal
 * has their id, or because that command was never sent (a forged or confused answer).
 */
async function noteIgnoredResults(tx: Tx, deviceId: string, unknown: readonly string[], neverSent: readonly string[], now: number): Promise<void> {
  const ignored = [...unknown.map((id) => ({ id, reason: 'unknown' as const })), ...neverSent.map((id) => ({ id, reason: 'never_sent' as const }))];
  for (const { id, reason } of ignored.slice(0, IGNORED_NOTED)) {
    const why = reason === 'unknown' ? 'no command of this terminal has that id' : 'that command was never sent to the terminal';
    await noteOnDevice(tx, deviceId, 'command_result_ignored', `result for command ${id.slice(0, 40)} ignored: ${why}`, { id: id.slice(0, 40), reason }, now);
  }
  if (ignored.length > IGNORED_NOTED) {
    const more = ignored.length - IGNORED_NOTED;
    await noteOnDevice(tx, deviceId, 'command_result_ignored', `${more} more results ignored`, { more }, now);
  }
}

export class CommandService {
  readonly events: EventChannel<CommandEvents>;
  /** The queue as a terminal's poll reads it: due commands, `sent` marks, idle marks. */
  readonly polls: CommandPolls;
  /** An operator's commands, cancel, retry, the queue as the API lists it. */
  readonly operator: OperatorActions;
  /** What other modules ask of the queue. */
  readonly lookups: CommandLookups;
  private readonly endings: CommandEndings;
  private readonly replacedListeners: DeletesReplaced[] = [];

  constructor(
    private readonly ctx: CommandRuntime,
    log: EventLog,
    devices: DeviceService,
  ) {
    this.events = log.channel<CommandEvents>();
    // The log keeps a command's payload as references only: no name, card or raw text (logged.ts).
    this.events.storeAs('device_command_finished', finishedForm);
    this.endings = new CommandEndings(ctx, this.events, devices);
    this.polls = new CommandPolls(ctx, this.endings);
    this.lookups = new CommandLookups(ctx, devices);
    this.operator = new OperatorActions(ctx, { enqueue: (w, commands) => this.enqueue(w, commands), endings: this.endings, polls: this.polls });
    ctx.metrics.gauge('fpa_device_commands_pending', 'Device commands waiting to be sent or answered (all terminals).', [], async () => {
      const counts = await this.lookups.countByStatus();
      return [{ value: (counts.pending ?? 0) + (counts.sent ?? 0) }];
    });
  }

  /**
   * Closes a terminal's unfinished commands but its deletes (they wait: the terminal may still
   * hold the data they remove), inside the caller's transaction (reactions.ts).
   */
  async closeAllButDeletes(w: WriteContext, deviceId: string, outcome: 'expired' | 'cancelled', reason: string): Promise<number> {
    return this.endings.closeMatching(w, and(eq(deviceCommands.deviceId, deviceId), notInArray(deviceCommands.kind, [...DELETE_KINDS]))!, outcome, reason);
  }

  /**
   * Queues commands inside the caller's transaction; wakes the devices after commit. A command
   * whose supersede key matches a never-sent one of the same device replaces it in place; one
   * that went out is superseded instead and the new command gets an id of its own, so that the
   * terminal's late answer to the old id never closes different content (supersede.ts). Returns
   * one id per given command.
   */
  async enqueue(w: Pick<WriteContext, 'tx' | 'afterCommit'>, commands: NewCommand[]): Promise<number[]> {
    if (commands.length === 0) return [];
    const { tx } = w;
    const now = this.ctx.clock.now();
    const defaultExpiry = now + this.ctx.settings.COMMAND_EXPIRY;
    const valuesOf = (c: NewCommand) => ({
      deviceId: c.deviceId,
      kind: c.kind,
      payload: c.payload,
      status: 'pending' as CommandStatus,
      supersedeKey: c.supersedeKey ?? null,
      sessionId: c.sessionId ?? null,
      attempts: 0,
      createdAt: now,
      notBefore: now,
      completedAt: null as number | null,
      expiresAt: c.expiresAt ?? (DELETE_KINDS.has(c.kind) ? NEVER_EXPIRES : defaultExpiry),
    });
    // Per device and key: its unsent commands in queue order, those already queued first.
    const queues = await pendingWithKeys(tx, commands);
    const plan = planQueue(commands, queues, valuesOf, (values) => ({ ...values, status: 'superseded' as CommandStatus, completedAt: now }));
    const insertedIds = await this.writePlan(tx, plan, now);
    const ids = plan.targets.map((t) => ('id' in t ? t.id : insertedIds[t.slot]!));
    const touched = new Set(commands.map((c) => c.deviceId));
    w.afterCommit(() => {
      for (const id of touched) this.polls.markQueued(id);
    });
    return ids;
  }

  /** Writes what enqueue planned (replacements: never-sent rows only); returns the ids of the inserted rows, in order. */
  private async writePlan(tx: Tx, plan: QueuePlan<typeof deviceCommands.$inferInsert>, now: number): Promise<number[]> {
    for (const [id, values] of plan.replacements) {
      await tx
        .update(deviceCommands)
        .set({ ...values, sentAt: null, ackDeadline: null, returnCode: null, result: null })
        .where(eq(deviceCommands.id, id));
    }
    for (const chunk of chunks([...plan.superseded], IN_CHUNK)) {
      await tx.update(deviceCommands).set({ status: 'superseded', completedAt: now }).where(inArray(deviceCommands.id, chunk));
    }
    const insertedIds: number[] = [];
    for (const chunk of chunks(plan.inserts, 400)) {
      const rows = await tx.insert(deviceCommands).values(chunk).returning({ id: deviceCommands.id });
      for (const r of rows) insertedIds.push(r.id);
    }
    return insertedIds;
  }

  /** Retention: finished commands (succeeded, failed, expired, superseded) completed before `cutoff`. */
  purgeFinishedBefore(cutoff: number): Promise<number> {
    return deleteInBatches(
      this.ctx.db,
      deviceCommands,
      and(
        inArray(deviceCommands.status, ['succeeded', 'failed', 'expired', 'superseded', 'cancelled']),
        lt(sql`coalesce(${deviceCommands.completedAt}, ${deviceCommands.createdAt})`, cutoff),
      )!,
    );
  }

  /**
   * Applies `devicecmd` results. Unknown or already-closed ids are ignored (resends); so is a
   * late answer to a command superseded since it went out: what superseded it is still sent and
   * awaited under its own id. A `pending` command that went out before holds the content it went
   * out with (supersede.ts never rewrites it), so its answer closes it. A result for a command
   * that never went out is ignored like an unknown id: the terminal cannot have run what it was
   * never sent, and taking it would close a delete (and confirm a deletion proof) that never
   * reached the terminal. Both are noted on the terminal's log (`command_result_ignored`).
   * `deletesOnly` (a terminal that is not approved): only results of deletes, the one kind it is sent.
   */
  async applyResults(deviceId: string, results: CommandAnswer[], options: { deletesOnly?: boolean } = {}): Promise<{ applied: number; unknown: string[] }> {
    const numeric = results.filter((r) => /^\d{1,15}$/.test(r.id));
    const unknown = results.filter((r) => !/^\d{1,15}$/.test(r.id)).map((r) => r.id);
    if (results.length === 0) return { applied: 0, unknown };
    const now = this.ctx.clock.now();
    let applied = 0;
    await this.ctx.db.write(async (w) => {
      const { tx, afterCommit } = w;
      const rows: CommandRow[] = [];
      for (const ids of chunks([...new Set(numeric.map((r) => Number(r.id)))], IN_CHUNK)) {
        rows.push(
          ...(await tx
            .select()
            .from(deviceCommands)
            .where(and(notIndexed(deviceCommands.deviceId, deviceId), inArray(deviceCommands.id, ids)))),
        );
      }
      const byId = new Map(rows.map((r) => [String(r.id), r]));
      const neverSent: string[] = [];
      for (const result of numeric) {
        const command = byId.get(result.id);
        if (!command) unknown.push(result.id);
        else if (command.status === 'pending' && !wentOut(command)) neverSent.push(result.id);
        if (!command || !awaitsResult(command)) continue;
        if (options.deletesOnly && !DELETE_KINDS.has(command.kind)) continue;
        applied++;
        const code = result.returnCode;
        const resultJson = { return: code, cmd: result.cmd, fields: result.fields };
        const nothingToDelete = code === USER_NOT_ON_DEVICE && DELETE_KINDS.has(command.kind);
        // A delete answered: the writes under its PIN that waited for it are due (polls.ts DUE_SQL).
        if (DELETE_KINDS.has(command.kind)) afterCommit(() => this.polls.markQueued(deviceId));
        if (code === 0 || nothingToDelete || (code !== null && code > 0 && !INTERACTIVE_KINDS.has(command.kind))) {
          await this.endings.close(w, command, 'succeeded', now, code, resultJson);
        } else if (this.mayRetry(command, code)) {
          await tx
            .update(deviceCommands)
            .set({
              status: 'pending',
              notBefore: now + this.backoff(command.attempts),
              returnCode: code,
              // A delete refused: when, for commands_failing (it is never failed).
              result: refusalNoted(command, code, resultJson, now),
            })
            .where(eq(deviceCommands.id, command.id));
          afterCommit(() => this.polls.markQueued(deviceId));
        } else {
          await this.endings.close(w, command, 'failed', now, code, resultJson);
        }
      }
      await noteIgnoredResults(tx, deviceId, unknown, neverSent, now);
      unknown.push(...neverSent);
    });
    return { applied, unknown };
  }

  /** Job `retry-commands`: sent commands whose result never came are resent or failed. */
  async retryUnacknowledged(): Promise<{ retried: number; failed: number }> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async (w) => {
      const { tx, afterCommit } = w;
      // Enroll commands are left to their session's end (expire-sessions, expire-commands).
      const overdue = await tx
        .select()
        .from(deviceCommands)
        .where(and(eq(deviceCommands.status, 'sent'), lte(deviceCommands.ackDeadline, now), notInArray(deviceCommands.kind, [...INTERACTIVE_KINDS])))
        .limit(5000);
      let retried = 0;
      let failed = 0;
      for (const command of overdue) {
        if (this.mayRetry(command, null)) {
          retried++;
          await tx
            .update(deviceCommands)
            .set({ status: 'pending', notBefore: now + this.backoff(command.attempts) })
            .where(eq(deviceCommands.id, command.id));
          afterCommit(() => this.polls.markQueued(command.deviceId));
        } else {
          failed++;
          await this.endings.close(w, command, 'failed', now, null, { reason: NO_RESULT });
        }
      }
      return { retried, failed };
    });
  }

  /**
   * A terminal handshook (`GET cdata?options=all`): it has just started. A `reboot` sent to it and
   * not answered was carried out (a terminal restarting posts no devicecmd), so it is closed as
   * succeeded, its result saying why; left open, it would fail at its deadline, or before this
   * release be resent and restart the terminal again. Read first: most handshakes find none.
   * Asked by the terminal endpoints for a handshake of the approved terminal only (not withheld).
   */
  async terminalStarted(deviceId: string): Promise<number> {
    const sentReboots = and(eq(deviceCommands.deviceId, deviceId), eq(deviceCommands.status, 'sent'), inArray(deviceCommands.kind, [...NOT_RESENT_KINDS]));
    const [any] = await this.ctx.db.orm.select({ id: deviceCommands.id }).from(deviceCommands).where(sentReboots).limit(1);
    if (!any) return 0;
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const rows = await w.tx.select().from(deviceCommands).where(sentReboots);
      for (const command of rows) await this.endings.close(w, command, 'succeeded', now, null, { reason: RESTARTED });
      return rows.length;
    });
  }

  /** Job `expire-commands`: commands not finished by their expiry time. */
  async expireOverdue(): Promise<{ expired: number }> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async (w) => {
      const { tx } = w;
      const overdue = await tx
        .select()
        .from(deviceCommands)
        .where(and(or(eq(deviceCommands.status, 'pending'), eq(deviceCommands.status, 'sent')), lte(deviceCommands.expiresAt, now)))
        .limit(5000);
      await tx
        .update(deviceCommands)
        .set({ status: 'expired', completedAt: now, returnCode: null, result: { reason: 'expired' } })
        .where(
          inArray(
            deviceCommands.id,
            overdue.map((c) => c.id),
          ),
        );
      await this.endings.finished(w, overdue, 'expired', null);
      return { expired: overdue.length };
    });
  }

  private mayRetry(command: CommandRow, code: number | null): boolean {
    if (INTERACTIVE_KINDS.has(command.kind)) return false;
    // Unanswered (the retry job): it may have been carried out, and would be again.
    if (code === null && NOT_RESENT_KINDS.has(command.kind)) return false;
    if (isPermanentFailure(code)) return false;
    // A delete is retried for as long as it takes: the terminal must not keep the data.
    if (DELETE_KINDS.has(command.kind)) return true;
    return command.attempts <= this.ctx.settings.COMMAND_MAX_RETRIES;
  }

  private backoff(attempts: number): number {
    return Math.min(MAX_BACKOFF_MS, this.ctx.settings.COMMAND_RETRY_BACKOFF * 2 ** Math.max(0, Math.min(attempts - 1, 16)));
  }

  /** Expires the unfinished commands of a session (it closed). */
  async expireSession(w: WriteContext, sessionId: string, reason: string): Promise<number> {
    return this.expireMatching(w, eq(deviceCommands.sessionId, sessionId), reason);
  }

  /**
   * Expires the unfinished commands matching `where` inside the caller's transaction, through
   * the finish handlers like every other end of a command (template sync, remote sessions).
   */
  async expireMatching(w: WriteContext, where: SQL, reason: string): Promise<number> {
    return this.endings.closeMatching(w, where, 'expired', reason);
  }

  /**
   * Supersedes the pending commands with these supersede keys on these devices (a user taken off
   * a terminal: their queued templates there are pointless now). Deletes are kept, but an unsent
   * one that `replacement` gives the delete taking its place for (their whole user's, queued in
   * the same transaction): that one is closed and the listeners told (a deletion proof waiting
   * for it waits for its replacement instead). See supersede.ts `closeKeyed`.
   */
  async supersedeKeys(
    w: WriteContext,
    deviceIds: readonly string[],
    keys: readonly string[],
    replacement: (deviceId: string, key: string) => { id: number; kind: string } | undefined = () => undefined,
  ): Promise<void> {
    const replaced = await closeKeyed(w.tx, deviceIds, keys, replacement, this.ctx.clock.now());
    if (replaced.length === 0) return;
    for (const listener of this.replacedListeners) await listener(w, replaced);
  }

  /** Wired in src/app/reactions.ts: told, in the transaction, of the deletes another delete took the place of. */
  onDeletesReplaced(listener: DeletesReplaced): void {
    this.replacedListeners.push(listener);
  }
}
