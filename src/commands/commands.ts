/**
 * Device commands: queued in the database, rendered to ADMS text when a terminal polls, and
 * closed by the terminal's `devicecmd` result (matched by command id, never by CMD echo).
 *
 * States: pending → sent → succeeded | failed | expired (| superseded while still pending).
 * A sent command with no result by its acknowledgement deadline, or one that failed with a
 * transient code, goes back to pending with a doubling backoff until COMMAND_MAX_RETRIES.
 */
import { and, asc, eq, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Context } from '../core/context';
import type { Queryable, Tx } from '../db/client';
import { deviceCommands, devices, templates } from '../db/schema';
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
} from '../adms/protocol';
import { templateAad } from '../templates/aad';

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

/** How long "this device has nothing to send" may be trusted without asking the database. */
const IDLE_CACHE_MS = 3_000;

export class CommandService {
  private readonly handlers: CommandFinishedHandler[] = [];
  /** deviceId → time until which a poll may answer OK without a query. */
  private readonly idleUntil = new Map<string, number>();

  constructor(private readonly ctx: Context) {}

  onFinished(handler: CommandFinishedHandler): void {
    this.handlers.push(handler);
  }

  /** Marks a device as having work, so its next poll reads the queue. */
  markQueued(deviceId: string): void {
    this.idleUntil.delete(deviceId);
  }

  /** Queues commands inside the caller's transaction; wakes the devices after commit. */
  async enqueue(tx: Tx, commands: NewCommand[], afterCommit?: (cb: () => void) => void): Promise<number[]> {
    if (commands.length === 0) return [];
    const now = this.ctx.clock.now();
    const defaultExpiry = now + this.ctx.settings.COMMAND_EXPIRY;
    const byDevice = new Map<string, string[]>();
    for (const c of commands) {
      if (!c.supersedeKey) continue;
      // Push, never copy: a backfill queues tens of thousands of keys for one device.
      const keys = byDevice.get(c.deviceId);
      if (keys) keys.push(c.supersedeKey);
      else byDevice.set(c.deviceId, [c.supersedeKey]);
    }
    for (const [deviceId, keys] of byDevice) {
      for (const chunk of chunks([...new Set(keys)], 500)) {
        await tx
          .update(deviceCommands)
          .set({ status: 'superseded', completedAt: now })
          .where(
            and(
              eq(deviceCommands.deviceId, deviceId),
              eq(deviceCommands.status, 'pending'),
              inArray(deviceCommands.supersedeKey, chunk),
            ),
          );
      }
    }
    const ids: number[] = [];
    for (const chunk of chunks(commands, 400)) {
      const rows = await tx
        .insert(deviceCommands)
        .values(
          chunk.map((c) => ({
            deviceId: c.deviceId,
            kind: c.kind,
            payload: c.payload,
            status: 'pending' as const,
            supersedeKey: c.supersedeKey ?? null,
            sessionId: c.sessionId ?? null,
            attempts: 0,
            createdAt: now,
            notBefore: now,
            expiresAt: c.expiresAt ?? defaultExpiry,
          })),
        )
        .returning({ id: deviceCommands.id });
      for (const r of rows) ids.push(r.id);
    }
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
   * Takes the next batch for a polling device and renders it as `C:<id>:<text>` lines.
   * Returns null when there is nothing to send.
   */
  async takeBatch(device: DeviceRow): Promise<string | null> {
    const now = this.ctx.clock.now();
    const idle = this.idleUntil.get(device.id);
    if (idle !== undefined && idle > now) return null;

    const { ADMS_MAX_COMMANDS_PER_REQUEST: maxCommands, ADMS_MAX_COMMAND_BYTES: maxBytes } = this.ctx.settings;
    const due = await this.ctx.db.orm
      .select()
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
    const unrenderable: number[] = [];
    for (const command of due) {
      const text = await this.render(device, command);
      if (text === null) unrenderable.push(command.id);
      else rendered.push({ id: String(command.id), text });
    }
    const batch = formatCommandBatch(rendered, { maxCommands, maxBytes });
    const includedIds = batch.included.map(Number);

    const sent = await this.ctx.db.write(async ({ tx }) => {
      if (unrenderable.length > 0) {
        await tx
          .update(deviceCommands)
          .set({ status: 'superseded', completedAt: now, result: { reason: 'data no longer exists' } })
          .where(and(inArray(deviceCommands.id, unrenderable), notIndexed(deviceCommands.status, 'pending')));
      }
      if (includedIds.length === 0) return [];
      return tx
        .update(deviceCommands)
        .set({
          status: 'sent',
          attempts: sql`${deviceCommands.attempts} + 1`,
          sentAt: now,
          ackDeadline: now + this.ctx.settings.COMMAND_ACK_TIMEOUT,
        })
        .where(and(inArray(deviceCommands.id, includedIds), notIndexed(deviceCommands.status, 'pending')))
        .returning({ id: deviceCommands.id });
    });
    if (sent.length === 0) return null;
    if (sent.length === includedIds.length) return batch.body;
    // Another instance took some of them meanwhile: send only what this one marked.
    const mine = new Set(sent.map((r) => String(r.id)));
    return formatCommandBatch(
      rendered.filter((r) => mine.has(r.id)),
      { maxCommands, maxBytes },
    ).body;
  }

  /** Renders a command's wire text; null when its data is gone (a deleted template). */
  async render(device: DeviceRow, command: CommandRow): Promise<string | null> {
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
          return biodataCommand({ pin, no: template.fingerIndex, index: 0, type: 1, majorVer: major, minorVer: minor, template: base64 });
        }
        return fingerTemplateCommand({ pin, fingerIndex: template.fingerIndex, template: base64 });
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
      const rows = await tx
        .select()
        .from(deviceCommands)
        .where(
          and(
            notIndexed(deviceCommands.deviceId, device.id),
            inArray(
              deviceCommands.id,
              numeric.map((r) => Number(r.id)),
            ),
          ),
        );
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
        if (code === 0 || (code !== null && code > 0 && !INTERACTIVE_KINDS.has(command.kind))) {
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
      const overdue = await tx
        .select()
        .from(deviceCommands)
        .where(and(eq(deviceCommands.status, 'sent'), lte(deviceCommands.ackDeadline, now)))
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
    return command.attempts <= this.ctx.settings.COMMAND_MAX_RETRIES;
  }

  private backoff(attempts: number): number {
    return this.ctx.settings.COMMAND_RETRY_BACKOFF * 2 ** Math.max(0, Math.min(attempts - 1, 16));
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

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
