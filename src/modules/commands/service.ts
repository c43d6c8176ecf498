/**
 * Device commands: queued in the database, rendered to ADMS text when a terminal polls, and
 * closed by the terminal's `devicecmd` result (matched by command id, never by CMD echo).
 *
 * States: pending → sent → succeeded | failed | expired (| superseded while still pending).
 * A sent command with no result by its acknowledgement deadline, or one that failed with a
 * transient code, goes back to pending with a doubling backoff until COMMAND_MAX_RETRIES.
 * Deletes are the exception: they never expire and are retried until the terminal answers,
 * because a terminal must not keep biometric data it should no longer hold. Enroll commands
 * wait for the person at the terminal until their session ends.
 */
import { and, asc, desc, eq, gt, inArray, isNotNull, lt, lte, notInArray, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { GroupCommit } from '../../platform/db/group-commit';
import { deleteInBatches } from '../../platform/db/purge';
import { ReadBatch } from '../../platform/db/read-batch';
import { FpaError } from '../../platform/errors';
import { type Page, pageOf, readCursor } from '../../platform/http/paging';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { audit } from '../audit';
import { type DeviceRef, type DeviceService, deviceRef } from '../devices';
import type { EventChannel, EventLog } from '../events';
import type { CommandEvents } from './events';
import {
  type CommandAnswer,
  type CommandKind,
  type CommandOutcome,
  type CommandRow,
  DELETE_KINDS,
  type DueCommand,
  INTERACTIVE_KINDS,
  isPermanentFailure,
  type MarkCandidate,
  NEVER_EXPIRES,
  type NewCommand,
  type OperatorCommand,
  USER_NOT_ON_DEVICE,
} from './kinds';
import { operatorCommand } from './operator';
import type { CommandRuntime } from './runtime';
import { type CommandStatus, deviceCommands } from './tables';
import { type CommandView, commandView } from './views';

/** An unsent command with a given supersede key: queued before (`id`) or in this batch (`slot`). */
interface QueuedEntry {
  kind: string;
  ref: { id: number } | { slot: number };
}

/** Retries back off by doubling, but a terminal that comes back is served within the hour. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** SQLite bind-variable budget per `IN (...)` list. */
const IN_CHUNK = 500;

/** How long "this device has nothing to send" may be trusted without asking the database. */
const IDLE_CACHE_MS = 3_000;

export class CommandService {
  readonly events: EventChannel<CommandEvents>;
  /** deviceId → time until which a poll may answer OK without a query. */
  private readonly idleUntil = new Map<string, number>();
  /**
   * Group commit of the `sent` marks of concurrent polls: a poll may hand a command over only
   * once it is marked `sent`, and one commit per poll would cap polls at the disk's sync rate.
   */
  private readonly sentMarks: GroupCommit<MarkCandidate[], Set<number>>;
  /** The due-command reads of concurrent polls, one statement per batch (takeDue). */
  private readonly dueReads: ReadBatch<DueRead, MarkCandidate[]>;

  constructor(
    private readonly ctx: CommandRuntime,
    log: EventLog,
    private readonly devices: DeviceService,
  ) {
    this.events = log.channel<CommandEvents>();
    this.sentMarks = new GroupCommit(ctx.db, async (w, polls) => {
      const marked = await this.applySentMarks(w, polls.flat());
      return polls.map((candidates) => new Set(candidates.filter((c) => marked.has(c)).map((c) => c.id)));
    });
    this.dueReads = new ReadBatch((reads) => this.readDue(reads), DUE_READS_PER_STATEMENT);
    ctx.metrics.gauge('fpa_device_commands_pending', 'Device commands waiting to be sent or answered (all terminals).', [], async () => [
      { value: await this.countAllPending() },
    ]);
  }

  /**
   * Closes a terminal's unfinished commands but its deletes (they wait: the terminal may still
   * hold the data they remove), inside the caller's transaction (reactions.ts).
   */
  async closeAllButDeletes(w: WriteContext, deviceId: string, outcome: 'expired' | 'cancelled', reason: string): Promise<number> {
    return this.closeMatching(w, and(eq(deviceCommands.deviceId, deviceId), notInArray(deviceCommands.kind, [...DELETE_KINDS]))!, outcome, reason);
  }

  /** Marks a device as having work, so its next poll reads the queue. */
  markQueued(deviceId: string): void {
    this.idleUntil.delete(deviceId);
    this.idleUntil.delete(deletesOnlyKey(deviceId));
  }

  /**
   * Queues commands inside the caller's transaction; wakes the devices after commit. A command
   * whose supersede key matches an unsent one of the same device replaces it in place (same id,
   * same place in the queue), so a renamed user's record still goes before their templates.
   * An unsent delete is never replaced by anything but a delete: a record or template queued
   * after it goes behind it, so the terminal first drops what it should no longer hold.
   * Returns one id per given command.
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
    type Values = ReturnType<typeof valuesOf>;
    type Ref = { id: number } | { slot: number };

    // Per device and key: its unsent commands in queue order, those already queued first.
    const queues = await this.pendingWithKeys(tx, commands);
    const replacements = new Map<number, Values>();
    const superseded = new Set<number>();
    const inserts: Values[] = [];
    const targets: Ref[] = [];
    const assign = (ref: Ref, values: Values) => {
      if ('id' in ref) replacements.set(ref.id, values);
      else inserts[ref.slot] = values;
    };
    const supersede = (ref: Ref) => {
      if ('id' in ref) {
        replacements.delete(ref.id);
        superseded.add(ref.id);
      } else {
        inserts[ref.slot] = { ...inserts[ref.slot]!, status: 'superseded', completedAt: now };
      }
    };
    for (const c of commands) {
      const values = valuesOf(c);
      const pair = c.supersedeKey ? pairKey(c.deviceId, c.supersedeKey) : null;
      const queue = pair ? (queues.get(pair) ?? []) : null;
      const isDelete = DELETE_KINDS.has(c.kind);
      // A delete takes the first unsent place; anything else only a place after the last delete.
      const replaceable = queue === null ? [] : isDelete ? queue : queue.slice(queue.findLastIndex((e) => DELETE_KINDS.has(e.kind)) + 1);
      const [target, ...older] = replaceable;
      if (target) {
        assign(target.ref, values);
        target.kind = c.kind;
        for (const e of older) supersede(e.ref);
        queue!.splice(queue!.length - older.length, older.length);
        targets.push(target.ref);
      } else {
        const ref = { slot: inserts.push(values) - 1 };
        if (pair) queues.set(pair, [...(queue ?? []), { kind: c.kind, ref }]);
        targets.push(ref);
      }
    }
    for (const [id, values] of replacements) {
      await tx
        .update(deviceCommands)
        .set({ ...values, sentAt: null, ackDeadline: null, returnCode: null, result: null })
        .where(eq(deviceCommands.id, id));
    }
    for (const chunk of chunks([...superseded], IN_CHUNK)) {
      await tx.update(deviceCommands).set({ status: 'superseded', completedAt: now }).where(inArray(deviceCommands.id, chunk));
    }
    const insertedIds: number[] = [];
    for (const chunk of chunks(inserts, 400)) {
      const rows = await tx.insert(deviceCommands).values(chunk).returning({ id: deviceCommands.id });
      for (const r of rows) insertedIds.push(r.id);
    }
    const ids = targets.map((t) => ('id' in t ? t.id : insertedIds[t.slot]!));
    const touched = new Set(commands.map((c) => c.deviceId));
    w.afterCommit(() => {
      for (const id of touched) this.markQueued(id);
    });
    return ids;
  }

  /**
   * Unsent commands carrying the supersede keys of `commands`, by device and key, in queue
   * order. Asks per device (a backfill: one device, many keys) or per key (a fan-out: one key,
   * many devices), and not at all when none of the devices has an unsent keyed command (a
   * fresh approval).
   */
  private async pendingWithKeys(tx: Tx, commands: NewCommand[]): Promise<Map<string, QueuedEntry[]>> {
    const found = new Map<string, QueuedEntry[]>();
    const wanted = new Set<string>();
    const keysByDevice = new Map<string, Set<string>>();
    const devicesByKey = new Map<string, Set<string>>();
    for (const c of commands) {
      if (!c.supersedeKey) continue;
      wanted.add(pairKey(c.deviceId, c.supersedeKey));
      addTo(keysByDevice, c.deviceId, c.supersedeKey);
      addTo(devicesByKey, c.supersedeKey, c.deviceId);
    }
    if (wanted.size === 0) return found;
    let any = false;
    for (const chunk of chunks([...keysByDevice.keys()], IN_CHUNK)) {
      const [row] = await tx
        .select({ id: deviceCommands.id })
        .from(deviceCommands)
        .where(and(inArray(deviceCommands.deviceId, chunk), eq(deviceCommands.status, 'pending'), isNotNull(deviceCommands.supersedeKey)))
        .limit(1);
      if (row) {
        any = true;
        break;
      }
    }
    if (!any) return found;

    const rows: { id: number; deviceId: string; kind: string; supersedeKey: string | null }[] = [];
    const columns = { id: deviceCommands.id, deviceId: deviceCommands.deviceId, kind: deviceCommands.kind, supersedeKey: deviceCommands.supersedeKey };
    const byDevice = keysByDevice.size <= devicesByKey.size;
    for (const [outer, inner] of byDevice ? keysByDevice : devicesByKey) {
      for (const chunk of chunks([...inner], IN_CHUNK)) {
        rows.push(
          ...(await tx
            .select(columns)
            .from(deviceCommands)
            .where(
              byDevice
                ? and(eq(deviceCommands.deviceId, outer), inArray(deviceCommands.supersedeKey, chunk), eq(deviceCommands.status, 'pending'))
                : and(inArray(deviceCommands.deviceId, chunk), eq(deviceCommands.supersedeKey, outer), eq(deviceCommands.status, 'pending')),
            )),
        );
      }
    }
    for (const row of rows.sort((a, b) => a.id - b.id)) {
      const pair = pairKey(row.deviceId, row.supersedeKey ?? '');
      if (!wanted.has(pair)) continue;
      const entry: QueuedEntry = { kind: row.kind, ref: { id: row.id } };
      const queue = found.get(pair);
      if (queue) queue.push(entry);
      else found.set(pair, [entry]);
    }
    return found;
  }

  /**
   * The pending commands of a device that are due now, oldest first, for its poll to render;
   * null when there is nothing (answered from memory while the device is known to be idle).
   * Commands past their expiry are never returned: a late poll must not run them.
   */
  async takeDue(deviceId: string, options: { deletesOnly?: boolean } = {}): Promise<DueCommand[] | null> {
    const now = this.ctx.clock.now();
    // A terminal that is not approved gets deletes only (its other commands wait for approval):
    // its idle mark is its own, or the first poll after an approval would trust it.
    const idleKey = options.deletesOnly ? deletesOnlyKey(deviceId) : deviceId;
    const idle = this.idleUntil.get(idleKey);
    if (idle !== undefined && idle > now) return null;
    // Read outside any write, batched with the reads of concurrent polls (dueReads).
    const due = await this.dueReads.load({ deviceId, deletesOnly: options.deletesOnly === true });
    if (due.length === 0) {
      this.idleUntil.set(idleKey, now + IDLE_CACHE_MS);
      return null;
    }
    return due.map((row) => ({ ...row, payload: JSON.parse(row.payloadText) as Record<string, unknown> }));
  }

  /**
   * Batch step (`dueReads`): the due commands of each asked device, oldest first, in one
   * statement (one `union all` arm per distinct device, each answered by the queue index in id
   * order). Only what rendering needs; the payload as stored text, both parsed for rendering
   * and compared when the command is marked sent.
   */
  private async readDue(reads: DueRead[]): Promise<MarkCandidate[][]> {
    const now = this.ctx.clock.now();
    const keys = [...new Set(reads.map(dueReadKey))];
    const slotOf = new Map(keys.map((key, slot) => [key, slot]));
    const arms = keys.map((key, slot) => {
      const deletesOnly = key.startsWith('d:');
      // `slot` is our own loop counter, never input; the device ids are bound (?3, ?4…).
      return `select * from (select ${slot} as slot, id, kind, payload from fpa_device_commands
        where device_id = ?${slot + 3} and status = 'pending' and not_before <= ?1 and expires_at > ?1${deletesOnly ? ` and kind in (${sqlList(DELETE_KINDS)})` : ''}
        order by id limit ?2)`;
    });
    const result = await this.ctx.db.client.execute({
      sql: arms.join('\nunion all\n'),
      args: [now, this.ctx.settings.ADMS_MAX_COMMANDS_PER_REQUEST, ...keys.map((key) => key.slice(2))],
    });
    const found: MarkCandidate[][] = keys.map(() => []);
    for (const row of result.rows) found[Number(row.slot)]!.push({ id: Number(row.id), kind: String(row.kind), payloadText: String(row.payload) });
    for (const rows of found) rows.sort((a, b) => a.id - b.id);
    return reads.map((read) => found[slotOf.get(dueReadKey(read))!]!);
  }

  /**
   * Marks rendered commands `sent` (committed) through the group commit shared with concurrent
   * polls; resolves with the ids that may go to the terminal. A command that another instance
   * took, or that was replaced in place, since it was read is not marked and must not be sent.
   */
  markSent(candidates: MarkCandidate[]): Promise<Set<number>> {
    return candidates.length === 0 ? Promise.resolve(new Set()) : this.sentMarks.submit(candidates);
  }

  /**
   * Group-commit step (`sentMarks`): marks `sent` the candidates whose command is still pending
   * and still holds the kind and payload the poll rendered. A command replaced in place
   * (supersede) since the read keeps its id but not its content: sending the old text under
   * that id would let the terminal's answer close the new command.
   */
  private async applySentMarks(w: WriteContext, candidates: MarkCandidate[]): Promise<Set<MarkCandidate>> {
    const now = this.ctx.clock.now();
    // Two polls of one terminal may have read the same command: the first one gets it.
    const chosen = new Map<number, MarkCandidate>();
    for (const c of candidates) if (!chosen.has(c.id)) chosen.set(c.id, c);
    const marked = new Set<MarkCandidate>();
    // One statement per group (per MARK_CHUNK commands): the status guard stays (another
    // instance's poll may have taken the command meanwhile, and the database decides), and the
    // row must still hold what the poll rendered.
    for (const part of chunks([...chosen.values()], MARK_CHUNK)) {
      const result = await w.execute({
        sql: markSentSql(part.length),
        args: [now, now + this.ctx.settings.COMMAND_ACK_TIMEOUT, ...part.map((c) => c.id), ...part.flatMap((c) => [c.id, c.kind, c.payloadText])],
      });
      for (const row of result.rows) marked.add(chosen.get(Number(row.id))!);
    }
    return marked;
  }

  /** Closes queued commands that cannot be sent: data gone (superseded) or unreadable (failed, with the reason). */
  async retire(unrenderable: number[], unreadable: { id: number; reason: string }[]): Promise<void> {
    if (unrenderable.length === 0 && unreadable.length === 0) return;
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async (w) => {
      const { tx } = w;
      for (const { id, reason } of unreadable) {
        const [command] = await tx.select().from(deviceCommands).where(eq(deviceCommands.id, id));
        if (command?.status !== 'pending') continue;
        await this.close(w, command, 'failed', now, null, { reason });
      }
      if (unrenderable.length > 0) {
        await tx
          .update(deviceCommands)
          .set({ status: 'superseded', completedAt: now, result: { reason: 'data no longer exists' } })
          .where(and(inArray(deviceCommands.id, unrenderable), notIndexed(deviceCommands.status, 'pending')));
      }
    });
  }

  /**
   * Applies `devicecmd` results. Unknown or already-closed ids are ignored (resends).
   * `deletesOnly` (a terminal that is not approved): only results of deletes, the one kind it is sent.
   */
  async applyResults(deviceId: string, results: CommandAnswer[], options: { deletesOnly?: boolean } = {}): Promise<{ applied: number; unknown: string[] }> {
    const numeric = results.filter((r) => /^\d{1,15}$/.test(r.id));
    const unknown = results.filter((r) => !/^\d{1,15}$/.test(r.id)).map((r) => r.id);
    if (numeric.length === 0) return { applied: 0, unknown };
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
      for (const result of numeric) {
        const command = byId.get(result.id);
        if (!command || (command.status !== 'sent' && command.status !== 'pending')) {
          if (!command) unknown.push(result.id);
          continue;
        }
        if (options.deletesOnly && !DELETE_KINDS.has(command.kind)) continue;
        applied++;
        const code = result.returnCode;
        const resultJson = { return: code, cmd: result.cmd, fields: result.fields };
        const nothingToDelete = code === USER_NOT_ON_DEVICE && DELETE_KINDS.has(command.kind);
        if (code === 0 || nothingToDelete || (code !== null && code > 0 && !INTERACTIVE_KINDS.has(command.kind))) {
          await this.close(w, command, 'succeeded', now, code, resultJson);
        } else if (this.mayRetry(command, code)) {
          await tx
            .update(deviceCommands)
            .set({
              status: 'pending',
              notBefore: now + this.backoff(command.attempts),
              returnCode: code,
              result: resultJson,
            })
            .where(eq(deviceCommands.id, command.id));
          afterCommit(() => this.markQueued(deviceId));
        } else {
          await this.close(w, command, 'failed', now, code, resultJson);
        }
      }
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
          afterCommit(() => this.markQueued(command.deviceId));
        } else {
          failed++;
          await this.close(w, command, 'failed', now, null, { reason: 'no result from the terminal' });
        }
      }
      return { retried, failed };
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
      await this.finished(w, overdue, 'expired', null);
      return { expired: overdue.length };
    });
  }

  /** Unfinished commands of every terminal, by status. */
  /** Commands by status; `scope`: of the terminals in a caller's areas only. */
  async countByStatus(q: Queryable = this.ctx.db.orm, scope: AreaScope = EVERYWHERE): Promise<Record<string, number>> {
    const rows = await q
      .select({ status: deviceCommands.status, n: sql<number>`count(*)` })
      .from(deviceCommands)
      .where(this.devices.deviceInAreas(deviceCommands.deviceId, scope))
      .groupBy(deviceCommands.status);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  private async countAllPending(): Promise<number> {
    const counts = await this.countByStatus();
    return (counts.pending ?? 0) + (counts.sent ?? 0);
  }

  async countPending(q: Queryable, deviceId: string): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, deviceId), inArray(deviceCommands.status, ['pending', 'sent'])));
    return row?.n ?? 0;
  }

  private mayRetry(command: CommandRow, code: number | null): boolean {
    if (INTERACTIVE_KINDS.has(command.kind)) return false;
    if (isPermanentFailure(code)) return false;
    // A delete is retried for as long as it takes: the terminal must not keep the data.
    if (DELETE_KINDS.has(command.kind)) return true;
    return command.attempts <= this.ctx.settings.COMMAND_MAX_RETRIES;
  }

  private backoff(attempts: number): number {
    return Math.min(MAX_BACKOFF_MS, this.ctx.settings.COMMAND_RETRY_BACKOFF * 2 ** Math.max(0, Math.min(attempts - 1, 16)));
  }

  /**
   * Expires the unfinished commands matching `where` inside the caller's transaction, through
   * the finish handlers like every other end of a command (template sync, remote sessions).
   */
  async expireMatching(w: WriteContext, where: SQL, reason: string): Promise<number> {
    return this.closeMatching(w, where, 'expired', reason);
  }

  private async closeMatching(w: WriteContext, where: SQL, outcome: 'expired' | 'cancelled', reason: string): Promise<number> {
    const now = this.ctx.clock.now();
    // All closed first, in one statement: a handler (a remote session failing) that expires
    // more commands then finds these already closed and does not finish them twice.
    const rows = await w.tx
      .update(deviceCommands)
      .set({ status: outcome, completedAt: now, returnCode: null, result: { reason } })
      .where(and(inArray(deviceCommands.status, ['pending', 'sent']), where))
      .returning();
    await this.finished(w, rows, outcome, null);
    return rows.length;
  }

  private async close(
    w: WriteContext,
    command: CommandRow,
    outcome: CommandOutcome,
    now: number,
    code: number | null,
    result: Record<string, unknown>,
  ): Promise<void> {
    await w.tx.update(deviceCommands).set({ status: outcome, completedAt: now, returnCode: code, result }).where(eq(deviceCommands.id, command.id));
    await this.finished(w, [{ ...command, status: outcome, completedAt: now, returnCode: code, result }], outcome, code);
  }

  /** Announces closed commands: template sync status and remote sessions follow from it. */
  private async finished(w: WriteContext, commands: readonly CommandRow[], outcome: CommandOutcome, code: number | null): Promise<void> {
    if (commands.length === 0) return;
    const refs = new Map<string, DeviceRef>();
    for (const id of new Set(commands.map((c) => c.deviceId))) {
      const device = await this.devices.findById(w.tx, id);
      refs.set(id, device ? deviceRef(device) : { id, serial_number: '' });
    }
    await this.events.recordMany(
      w,
      'device_command_finished',
      commands.map((c) => ({
        data: {
          device: refs.get(c.deviceId)!,
          command: { id: c.id, kind: c.kind, payload: c.payload, session: c.sessionId },
          status: outcome,
          return_code: code ?? c.returnCode,
        },
      })),
    );
  }

  /**
   * Cancels a command that has not finished (`pending` or `sent`); a command already finished is
   * 409 `conflict`. What depends on it (template sync, a remote session) follows from its end.
   */
  async cancel(deviceId: string, id: number, by: string): Promise<CommandView> {
    return this.ctx.db.write(async (w) => {
      const command = await this.findOf(w.tx, deviceId, id);
      if (command.status !== 'pending' && command.status !== 'sent') {
        throw new FpaError('conflict', `the command is ${command.status}; only pending or sent commands can be cancelled`, {
          command: id,
          status: command.status,
        });
      }
      const now = this.ctx.clock.now();
      await this.close(w, command, 'cancelled', now, null, { reason: `cancelled by ${by}` });
      await audit(w.tx, now, {
        actor: by,
        action: 'device_command.cancelled',
        targetType: 'device_command',
        targetId: String(id),
        details: { kind: command.kind },
      });
      return commandView({ ...command, status: 'cancelled', completedAt: now, returnCode: null, result: { reason: `cancelled by ${by}` } });
    });
  }

  /** Sends a `failed` or `expired` command again, with a fresh attempt budget and expiry; otherwise 409. */
  async retry(deviceId: string, id: number, by: string): Promise<CommandView> {
    return this.ctx.db.write(async (w) => {
      const command = await this.findOf(w.tx, deviceId, id);
      if (command.status !== 'failed' && command.status !== 'expired') {
        throw new FpaError('conflict', `the command is ${command.status}; only failed or expired commands can be retried`, {
          command: id,
          status: command.status,
        });
      }
      const now = this.ctx.clock.now();
      const set = {
        status: 'pending' as const,
        attempts: 0,
        notBefore: now,
        expiresAt: DELETE_KINDS.has(command.kind) ? NEVER_EXPIRES : now + this.ctx.settings.COMMAND_EXPIRY,
        sentAt: null,
        ackDeadline: null,
        completedAt: null,
        returnCode: null,
        result: null,
      };
      await w.tx.update(deviceCommands).set(set).where(eq(deviceCommands.id, id));
      await audit(w.tx, now, {
        actor: by,
        action: 'device_command.retried',
        targetType: 'device_command',
        targetId: String(id),
        details: { kind: command.kind },
      });
      w.afterCommit(() => this.markQueued(deviceId));
      return commandView({ ...command, ...set });
    });
  }

  /**
   * An operator's command (`POST devices/{sn}/commands/`). Destructive ones must name the
   * terminal's serial number in `confirm`; raw command text needs ADMS_RAW_COMMANDS.
   */
  async queueForOperator(device: { id: string; serialNumber: string }, input: OperatorCommand, by: string): Promise<CommandView> {
    const { kind, payload } = operatorCommand(device.serialNumber, input, { rawAllowed: this.ctx.settings.ADMS_RAW_COMMANDS });
    return this.ctx.db.write(async (w) => {
      const [id] = await this.enqueue(w, [{ deviceId: device.id, kind, payload }]);
      await audit(w.tx, this.ctx.clock.now(), {
        actor: by,
        action: 'device_command.queued',
        targetType: 'device',
        targetId: device.serialNumber,
        details: { command: id, kind: input.kind },
      });
      const [row] = await w.tx.select().from(deviceCommands).where(eq(deviceCommands.id, id!));
      return commandView(row!);
    });
  }

  /** One command of a device as the API shows it. */
  async viewOf(q: Queryable, deviceId: string, id: number): Promise<CommandView> {
    return commandView(await this.findOf(q, deviceId, id));
  }

  private async findOf(q: Queryable, deviceId: string, id: number): Promise<CommandRow> {
    const [row] = await q
      .select()
      .from(deviceCommands)
      .where(and(eq(deviceCommands.id, id), eq(deviceCommands.deviceId, deviceId)));
    if (!row) throw new FpaError('not_found', 'command not found', { command: id });
    return row;
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

  // ---------------------------------------------------------------- reads

  /** `GET devices/{sn}/commands/`: a device's queue, oldest first, cursor-paged. */
  /** A terminal's commands, oldest first, or newest first (`order: 'newest'`: what a person looks at). */
  async list(deviceId: string, filters: { status?: CommandStatus; order?: 'oldest' | 'newest'; cursor?: string; limit: number }): Promise<Page<CommandView>> {
    const after = readCursor(filters.cursor);
    const newest = filters.order === 'newest';
    const conditions = [eq(deviceCommands.deviceId, deviceId)];
    if (filters.status) conditions.push(eq(deviceCommands.status, filters.status));
    if (after !== null) conditions.push(newest ? lt(deviceCommands.id, Number(after)) : gt(deviceCommands.id, Number(after)));
    const rows = await this.ctx.db.orm
      .select()
      .from(deviceCommands)
      .where(and(...conditions))
      .orderBy(newest ? desc(deviceCommands.id) : asc(deviceCommands.id))
      .limit(filters.limit + 1);
    return pageOf(
      rows,
      filters.limit,
      (r) => r.id,
      (page) => page.map(commandView),
    );
  }

  /** Unfinished commands of `kind` among these ids on a device (an INFO answer must answer an INFO). */
  async openOfKind(deviceId: string, kind: CommandKind, ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.ctx.db.orm
      .select({ id: deviceCommands.id })
      .from(deviceCommands)
      .where(
        and(
          eq(deviceCommands.deviceId, deviceId),
          eq(deviceCommands.kind, kind),
          inArray(deviceCommands.status, ['pending', 'sent']),
          inArray(deviceCommands.id, ids),
        ),
      );
    return new Set(rows.map((r) => r.id));
  }

  /** Payloads of the commands of `kind` sent to a device and not answered yet. */
  async sentOfKind(q: Queryable, deviceId: string, kind: CommandKind): Promise<Record<string, unknown>[]> {
    const rows = await q
      .select({ payload: deviceCommands.payload })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, deviceId), eq(deviceCommands.kind, kind), eq(deviceCommands.status, 'sent')));
    return rows.map((r) => r.payload as Record<string, unknown>);
  }

  /** Whether a terminal has an unfinished delete (a terminal that is not approved may answer only those). */
  async owesDeletes(deviceId: string): Promise<boolean> {
    const [row] = await this.ctx.db.orm
      .select({ id: deviceCommands.id })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, deviceId), inArray(deviceCommands.status, ['pending', 'sent']), inArray(deviceCommands.kind, [...DELETE_KINDS])))
      .limit(1);
    return row !== undefined;
  }

  /** Of these PINs, those an unfinished command (any terminal, any kind) still carries. */
  async pinsInOpenCommands(pins: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const chunk of chunks(pins, IN_CHUNK)) {
      const rows = await this.ctx.db.orm
        .select({ pin: sql<string>`json_extract(${deviceCommands.payload}, '$.pin')` })
        .from(deviceCommands)
        .where(and(inArray(deviceCommands.status, ['pending', 'sent']), inArray(sql`json_extract(${deviceCommands.payload}, '$.pin')`, [...chunk])));
      for (const r of rows) out.add(String(r.pin));
    }
    return out;
  }

  /** Devices among `deviceIds` with an unfinished command of `kind`. */
  async devicesWaitingFor(q: Queryable, kind: CommandKind): Promise<Set<string>> {
    const rows = await q
      .select({ deviceId: deviceCommands.deviceId })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.kind, kind), inArray(deviceCommands.status, ['pending', 'sent'])));
    return new Set(rows.map((r) => r.deviceId));
  }

  /** Commands of a session (remote enrollment), with their status and payload. */
  async ofSession(q: Queryable, sessionId: string, kinds: readonly CommandKind[]) {
    return q
      .select({ id: deviceCommands.id, status: deviceCommands.status, payload: deviceCommands.payload })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.sessionId, sessionId), inArray(deviceCommands.kind, [...kinds])));
  }

  /** Expires the unfinished commands of a session (it closed). */
  async expireSession(w: WriteContext, sessionId: string, reason: string): Promise<number> {
    return this.expireMatching(w, eq(deviceCommands.sessionId, sessionId), reason);
  }

  /**
   * Supersedes the unsent commands with these supersede keys on these devices (a user taken off
   * a terminal: their queued templates there are pointless now).
   */
  async supersedeKeys(tx: Tx, deviceIds: readonly string[], keys: readonly string[]): Promise<void> {
    const now = this.ctx.clock.now();
    for (const devicesChunk of chunks(deviceIds, 100)) {
      for (const keysChunk of chunks(keys, 400)) {
        await tx
          .update(deviceCommands)
          .set({ status: 'superseded', completedAt: now })
          .where(and(inArray(deviceCommands.deviceId, devicesChunk), inArray(deviceCommands.supersedeKey, keysChunk), eq(deviceCommands.status, 'pending')));
      }
    }
  }
}

/**
 * `column = value` that SQLite may not answer from an index (unary `+`). Used beside an id list:
 * without it the planner picks the status or device index and walks every pending (or every)
 * command of the table or device, instead of looking the few ids up by primary key.
 */
function notIndexed(column: SQLiteColumn, value: string): SQL {
  return sql`+${column} = ${value}`;
}

/** A due-command read of one poll: its device, and whether it may be sent deletes only. */
interface DueRead {
  deviceId: string;
  deletesOnly: boolean;
}

function dueReadKey(read: DueRead): string {
  return `${read.deletesOnly ? 'd' : 'a'}:${read.deviceId}`;
}

/** Devices per due-read statement (one `union all` arm each; SQLite allows 500 arms). */
const DUE_READS_PER_STATEMENT = 100;

/** A constant set of kinds as an SQL list (our own literals, never input). */
function sqlList(kinds: ReadonlySet<string>): string {
  return [...kinds].map((k) => `'${k}'`).join(', ');
}

/** Commands marked `sent` per statement (four bound values each). */
const MARK_CHUNK = 200;

/**
 * Marks `sent` the listed commands that are still pending with the kind and payload a poll
 * rendered (a command replaced in place keeps its id, not its content), and returns their ids.
 * `?1` now, `?2` the acknowledgement deadline; then the ids, then (id, kind, payload) triples
 * (a bare `?` takes the number after the largest used before it, so they are ?3, ?4…).
 * The ids drive the lookup by rowid; `+status` keeps the planner off the status index.
 */
function markSentSql(count: number): string {
  const ids = Array.from({ length: count }, () => '?').join(', ');
  const rows = Array.from({ length: count }, () => '(?, ?, ?)').join(', ');
  // An enroll command waits for a person at the terminal: only its session's end stops it.
  return `update fpa_device_commands
    set status = 'sent', attempts = attempts + 1, sent_at = ?1,
      ack_deadline = case when kind in (${sqlList(INTERACTIVE_KINDS)}) then expires_at else ?2 end
    where id in (${ids}) and +status = 'pending' and (id, kind, payload) in (values ${rows})
    returning id`;
}

/** The idle mark of a terminal polled for its deletes only. */
function deletesOnlyKey(deviceId: string): string {
  return `deletes:${deviceId}`;
}

function pairKey(deviceId: string, supersedeKey: string): string {
  return `${deviceId}\n${supersedeKey}`;
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}
