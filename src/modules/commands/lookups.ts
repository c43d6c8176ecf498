/** What other modules ask of the command queue: open commands of a kind, a session's, counts. */
import { and, desc, eq, gt, inArray, isNotNull, or, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import type { DeviceService } from '../devices';
import { type CommandKind, DELETE_KINDS, INVENTORY_QUERY_OPEN, QUERY_USERS_KEY } from './kinds';
import type { CommandRuntime } from './runtime';
import { deviceCommands } from './tables';

/** kinds.ts `INVENTORY_QUERY_OPEN`, for queries of the unaliased table. */
const INVENTORY_OPEN = sql.raw(INVENTORY_QUERY_OPEN);

/** SQLite bind-variable budget per `IN (...)` list. */
const IN_CHUNK = 500;

/** kinds.ts `wentOut` as a condition: the command was sent to its terminal at least once. */
const WENT_OUT = or(isNotNull(deviceCommands.sentAt), gt(deviceCommands.attempts, 0));

/**
 * When a command last went to its terminal (null: never). A re-upload counts as recovered only
 * what arrived from then on (completeness/recovery.ts `finish`).
 */
export async function commandSentAt(q: Queryable, id: number): Promise<number | null> {
  const [row] = await q.select({ sentAt: deviceCommands.sentAt }).from(deviceCommands).where(eq(deviceCommands.id, id)).limit(1);
  return row?.sentAt ?? null;
}

/**
 * Whether a delete under one of these supersede keys (a part's, a user's) went out to this
 * terminal and is still unfinished (its answer lost, waiting to be resent): the terminal may yet
 * carry it out, after whatever it took in since (enrollment/write-behind-delete.ts).
 */
export async function sentDeleteUnfinished(q: Queryable, deviceId: string, keys: readonly string[]): Promise<boolean> {
  const [row] = await q
    .select({ id: deviceCommands.id })
    .from(deviceCommands)
    .where(
      and(
        eq(deviceCommands.deviceId, deviceId),
        inArray(deviceCommands.supersedeKey, [...keys]),
        eq(deviceCommands.status, 'pending'),
        inArray(deviceCommands.kind, [...DELETE_KINDS]),
        WENT_OUT,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * Of these templates on these terminals, the pairs (`<deviceId>\n<templateId>`) where a write of
 * the template went out to the terminal (sent at least once, whatever became of it): the
 * terminal may hold it, whatever its users say (enrollment/not-theirs.ts).
 */
export async function templateWritesSent(q: Queryable, deviceIds: readonly string[], templateIds: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const templateId = sql<string>`json_extract(${deviceCommands.payload}, '$.templateId')`;
  for (const devices of chunks(deviceIds, IN_CHUNK / 2)) {
    for (const ids of chunks(templateIds, IN_CHUNK / 2)) {
      const rows = await q
        .selectDistinct({ deviceId: deviceCommands.deviceId, templateId })
        .from(deviceCommands)
        .where(and(inArray(deviceCommands.deviceId, [...devices]), eq(deviceCommands.kind, 'update_template'), WENT_OUT, inArray(templateId, [...ids])));
      for (const r of rows) out.add(`${r.deviceId}\n${String(r.templateId)}`);
    }
  }
  return out;
}

export class CommandLookups {
  constructor(
    private readonly ctx: CommandRuntime,
    private readonly devices: DeviceService,
  ) {}

  /**
   * Unfinished commands of `kind` among these ids on a device that went out (an INFO answer must
   * answer an INFO the terminal was sent: service.ts applyResults ignores any other).
   */
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
          or(eq(deviceCommands.status, 'sent'), WENT_OUT),
          inArray(deviceCommands.id, ids),
        ),
      );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * When the terminal's inventory was asked for, while it is outstanding (null otherwise: kinds.ts
   * `INVENTORY_QUERY_OPEN`). Found by the supersede index (device, `query-users`): a terminal's
   * queue may hold a whole backfill.
   */
  async inventorySince(q: Queryable, deviceId: string): Promise<number | null> {
    const [row] = await q
      .select({ at: deviceCommands.createdAt })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, deviceId), INVENTORY_OPEN))
      .limit(1);
    return row?.at ?? null;
  }

  /**
   * Whether the terminal's last query of its users was the one of its approval (or first
   * contact) and it expired unanswered (the terminal silent longer than COMMAND_EXPIRY): what it
   * holds was never known, so the query it is asked when it is back is its inventory again.
   */
  async inventoryExpired(q: Queryable, deviceId: string): Promise<boolean> {
    const [last] = await q
      .select({
        status: deviceCommands.status,
        expiresAt: deviceCommands.expiresAt,
        resync: sql<string | null>`json_extract(${deviceCommands.payload}, '$.resync')`,
      })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, deviceId), eq(deviceCommands.supersedeKey, QUERY_USERS_KEY)))
      .orderBy(desc(deviceCommands.id))
      .limit(1);
    if (last?.resync !== 'approved') return false;
    // Expired, or past its expiry and not yet closed by the expire-commands job.
    return last.status === 'expired' || ((last.status === 'pending' || last.status === 'sent') && last.expiresAt <= this.ctx.clock.now());
  }

  /** Of these terminals, those whose inventory is outstanding (inventorySince): what they hold under a PIN is not known yet. */
  async inventoryOutstanding(q: Queryable, deviceIds: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const chunk of chunks(deviceIds, IN_CHUNK)) {
      const rows = await q
        .select({ deviceId: deviceCommands.deviceId })
        .from(deviceCommands)
        .where(and(inArray(deviceCommands.deviceId, chunk), INVENTORY_OPEN));
      for (const r of rows) out.add(r.deviceId);
    }
    return out;
  }

  /** Of these PINs, those a command to this terminal carried out to it (sent at least once, whatever became of it). */
  async pinsSentTo(q: Queryable, deviceId: string, pins: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const pin = sql<string>`json_extract(${deviceCommands.payload}, '$.pin')`;
    for (const chunk of chunks(pins, IN_CHUNK)) {
      const rows = await q
        .selectDistinct({ pin })
        .from(deviceCommands)
        .where(and(eq(deviceCommands.deviceId, deviceId), WENT_OUT, inArray(pin, [...chunk])));
      for (const r of rows) out.add(String(r.pin));
    }
    return out;
  }

  /**
   * The templates whose writes to this terminal under this PIN were queued after command
   * `afterId` (whatever became of them): a terminal runs its queue in order, so what a delete of
   * that user took away does not take these (enrollment's `recordWhatTerminalHolds`).
   */
  async templatesWrittenAfter(q: Queryable, deviceId: string, pin: string, afterId: number): Promise<Set<string>> {
    const rows = await q
      .select({ templateId: sql<unknown>`json_extract(${deviceCommands.payload}, '$.templateId')` })
      .from(deviceCommands)
      .where(
        and(
          eq(deviceCommands.deviceId, deviceId),
          eq(deviceCommands.kind, 'update_template'),
          gt(deviceCommands.id, afterId),
          sql`json_extract(${deviceCommands.payload}, '$.pin') = ${pin}`,
        ),
      );
    return new Set(rows.map((r) => r.templateId).filter((id): id is string => typeof id === 'string'));
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
      .select({
        id: deviceCommands.id,
        status: deviceCommands.status,
        payload: deviceCommands.payload,
        sentAt: deviceCommands.sentAt,
        attempts: deviceCommands.attempts,
      })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.sessionId, sessionId), inArray(deviceCommands.kind, [...kinds])));
  }

  /**
   * The last command under a supersede key on a terminal queued before command `beforeId` (what
   * the terminal was told about that user just before it): null when there is none.
   */
  async lastUnderKeyBefore(q: Queryable, deviceId: string, key: string, beforeId: number) {
    const [row] = await q
      .select({
        id: deviceCommands.id,
        kind: deviceCommands.kind,
        status: deviceCommands.status,
        payload: deviceCommands.payload,
        sentAt: deviceCommands.sentAt,
        attempts: deviceCommands.attempts,
      })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, deviceId), eq(deviceCommands.supersedeKey, key), sql`${deviceCommands.id} < ${beforeId}`))
      .orderBy(desc(deviceCommands.id))
      .limit(1);
    return row ?? null;
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

  /** Deletes not answered yet (pending or sent) on the terminals in the scope: they never expire (health/). */
  async countOpenDeletes(q: Queryable = this.ctx.db.orm, scope: AreaScope = EVERYWHERE): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(deviceCommands)
      .where(
        and(
          inArray(deviceCommands.status, ['pending', 'sent']),
          inArray(deviceCommands.kind, [...DELETE_KINDS]),
          this.devices.deviceInAreas(deviceCommands.deviceId, scope),
        ),
      );
    return row?.n ?? 0;
  }

  /** A terminal's unfinished commands (pending or sent). */
  async countPending(q: Queryable, deviceId: string): Promise<number> {
    const [row] = await q
      .select({ n: sql<number>`count(*)` })
      .from(deviceCommands)
      .where(and(eq(deviceCommands.deviceId, deviceId), inArray(deviceCommands.status, ['pending', 'sent'])));
    return row?.n ?? 0;
  }
}
