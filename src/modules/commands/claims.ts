/**
 * Claims: what polls handed each terminal, recorded per terminal rather than per command.
 *
 * A poll may hand a command over only once its hand-over is committed. Marking each command's
 * row `sent` did that, but a poll's few rows sit in their own pages of the table and of its
 * indexes: each poll dirtied ~4 pages (~16 KB of WAL) of the shared commit. Instead the shared
 * commit appends `[command id, sent at]` to the terminal's one row of `fpa_command_claims`
 * (the table is small: a terminal's claims are settled into the command rows once there are
 * CLAIMS_PER_TERMINAL of them, many contiguous rows in one go).
 *
 * A claimed command is `sent`: every reader sees it so (`effectiveStatus`, `shown`), a poll
 * never reads it as due, and any write that changes command rows settles the claims of the
 * terminals it touches first (`settle`), so it finds the rows as the readers saw them. The
 * claim is decided in the database under the write lock (the row still pending with the text
 * the poll rendered, not claimed yet), so two instances or two overlapping polls never send
 * one command twice, and a crash loses nothing: a committed claim is a sent command.
 */
import { inArray, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import type { Runtime } from '../../platform/runtime';
import { type CommandRow, INTERACTIVE_KINDS, type MarkCandidate } from './kinds';
import { sqlList } from './query-plans';
import { commandClaims, deviceCommands } from './tables';

/** Claims a terminal's row holds before they are settled into the command rows. */
const CLAIMS_PER_TERMINAL = 32;
/** Ids per `IN (...)` list of the claim step. */
const IDS_PER_READ = 500;

/** One claim: the command id and when it was handed over (ms). */
type Claim = [id: number, sentAt: number];

/** The ids of every claimed command, as an SQL subquery (a few per terminal: the table is small). */
const CLAIMED_IDS = sql.raw('(select j.value ->> 0 from fpa_command_claims c, json_each(c.claims) j)');

/** A command's status as every reader must see it: a claimed pending command is `sent`. */
export const effectiveStatus: SQL<string> = sql`case when ${deviceCommands.status} = 'pending' and ${deviceCommands.id} in ${CLAIMED_IDS} then 'sent' else ${deviceCommands.status} end`;

/** `status = 'sent'` as readers see it. */
export const isSent: SQL = sql`(${deviceCommands.status} = 'sent' or (${deviceCommands.status} = 'pending' and ${deviceCommands.id} in ${CLAIMED_IDS}))`;

/** `status = 'pending'` as readers see it (not claimed). */
export const isUnsent: SQL = sql`(${deviceCommands.status} = 'pending' and ${deviceCommands.id} not in ${CLAIMED_IDS})`;

export class CommandClaims {
  constructor(private readonly ctx: Runtime) {}

  /**
   * Group-commit step: claims for their terminals the candidates whose command is still pending,
   * not claimed yet, and still holds the kind and payload the poll rendered (a command replaced
   * in place keeps its id, not its content: sending the old text under that id would let the
   * terminal's answer close the new command). Returns the candidates claimed.
   */
  async claim(w: WriteContext, candidates: MarkCandidate[]): Promise<Set<MarkCandidate>> {
    const now = this.ctx.clock.now();
    // Two polls of one terminal may have read the same command: the first one gets it.
    const chosen = new Map<number, MarkCandidate>();
    for (const c of candidates) if (!chosen.has(c.id)) chosen.set(c.id, c);
    const rows = await this.currentRows(w, [...chosen.keys()]);
    const held = await this.claimsOf(w, [...new Set([...rows.values()].map((r) => r.deviceId))]);
    const taken = new Set([...held.values()].flatMap((claims) => claims.map(([id]) => id)));
    const changed = new Set<string>();
    const claimed = new Set<MarkCandidate>();
    for (const c of chosen.values()) {
      const row = rows.get(c.id);
      if (row?.status !== 'pending' || row.kind !== c.kind || row.payload !== c.payloadText || taken.has(c.id)) continue;
      const claims = held.get(row.deviceId) ?? [];
      claims.push([c.id, now]);
      held.set(row.deviceId, claims);
      changed.add(row.deviceId);
      claimed.add(c);
    }
    const full = [...changed].filter((deviceId) => held.get(deviceId)!.length >= CLAIMS_PER_TERMINAL);
    if (full.length > 0)
      await this.applyToRows(
        w.tx,
        full.flatMap((deviceId) => held.get(deviceId)!),
      );
    for (const deviceId of full) held.set(deviceId, []);
    await this.store(
      w,
      [...changed].map((deviceId) => [deviceId, held.get(deviceId)!]),
    );
    return claimed;
  }

  /**
   * Writes the claims of these terminals (all when `deviceIds` is omitted) into their command
   * rows (`sent`, attempts + 1, sent at, acknowledgement deadline) and clears them. Runs first
   * in every write that changes command rows (other than the claim step).
   */
  async settle(tx: Tx, deviceIds?: readonly string[]): Promise<void> {
    if (deviceIds?.length === 0) return;
    const parts = deviceIds ? chunks(deviceIds, IDS_PER_READ) : [undefined];
    for (const part of parts) {
      const held = await tx
        .select({ deviceId: commandClaims.deviceId, claims: commandClaims.claims })
        .from(commandClaims)
        .where(part ? sql`${inArray(commandClaims.deviceId, part)} and ${commandClaims.claims} != '[]'` : sql`${commandClaims.claims} != '[]'`);
      if (held.length === 0) continue;
      await this.applyToRows(
        tx,
        held.flatMap((h) => JSON.parse(h.claims) as Claim[]),
      );
      await tx
        .update(commandClaims)
        .set({ claims: '[]' })
        .where(
          inArray(
            commandClaims.deviceId,
            held.map((h) => h.deviceId),
          ),
        );
    }
  }

  /** When each claimed command of these terminals was handed over (id → ms), for `shown`. */
  async claimedAt(q: Queryable, deviceIds?: readonly string[]): Promise<Map<number, number>> {
    const rows = await q
      .select({ claims: commandClaims.claims })
      .from(commandClaims)
      .where(deviceIds ? inArray(commandClaims.deviceId, [...deviceIds]) : undefined);
    return new Map(rows.flatMap((r) => JSON.parse(r.claims) as Claim[]));
  }

  /** A command row as readers must see it: a claimed pending command as if settled. */
  shown(row: CommandRow, claimedAt: ReadonlyMap<number, number>): CommandRow {
    const sentAt = claimedAt.get(row.id);
    if (row.status !== 'pending' || sentAt === undefined) return row;
    return { ...row, status: 'sent', attempts: row.attempts + 1, sentAt, ackDeadline: this.ackDeadline(row, sentAt) };
  }

  private ackDeadline(row: Pick<CommandRow, 'kind' | 'expiresAt'>, sentAt: number): number {
    // An enroll command waits for a person at the terminal: only its session's end stops it.
    return INTERACTIVE_KINDS.has(row.kind) ? row.expiresAt : sentAt + this.ctx.settings.COMMAND_ACK_TIMEOUT;
  }

  /** The rows of these commands as they are now, inside the claim's transaction. */
  private async currentRows(w: WriteContext, ids: number[]) {
    const rows = new Map<number, { deviceId: string; status: string; kind: string; payload: string }>();
    for (const part of chunks(ids, IDS_PER_READ)) {
      const result = await w.execute({
        sql: `select id, device_id, status, kind, payload from fpa_device_commands where id in (${part.map(() => '?').join(', ')})`,
        args: part,
      });
      for (const r of result.rows) {
        rows.set(Number(r.id), { deviceId: String(r.device_id), status: String(r.status), kind: String(r.kind), payload: String(r.payload) });
      }
    }
    return rows;
  }

  private async claimsOf(w: WriteContext, deviceIds: string[]): Promise<Map<string, Claim[]>> {
    const held = new Map<string, Claim[]>();
    for (const part of chunks(deviceIds, IDS_PER_READ)) {
      const result = await w.execute({
        sql: `select device_id, claims from fpa_command_claims where device_id in (${part.map(() => '?').join(', ')})`,
        args: part,
      });
      for (const r of result.rows) held.set(String(r.device_id), JSON.parse(String(r.claims)) as Claim[]);
    }
    return held;
  }

  private async store(w: WriteContext, claims: [deviceId: string, claims: Claim[]][]): Promise<void> {
    for (const part of chunks(claims, IDS_PER_READ)) {
      await w.execute({
        sql: `insert into fpa_command_claims (device_id, claims) values ${part.map(() => '(?, ?)').join(', ')}
          on conflict (device_id) do update set claims = excluded.claims`,
        args: part.flatMap(([deviceId, list]) => [deviceId, JSON.stringify(list)]),
      });
    }
  }

  /**
   * Marks claimed commands `sent` in their rows, each with its own hand-over time, in one
   * statement. Only rows still pending: a claimed command is never changed before its claim
   * is settled (`settle` runs first), so this is a guard, not a choice. The claims drive the
   * lookup by rowid; `+status` keeps the planner off the status index (every pending command).
   */
  private async applyToRows(tx: Tx, claims: Claim[]): Promise<void> {
    if (claims.length === 0) return;
    await tx.run(sql`update fpa_device_commands
      set status = 'sent', attempts = attempts + 1, sent_at = v.sent_at,
        ack_deadline = case when kind in (${sql.raw(sqlList(INTERACTIVE_KINDS))}) then expires_at else v.sent_at + ${this.ctx.settings.COMMAND_ACK_TIMEOUT} end
      from (select j.value ->> 0 as id, j.value ->> 1 as sent_at from json_each(${JSON.stringify(claims)}) j) v
      where fpa_device_commands.id = v.id and +fpa_device_commands.status = 'pending'`);
  }
}
