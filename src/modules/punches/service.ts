/**
 * Punch ingestion and the punch feed. A batch from a terminal is stored in one transaction:
 * deduplicated on (device, PIN, local time), given its sequence by the database, linked to
 * the enrollee with that PIN, and handed to the hooks that must commit with it (webhook
 * outbox rows, attendance days). Events go out after the commit; the terminal is answered
 * `OK` only after it.
 */
import { and, asc, desc, eq, getTableName, gt, gte, lt, lte, sql } from 'drizzle-orm';
import type { InValue } from '@libsql/client';
import type { Context } from '../../app/context';
import type { Tx } from '../../platform/db/client';
import { enrollees, punches } from '../../app/schema';
import { ref, type DeviceRow } from '../devices/service';
import type { PunchPayload } from '../events/bus';
import { decodeCursor, encodeCursor } from '../../platform/http/cursor';
import { FpaError } from '../../platform/errors';
import { punchView, type PunchView } from './view';

export type PunchRow = typeof punches.$inferSelect;

/** One parsed attendance line, already converted to UTC by the caller. */
export interface IncomingPunch {
  pin: string;
  localTime: string;
  punchedAt: number;
  utcOffsetMinutes: number;
  state: number;
  verifyType: number;
  workCode: string;
  extra: string[];
  raw: string;
  flags?: string[];
}

export interface IngestResult {
  /** Lines stored now. */
  inserted: number;
  /** Lines already stored earlier (resends): acknowledged all the same. */
  duplicates: number;
  lastSequence: number | null;
}

/** Runs inside the ingest transaction with the rows just inserted. */
export type PunchHook = (tx: Tx, rows: PunchRow[]) => Promise<void>;

const INSERT_CHUNK = 200;
const PIN_CHUNK = 500;

export class PunchService {
  private readonly hooks: PunchHook[] = [];

  constructor(private readonly ctx: Context) {}

  /** Registers work that must commit together with new punches (outbox rows, attendance). */
  onInsert(hook: PunchHook): void {
    this.hooks.push(hook);
  }

  async ingest(device: DeviceRow, lines: IncomingPunch[]): Promise<IngestResult> {
    if (lines.length === 0) return { inserted: 0, duplicates: 0, lastSequence: null };
    const receivedAt = this.ctx.clock.now();
    const pins = [...new Set(lines.map((l) => l.pin))];
    const { rows, payloads } = await this.ctx.db.write(async ({ tx, execute, afterCommit }) => {
      // Chunked: a 10 MB upload can carry more distinct PINs than SQLite takes bind variables.
      const byPin = new Map<string, { id: string; pin: string; employee: string }>();
      for (let i = 0; i < pins.length; i += PIN_CHUNK) {
        const chunk = pins.slice(i, i + PIN_CHUNK);
        const known = await execute({
          sql: `select id, device_pin, employee_key from ${getTableName(enrollees)} where device_pin in (${chunk.map(() => '?').join(', ')}) and status != 'deleted'`,
          args: chunk,
        });
        for (const e of known.rows) byPin.set(String(e.device_pin), { id: String(e.id), pin: String(e.device_pin), employee: String(e.employee_key) });
      }
      const inserted: PunchRow[] = [];
      const payloadOf = new Map<string, PunchPayload>();
      for (let i = 0; i < lines.length; i += INSERT_CHUNK) {
        const chunk = lines.slice(i, i + INSERT_CHUNK);
        const values = chunk.map((l) => {
          const enrollee = byPin.get(l.pin);
          const flags = [...(l.flags ?? [])];
          if (!enrollee) flags.push('unknown_pin');
          const id = crypto.randomUUID();
          payloadOf.set(id, {
            line: { pin: l.pin, localTime: l.localTime, state: l.state, verifyType: l.verifyType, workCode: l.workCode, extra: l.extra },
            raw: l.raw,
          });
          return {
            id,
            deviceId: device.id,
            deviceSerial: device.serialNumber,
            devicePin: l.pin,
            enrolleeId: enrollee?.id ?? null,
            employeeKey: enrollee?.employee ?? null,
            punchedAt: l.punchedAt,
            localTime: l.localTime,
            utcOffsetMinutes: l.utcOffsetMinutes,
            state: l.state,
            verifyType: l.verifyType,
            workCode: l.workCode,
            raw: l.raw,
            flags,
            receivedAt,
          };
        });
        // One raw multi-row insert: through the query builder, binding 3,000 parameters costs
        // more than the insert. Only what the database decides comes back.
        const stored = await execute({ sql: insertPunchesSql(values.length), args: values.flatMap(punchArgs) });
        const byId = new Map<string, (typeof values)[number]>(values.map((v) => [v.id, v]));
        for (const row of stored.rows) {
          const id = String(row.id);
          inserted.push({ ...byId.get(id)!, sequence: Number(row.sequence) });
        }
      }
      for (const hook of this.hooks) await hook(tx, inserted);
      afterCommit(() => {
        if (inserted.length > 0) this.ctx.signals.punchesCommitted(inserted[inserted.length - 1]!.sequence);
      });
      return { rows: inserted, payloads: payloadOf };
    });
    if (this.ctx.events.listenerCount('punch_received') > 0) {
      const sender = ref(device);
      for (const row of rows) {
        this.ctx.events.emit('punch_received', { sender, punch: punchView(row), payload: payloads.get(row.id)! });
      }
    }
    return {
      inserted: rows.length,
      duplicates: lines.length - rows.length,
      lastSequence: rows.length > 0 ? rows[rows.length - 1]!.sequence : null,
    };
  }

  /** `punches/latest/?after=`: ascending by sequence, never skipping or repeating. */
  async latest(after: number, limit: number): Promise<{ results: PunchView[]; last_sequence: number }> {
    const rows = await this.ctx.db.orm
      .select()
      .from(punches)
      .where(gt(punches.sequence, after))
      .orderBy(asc(punches.sequence))
      .limit(clampLimit(limit));
    return { results: rows.map(punchView), last_sequence: rows.length > 0 ? rows[rows.length - 1]!.sequence : after };
  }

  /** `punches/`: filtered, newest first, cursor-paged by sequence. */
  async list(filters: { employee?: string; device?: string; from?: string; to?: string; cursor?: string; limit?: number }) {
    const conditions = [];
    if (filters.employee) conditions.push(eq(punches.employeeKey, filters.employee));
    if (filters.device) conditions.push(eq(punches.deviceSerial, filters.device));
    if (filters.from) conditions.push(gte(punches.punchedAt, parseInstant(filters.from, 'from')));
    if (filters.to) conditions.push(lte(punches.punchedAt, parseInstant(filters.to, 'to')));
    if (filters.cursor) {
      const decoded = decodeCursor(filters.cursor);
      if (!decoded || typeof decoded[0] !== 'number') throw new FpaError('invalid_cursor', 'the cursor is not valid', {});
      conditions.push(lt(punches.sequence, decoded[0]));
    }
    const limit = clampLimit(filters.limit);
    const rows = await this.ctx.db.orm
      .select()
      .from(punches)
      .where(conditions.length ? and(...conditions) : undefined)
      .orderBy(desc(punches.sequence))
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    return {
      results: page.map(punchView),
      next_cursor: rows.length > limit ? encodeCursor([page[page.length - 1]!.sequence]) : null,
    };
  }

  async maxSequence(): Promise<number> {
    const [row] = await this.ctx.db.orm.select({ max: sql<number | null>`max(${punches.sequence})` }).from(punches);
    return row?.max ?? 0;
  }
}

/** The columns of the raw punch insert, in `punchArgs` order. */
const PUNCH_COLUMNS = [
  'id', 'device_id', 'device_serial', 'device_pin', 'enrollee_id', 'employee_key', 'punched_at', 'local_time',
  'utc_offset_minutes', 'state', 'verify_type', 'work_code', 'raw', 'flags', 'received_at',
] as const;
const insertSqlByCount = new Map<number, string>();

/** `INSERT … VALUES (…), (…) ON CONFLICT DO NOTHING RETURNING sequence, id` for `count` rows. */
function insertPunchesSql(count: number): string {
  let text = insertSqlByCount.get(count);
  if (!text) {
    const row = `(${PUNCH_COLUMNS.map(() => '?').join(', ')})`;
    text = `insert into ${getTableName(punches)} (${PUNCH_COLUMNS.join(', ')}) values ${Array.from({ length: count }, () => row).join(', ')} on conflict do nothing returning sequence, id`;
    insertSqlByCount.set(count, text);
  }
  return text;
}

function punchArgs(v: Omit<PunchRow, 'sequence'>): InValue[] {
  return [
    v.id, v.deviceId, v.deviceSerial, v.devicePin, v.enrolleeId, v.employeeKey, v.punchedAt, v.localTime,
    v.utcOffsetMinutes, v.state, v.verifyType, v.workCode, v.raw, JSON.stringify(v.flags), v.receivedAt,
  ];
}

export function clampLimit(limit: number | undefined, fallback = 100, max = 1000): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(max, Math.trunc(limit)));
}

/** Accepts an ISO instant or a date (`YYYY-MM-DD`, taken as UTC midnight). */
export function parseInstant(value: string, field: string): number {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms)) throw new FpaError('validation_error', `${field} must be an ISO 8601 date or instant`, { field, value });
  return ms;
}
