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
import { and, asc, eq, inArray, isNotNull, lte, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Context } from '../../app/context';
import type { Queryable, Tx } from '../../platform/db/client';
import { deviceCommands, devices, templates, type CommandStatus } from '../../app/schema';
import {
  checkCommand,
  biodataCommand,
  deleteBiodataCommand,
  deleteFingerCommand,
  deleteUserCommand,
  enrollBioCommand,
  enrollFingerCommand,
  fingerTemplateCommand,
  formatCommandBatch,
  infoCommand,
  rebootCommand,
  userInfoCommand,
  type CommandResult,
} from '../../protocol/adms';
import { TemplateDecryptError } from '../../platform/crypto/template-cipher';
import { templateAad } from '../biometrics/aad';
import { SentMarks, type MarkCandidate } from './sent-marks';

export type CommandKind =
  | 'add_user'
  | 'delete_user'
  | 'update_template'
  | 'delete_template'
  | 'ENROLL_FP'
  | 'ENROLL_BIO'
  | 'CHECK'
  | 'INFO'
  | 'REBOOT';

export type CommandRow = typeof deviceCommands.$inferSelect;
export type DeviceRow = typeof devices.$inferSelect;

export interface NewCommand {
  deviceId: string;
  kind: CommandKind;
  payload: Record<string, unknown>;
  /** Unsent commands of the same device with this key are superseded by this one. */
  supersedeKey?: string | null;
  sessionId?: string | null;
  expiresAt?: number;
}

export type CommandOutcome = 'succeeded' | 'failed' | 'expired';

/** An unsent command with a given supersede key: queued before (`id`) or in this batch (`slot`). */
interface QueuedEntry {
  kind: string;
  ref: { id: number } | { slot: number };
}

/** Called inside the transaction that closes a command, for the features that care. */
export type CommandFinishedHandler = (
  tx: Tx,
  command: CommandRow,
  outcome: CommandOutcome,
  result: CommandResult | null,
  /** Work to run after the closing transaction commits (wake-ups of newly queued commands). */
  afterCommit: (cb: () => void) => void,
) => Promise<void>;

/** Return codes that will not get better by sending the same command again. */
const PERMANENT_FAILURES = new Set([-1, -9, -10, -11, -12, -30, -1002, -1004, -1006]);
const INTERACTIVE_KINDS = new Set<string>(['ENROLL_FP', 'ENROLL_BIO']);
export const DELETE_KINDS = new Set<string>(['delete_user', 'delete_template']);
/** Return=-10, "the user is not on the terminal": for a delete, nothing is left to delete. */
const USER_NOT_ON_DEVICE = -10;
/** Expiry of deletes: never (the last millisecond of year 9999, still a safe integer everywhere). */
export const NEVER_EXPIRES = 253_402_300_799_000;
/** Retries back off by doubling, but a terminal that comes back is served within the hour. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** SQLite bind-variable budget per `IN (...)` list. */
const IN_CHUNK = 500;

/** How long "this device has nothing to send" may be trusted without asking the database. */
const IDLE_CACHE_MS = 3_000;

export class CommandService {
  private readonly handlers: CommandFinishedHandler[] = [];
  /** deviceId → time until which a poll may answer OK without a query. */
  private readonly idleUntil = new Map<string, number>();
  /** Group commit of the `sent` marks of concurrent polls. */
  private readonly sentMarks: SentMarks;

  constructor(private readonly ctx: Context) {
    this.sentMarks = new SentMarks(ctx.db, (tx, candidates) => this.applySentMarks(tx, candidates));
  }

  onFinished(handler: CommandFinishedHandler): void {
    this.handlers.push(handler);
  }

  /** Marks a device as having work, so its next poll reads the queue. */
  markQueued(deviceId: string): void {
    this.idleUntil.delete(deviceId);
  }

  /**
   * Queues commands inside the caller's transaction; wakes the devices after commit. A command
   * whose supersede key matches an unsent one of the same device replaces it in place (same id,
   * same place in the queue), so a renamed user's record still goes before their templates.
   * An unsent delete is never replaced by anything but a delete: a record or template queued
   * after it goes behind it, so the terminal first drops what it should no longer hold.
   * Returns one id per given command.
   */
  async enqueue(tx: Tx, commands: NewCommand[], afterCommit?: (cb: () => void) => void): Promise<number[]> {
    if (commands.length === 0) return [];
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
    const wake = () => {
      for (const id of touched) {
        this.markQueued(id);
        this.ctx.signals.commandsQueued(id);
      }
    };
    if (afterCommit) afterCommit(wake);
    else wake();
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
   * Takes the next batch for a polling device and renders it as `C:<id>:<text>` lines.
   * Returns null when there is nothing to send. The batch is marked `sent` (committed) before
   * this returns, through the group commit shared with concurrent polls of other terminals;
   * a command that another instance took, or that was replaced in place, since it was read
   * is not marked and not sent.
   */
  async takeBatch(device: DeviceRow): Promise<string | null> {
    const now = this.ctx.clock.now();
    const idle = this.idleUntil.get(device.id);
    if (idle !== undefined && idle > now) return null;

    const { ADMS_MAX_COMMANDS_PER_REQUEST: maxCommands, ADMS_MAX_COMMAND_BYTES: maxBytes } = this.ctx.settings;
    // Only what rendering needs; the payload as stored text, which is both parsed for rendering
    // and compared when the command is marked sent.
    const due = await this.ctx.db.orm
      .select({ id: deviceCommands.id, kind: deviceCommands.kind, payloadText: sql<string>`${deviceCommands.payload}` })
      .from(deviceCommands)
      .where(
        and(
          eq(deviceCommands.deviceId, device.id),
          eq(deviceCommands.status, 'pending'),
          lte(deviceCommands.notBefore, now),
        ),
      )
      .orderBy(asc(deviceCommands.id))
      .limit(maxCommands);
    if (due.length === 0) {
      this.idleUntil.set(device.id, now + IDLE_CACHE_MS);
      return null;
    }

    const rendered: { id: string; text: string }[] = [];
    const candidates = new Map<string, MarkCandidate>();
    const unrenderable: number[] = [];
    const undecryptable: number[] = [];
    for (const row of due) {
      const command = { kind: row.kind, payload: JSON.parse(row.payloadText) as Record<string, unknown> };
      let text: string | null;
      try {
        text = await this.render(device, command);
      } catch (error) {
        if (!(error instanceof TemplateDecryptError)) throw error;
        // One template whose key is gone must not hold up the rest of the terminal's queue.
        this.ctx.log.warn('a queued template cannot be decrypted; its command fails', { command: row.id, device: device.serialNumber });
        undecryptable.push(row.id);
        continue;
      }
      if (text === null) unrenderable.push(row.id);
      else {
        rendered.push({ id: String(row.id), text });
        candidates.set(String(row.id), row);
      }
    }
    if (unrenderable.length > 0 || undecryptable.length > 0) await this.retireUnsendable(unrenderable, undecryptable, now);
    const batch = formatCommandBatch(rendered, { maxCommands, maxBytes });
    if (batch.included.length === 0) return null;

    const sent = await this.sentMarks.mark(batch.included.map((id) => candidates.get(id)!));
    if (sent.size === 0) return null;
    if (sent.size === batch.included.length) return batch.body;
    // Another instance took some of them meanwhile, or they changed: send only what was marked.
    return formatCommandBatch(
      rendered.filter((r) => sent.has(Number(r.id))),
      { maxCommands, maxBytes },
    ).body;
  }

  /**
   * Group-commit step (SentMarks): marks `sent` the candidates whose command is still pending
   * and still holds the kind and payload the poll rendered. A command replaced in place
   * (supersede) since the read keeps its id but not its content: sending the old text under
   * that id would let the terminal's answer close the new command.
   */
  private async applySentMarks(tx: Tx, candidates: MarkCandidate[]): Promise<Set<MarkCandidate>> {
    const now = this.ctx.clock.now();
    const current = new Map<number, { kind: string; payloadText: string }>();
    for (const ids of chunks([...new Set(candidates.map((c) => c.id))], IN_CHUNK)) {
      const rows = await tx
        .select({ id: deviceCommands.id, kind: deviceCommands.kind, payloadText: sql<string>`${deviceCommands.payload}` })
        .from(deviceCommands)
        .where(and(inArray(deviceCommands.id, ids), notIndexed(deviceCommands.status, 'pending')));
      for (const row of rows) current.set(row.id, row);
    }
    const chosen = new Map<number, MarkCandidate>();
    for (const c of candidates) {
      const row = current.get(c.id);
      if (!chosen.has(c.id) && row?.kind === c.kind && row.payloadText === c.payloadText) chosen.set(c.id, c);
    }
    const marked = new Set<MarkCandidate>();
    for (const ids of chunks([...chosen.keys()], IN_CHUNK)) {
      const rows = await tx
        .update(deviceCommands)
        .set({
          status: 'sent',
          attempts: sql`${deviceCommands.attempts} + 1`,
          sentAt: now,
          // An enroll command waits for a person at the terminal: only its session's end stops it.
          ackDeadline: sql`case when ${deviceCommands.kind} in ('ENROLL_FP', 'ENROLL_BIO') then ${deviceCommands.expiresAt} else ${now + this.ctx.settings.COMMAND_ACK_TIMEOUT} end`,
        })
        // The status guard stays: another instance's poll may have taken the command meanwhile.
        .where(and(inArray(deviceCommands.id, ids), notIndexed(deviceCommands.status, 'pending')))
        .returning({ id: deviceCommands.id });
      for (const row of rows) marked.add(chosen.get(row.id)!);
    }
    return marked;
  }

  /** Closes queued commands that cannot be sent: data gone (superseded) or key gone (failed). */
  private async retireUnsendable(unrenderable: number[], undecryptable: number[], now: number): Promise<void> {
    await this.ctx.db.write(async ({ tx, afterCommit }) => {
      for (const id of undecryptable) {
        const [command] = await tx.select().from(deviceCommands).where(eq(deviceCommands.id, id));
        if (command?.status !== 'pending') continue;
        await this.close(tx, command, 'failed', now, null, { reason: 'template cannot be decrypted' }, null, afterCommit);
      }
      if (unrenderable.length > 0) {
        await tx
          .update(deviceCommands)
          .set({ status: 'superseded', completedAt: now, result: { reason: 'data no longer exists' } })
          .where(and(inArray(deviceCommands.id, unrenderable), notIndexed(deviceCommands.status, 'pending')));
      }
    });
  }

  /** Renders a command's wire text; null when its data is gone (a deleted template). */
  async render(device: DeviceRow, command: Pick<CommandRow, 'kind' | 'payload'>): Promise<string | null> {
    const p = command.payload as Record<string, string | number | undefined>;
    const pin = String(p.pin ?? '');
    switch (command.kind as CommandKind) {
      case 'add_user':
        return userInfoCommand({ pin, name: String(p.name ?? '') });
      case 'delete_user':
        return deleteUserCommand(pin);
      case 'update_template': {
        const template = await this.ctx.db.orm.query.templates.findFirst({
          where: eq(templates.id, String(p.templateId)),
        });
        if (!template || template.version !== Number(p.templateVersion)) return null;
        const plain = await this.ctx.keyRing.decrypt(
          new Uint8Array(template.ciphertext),
          templateAad(template.enrolleeId, template.fingerIndex, template.version),
        );
        const base64 = Buffer.from(plain).toString('base64');
        if (usesBiodata(device, template.algorithmVersion)) {
          const [major, minor] = splitVersion(template.algorithmVersion);
          return biodataCommand({ pin, no: template.fingerIndex, index: 0, type: 1, majorVer: major, minorVer: minor, template: base64, duress: template.duress ? 1 : 0 });
        }
        return fingerTemplateCommand({ pin, fingerIndex: template.fingerIndex, template: base64, valid: template.duress ? 3 : 1 });
      }
      case 'delete_template':
        return usesBiodata(device, device.algorithmVersion)
          ? deleteBiodataCommand(pin, 1, Number(p.fingerIndex))
          : deleteFingerCommand(pin, Number(p.fingerIndex));
      case 'ENROLL_FP':
        return enrollFingerCommand(pin, Number(p.fingerIndex));
      case 'ENROLL_BIO':
        return enrollBioCommand(pin, 1, { no: Number(p.fingerIndex) });
      case 'CHECK':
        return checkCommand();
      case 'INFO':
        return infoCommand();
      case 'REBOOT':
        return rebootCommand();
      default:
        return null;
    }
  }

  /** Applies `devicecmd` results. Unknown or already-closed ids are ignored (resends). */
  async applyResults(device: DeviceRow, results: CommandResult[]): Promise<{ applied: number; unknown: string[] }> {
    const numeric = results.filter((r) => /^\d{1,15}$/.test(r.id));
    const unknown = results.filter((r) => !/^\d{1,15}$/.test(r.id)).map((r) => r.id);
    if (numeric.length === 0) return { applied: 0, unknown };
    const now = this.ctx.clock.now();
    let applied = 0;
    await this.ctx.db.write(async ({ tx, afterCommit }) => {
      const rows: CommandRow[] = [];
      for (const ids of chunks([...new Set(numeric.map((r) => Number(r.id)))], IN_CHUNK)) {
        rows.push(...(await tx.select().from(deviceCommands).where(and(notIndexed(deviceCommands.deviceId, device.id), inArray(deviceCommands.id, ids)))));
      }
      const byId = new Map(rows.map((r) => [String(r.id), r]));
      for (const result of numeric) {
        const command = byId.get(result.id);
        if (!command || (command.status !== 'sent' && command.status !== 'pending')) {
          if (!command) unknown.push(result.id);
          continue;
        }
        applied++;
        const code = result.returnCode;
        const resultJson = { return: code, cmd: result.cmd, fields: result.fields };
        const nothingToDelete = code === USER_NOT_ON_DEVICE && DELETE_KINDS.has(command.kind);
        if (code === 0 || nothingToDelete || (code !== null && code > 0 && !INTERACTIVE_KINDS.has(command.kind))) {
          await this.close(tx, command, 'succeeded', now, code, resultJson, result, afterCommit);
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
          afterCommit(() => this.markQueued(device.id));
        } else {
          await this.close(tx, command, 'failed', now, code, resultJson, result, afterCommit);
        }
      }
    });
    return { applied, unknown };
  }

  /** Job `retry-commands`: sent commands whose result never came are resent or failed. */
  async retryUnacknowledged(): Promise<{ retried: number; failed: number }> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx, afterCommit }) => {
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
          await this.close(tx, command, 'failed', now, null, { reason: 'no result from the terminal' }, null, afterCommit);
        }
      }
      return { retried, failed };
    });
  }

  /** Job `expire-commands`: commands not finished by their expiry time. */
  async expireOverdue(): Promise<{ expired: number }> {
    const now = this.ctx.clock.now();
    return this.ctx.db.write(async ({ tx, afterCommit }) => {
      const overdue = await tx
        .select()
        .from(deviceCommands)
        .where(
          and(
            or(eq(deviceCommands.status, 'pending'), eq(deviceCommands.status, 'sent')),
            lte(deviceCommands.expiresAt, now),
          ),
        )
        .limit(5000);
      for (const command of overdue) {
        await this.close(tx, command, 'expired', now, null, { reason: 'expired' }, null, afterCommit);
      }
      return { expired: overdue.length };
    });
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
    if (code !== null && PERMANENT_FAILURES.has(code)) return false;
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
  async expireMatching(tx: Tx, where: SQL, reason: string, afterCommit: (cb: () => void) => void): Promise<number> {
    const now = this.ctx.clock.now();
    // All closed first, in one statement: a handler (a remote session failing) that expires
    // more commands then finds these already closed and does not finish them twice.
    const rows = await tx
      .update(deviceCommands)
      .set({ status: 'expired', completedAt: now, returnCode: null, result: { reason } })
      .where(and(inArray(deviceCommands.status, ['pending', 'sent']), where))
      .returning();
    for (const command of rows) await this.finished(tx, command, 'expired', null, null, afterCommit);
    return rows.length;
  }

  private async close(
    tx: Tx,
    command: CommandRow,
    outcome: CommandOutcome,
    now: number,
    code: number | null,
    result: Record<string, unknown>,
    raw: CommandResult | null,
    afterCommit: (cb: () => void) => void,
  ): Promise<void> {
    await tx
      .update(deviceCommands)
      .set({ status: outcome, completedAt: now, returnCode: code, result })
      .where(eq(deviceCommands.id, command.id));
    await this.finished(tx, command, outcome, code, raw, afterCommit);
  }

  /** The finish handlers and the event of a command just closed. */
  private async finished(
    tx: Tx,
    command: CommandRow,
    outcome: CommandOutcome,
    code: number | null,
    raw: CommandResult | null,
    afterCommit: (cb: () => void) => void,
  ): Promise<void> {
    for (const handler of this.handlers) await handler(tx, command, outcome, raw, afterCommit);
    afterCommit(() =>
      this.ctx.events.emit('command_finished', {
        deviceId: command.deviceId,
        commandId: command.id,
        kind: command.kind,
        status: outcome,
        returnCode: code,
      }),
    );
  }
}

/**
 * Templates go as BIODATA to terminals that speak it, to terminals whose fingerprint
 * algorithm is above 10, and for templates above 10; FINGERTMP carries only v10 and older.
 */
export function usesBiodata(device: DeviceRow, algorithmVersion: string | null): boolean {
  if (device.speaksBiodata) return true;
  return [device.algorithmVersion, algorithmVersion].some((v) => {
    const major = Number.parseFloat(v ?? '');
    return Number.isFinite(major) && major > 10;
  });
}

function splitVersion(version: string): [string, string] {
  const [major = '0', minor = '0'] = version.split('.');
  return [major, minor];
}

/**
 * `column = value` that SQLite may not answer from an index (unary `+`). Used beside an id list:
 * without it the planner picks the status or device index and walks every pending (or every)
 * command of the table or device, instead of looking the few ids up by primary key.
 */
function notIndexed(column: SQLiteColumn, value: string): SQL {
  return sql`+${column} = ${value}`;
}

function pairKey(deviceId: string, supersedeKey: string): string {
  return `${deviceId}\n${supersedeKey}`;
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
