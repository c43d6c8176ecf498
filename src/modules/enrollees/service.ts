/**
 * Enrollees link one employee of the host to a device PIN (pin-allocation.ts: sequential, never
 * reused). This class reads them; its parts do the rest by idea: `changes` (create, update,
 * delete, cards: changes.ts), `views` (the API's list and views: views.ts), `membership` (their
 * areas: area-membership.ts) and `retention` (retention.ts).
 */

import type { InValue } from '@libsql/client';
import { and, asc, eq, getTableName, inArray, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable } from '../../platform/db/client';
import { selectAsJson } from '../../platform/db/json-results';
import { placeholders } from '../../platform/db/placeholders';
import { FpaError } from '../../platform/errors';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import type { EmployeeDirectory } from '../employees';
import type { EventChannel, EventLog } from '../events';
import { enrolleeInScope, membership } from './area-membership';
import { ChangesToEnrollees } from './changes';
import type { EnrolleeEvents } from './events';
import { createdForm, deletedForm, updatedForm } from './logged';
import { EnrolleeRetention } from './retention';
import { Roster } from './roster';
import type { EnrolleeRuntime } from './runtime';
import { type EnrolleeRow, enrollees } from './tables';
import { EnrolleeViews } from './views';

export type { EnrolleeRow } from './tables';

/** Who holds a PIN (`byPins`): a deleted person's tombstone says when they were deleted. */
export interface PinHolder {
  id: string;
  employee: string;
  deletedAt?: number;
}

export class EnrolleeService {
  readonly events: EventChannel<EnrolleeEvents>;
  /** Creating, changing and deleting enrollees, and their cards (changes.ts). */
  readonly changes: ChangesToEnrollees;
  /** `GET enrollees/` and the enrollee view, with the parts modules above add (views.ts). */
  readonly views: EnrolleeViews;
  /** Which areas enrollees belong to, and who an area takes in (area-membership.ts). */
  readonly membership = membership;
  /** Tombstones scrubbed, deactivated people found (retention.ts). */
  readonly retention: EnrolleeRetention;
  /** Everyone with their areas, as the Today board reads them (roster.ts). */
  readonly roster: Roster;

  constructor(
    private readonly ctx: EnrolleeRuntime,
    log: EventLog,
    directory: EmployeeDirectory,
    /** Whether a terminal holds a user with this PIN (the devices module knows). */
    pinTaken: (q: Queryable, pin: string) => Promise<boolean>,
  ) {
    this.events = log.channel<EnrolleeEvents>();
    // The log keeps no card number, and of a deleted person no name, PIN or card (logged.ts).
    // Reactors and in-process listeners still get the whole record.
    this.events.storeAs('enrollee_created', createdForm);
    this.events.storeAs('enrollee_updated', updatedForm);
    this.events.storeAs('enrollee_deleted', deletedForm);
    this.changes = new ChangesToEnrollees(ctx, this.events, directory, pinTaken, (id, q, scope) => this.get(id, q, scope));
    this.views = new EnrolleeViews(ctx);
    this.retention = new EnrolleeRetention(ctx);
    this.roster = new Roster(ctx);
  }

  /** The enrollee (not deleted) and, for a limited scope, in one of its areas; else `not_found`. */
  /**
   * An enrollee in the scope's areas; `evenDeleted`, a deleted one too, for a caller whose areas
   * they were in (what a record of theirs kept for evidence is read under: their consents).
   */
  async get(id: string, q: Queryable = this.ctx.db.orm, scope: AreaScope = EVERYWHERE, options: { evenDeleted?: boolean } = {}): Promise<EnrolleeRow> {
    const row = await this.find(q, id);
    const gone = row?.status === 'deleted' && !options.evenDeleted;
    if (!row || gone || !(await this.inScope(q, id, scope))) throw new FpaError('not_found', 'enrollee not found', { enrollee: id });
    return row;
  }

  /** Those of these enrollee ids in one of the scope's areas (all of them, for an unlimited scope). */
  async keepInScope(q: Queryable, ids: readonly string[], scope: AreaScope): Promise<string[]> {
    const member = enrolleeInScope(enrollees.id, scope);
    if (!member) return [...ids];
    const kept = new Set<string>();
    for (const chunk of chunks([...new Set(ids)], 500)) {
      for (const r of await q
        .select({ id: enrollees.id })
        .from(enrollees)
        .where(and(inArray(enrollees.id, chunk), member)))
        kept.add(r.id);
    }
    return ids.filter((id) => kept.has(id));
  }

  /** Whether the enrollee is in one of the scope's areas (always, for an unlimited scope). */
  async inScope(q: Queryable, id: string, scope: AreaScope): Promise<boolean> {
    const member = enrolleeInScope(enrollees.id, scope);
    if (!member) return true;
    const [row] = await q
      .select({ one: sql<number>`1` })
      .from(enrollees)
      .where(and(eq(enrollees.id, id), member))
      .limit(1);
    return row !== undefined;
  }

  /** The enrollee, active, or `not_found` / `enrollee_inactive`. */
  async requireActive(q: Queryable, id: string): Promise<EnrolleeRow> {
    const row = await this.get(id, q);
    if (row.status !== 'active') throw new FpaError('enrollee_inactive', 'the enrollee is deactivated', { enrollee: id });
    return row;
  }

  /** Any enrollee row, deleted ones included (tombstones keep their PIN). */
  async find(q: Queryable, id: string): Promise<EnrolleeRow | null> {
    const [row] = await q.select().from(enrollees).where(eq(enrollees.id, id)).limit(1);
    return row ?? null;
  }

  /** Finds an enrollee by UUID or by device PIN (the agent API accepts either). */
  async findByIdOrPin(q: Queryable, value: string): Promise<EnrolleeRow | null> {
    const [row] = await q
      .select()
      .from(enrollees)
      .where(and(sql`(${enrollees.id} = ${value} or ${enrollees.devicePin} = ${value})`, ne(enrollees.status, 'deleted')))
      .limit(1);
    return row ?? null;
  }

  /** The enrollee (not deleted) holding this device PIN. */
  async findByPin(q: Queryable, pin: string): Promise<EnrolleeRow | null> {
    const [row] = await q
      .select()
      .from(enrollees)
      .where(and(eq(enrollees.devicePin, pin), ne(enrollees.status, 'deleted')))
      .limit(1);
    return row ?? null;
  }

  /**
   * Of these PINs, those the service handed out to an enrollee (not deleted): the enrollee id of
   * each. Such a PIN is that enrollee on every terminal it appears on (walk-up.ts).
   */
  async allocatedPins(execute: Execute, pins: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const chunk of chunks(pins, 500)) {
      const rows = await execute({
        sql: `select id, device_pin from ${getTableName(enrollees)} where device_pin in (${placeholders(chunk.length)}) and status != 'deleted' and pin_allocated = 1`,
        args: chunk as InValue[],
      });
      for (const e of rows.rows) out.set(String(e.device_pin), String(e.id));
    }
    return out;
  }

  /**
   * Who holds each of these device PINs, deleted people too (a tombstone keeps its PIN: no one
   * else gets it), a deleted one with the instant of the deletion (the tombstone's last change).
   * With a raw statement of the caller's transaction: this runs for every attendance batch, where
   * the query builder costs more than the query (and reading the rows one by one more than
   * finding them: platform/db/json-results.ts).
   */
  async byPins(execute: Execute, pins: readonly string[]): Promise<Map<string, PinHolder>> {
    const out = new Map<string, PinHolder>();
    // Chunked: a 10 MB upload can carry more distinct PINs than SQLite takes bind variables.
    for (const chunk of chunks(pins, 500)) {
      const known = await selectAsJson<[string, string, string, number | null]>(
        execute,
        ['device_pin', 'id', 'employee_key', 'deleted_at'],
        `select device_pin, id, employee_key, case when status = 'deleted' then updated_at end as deleted_at
          from ${getTableName(enrollees)} where device_pin in (select value from json_each(?))`,
        [JSON.stringify(chunk)],
      );
      for (const [pin, id, employee, deletedAt] of known) out.set(pin, deletedAt === null ? { id, employee } : { id, employee, deletedAt });
    }
    return out;
  }

  /** Enrollees (not deleted) by employee key (punch imports name people by their employee key). */
  async byEmployeeKeys(q: Queryable, keys: readonly string[]): Promise<Map<string, EnrolleeRow>> {
    const out = new Map<string, EnrolleeRow>();
    for (const chunk of chunks([...new Set(keys)], 500)) {
      const rows = await q
        .select()
        .from(enrollees)
        .where(and(inArray(enrollees.employeeKey, chunk), ne(enrollees.status, 'deleted')));
      for (const row of rows) out.set(row.employeeKey, row);
    }
    return out;
  }

  /**
   * The ids of every enrollee an employee key names, deleted ones too (their punches are still
   * theirs): `punches/?employee=` reads the punch index by these ids. A tombstone scrubbed by
   * retention no longer names anyone.
   */
  async idsOfEmployee(employeeKey: string): Promise<string[]> {
    const rows = await this.ctx.db.orm.select({ id: enrollees.id }).from(enrollees).where(eq(enrollees.employeeKey, employeeKey));
    return rows.map((r) => r.id);
  }

  /** Whether an enrollee of this employee key (deleted ones too) is in one of the scope's areas. */
  async employeeEverInScope(employeeKey: string, scope: AreaScope): Promise<boolean> {
    const [found] = await this.ctx.db.orm
      .select({ id: enrollees.id })
      .from(enrollees)
      .where(and(eq(enrollees.employeeKey, employeeKey), enrolleeInScope(enrollees.id, scope)))
      .limit(1);
    return found !== undefined;
  }

  /**
   * The display name of the enrollee an id column names (tombstones included: reports name
   * people who have since left), as SQL for a query of another module: the export writes its
   * CSV in one statement (attendance/reports.ts).
   */
  displayNameOf(enrolleeId: SQLiteColumn): SQL {
    return sql`(select ${enrollees.displayName} from ${enrollees} where ${enrollees.id} = ${enrolleeId})`;
  }

  /** Enrollee rows by id, tombstones included (reports name people who have since left). */
  async byIds(q: Queryable, ids: readonly string[]): Promise<Map<string, EnrolleeRow>> {
    const out = new Map<string, EnrolleeRow>();
    for (const chunk of chunks([...new Set(ids)], 500)) {
      for (const row of await q.select().from(enrollees).where(inArray(enrollees.id, chunk))) out.set(row.id, row);
    }
    return out;
  }

  /** Active enrollees created before `instant`, by id (absences). */
  async activeCreatedBefore(q: Queryable, instant: number): Promise<{ id: string; employeeKey: string }[]> {
    return q
      .select({ id: enrollees.id, employeeKey: enrollees.employeeKey })
      .from(enrollees)
      .where(and(eq(enrollees.status, 'active'), lt(enrollees.createdAt, instant)))
      .orderBy(asc(enrollees.id));
  }
}
