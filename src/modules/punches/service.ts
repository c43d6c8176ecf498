/**
 * Punch ingestion and the punch feed. A batch from a terminal is stored in one transaction:
 * deduplicated on (device, PIN, local time), given its sequence by the database, linked to
 * the enrollee with that PIN, and announced as `punch_received` events recorded in the same
 * transaction (what follows from them, attendance days and webhooks, reacts to those). The
 * terminal is answered `OK` only after the commit. Manual and imported punches (corrections.ts)
 * are stored through the same `store`, so they share the feed's sequence and its events. The
 * raw insert is in insert-sql.ts, the listing of punches in listing.ts, what attendance reads in
 * counted.ts (`punches.counted`).
 */

import { and, asc, eq, getTableName, gt, isNull, lt, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable, WriteContext } from '../../platform/db/client';
import { GroupCommit } from '../../platform/db/group-commit';
import { insertSequenced } from '../../platform/db/json-results';
import { jsonRows } from '../../platform/db/json-rows';
import { refuseCursorAhead } from '../../platform/db/sequences';
import { type AreaScope, coversAny, EVERYWHERE, isLimited } from '../../platform/scope';
import { type DeviceRef, type DeviceRow, type DeviceService, deviceRef, NEW_ADDRESS_FLAG } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel, EventLog } from '../events';
import { bucketOf, punchedWithin } from './buckets';
import { counted } from './counted';
import type { PunchEvents, PunchPayload } from './events';
import { INSERT_PUNCHES_SQL, punchValues } from './insert-sql';
import { listPunches, type PunchListFilters } from './listing';
import { receivedForm, voidedForm } from './logged';
import { holderAt, type PunchOwner } from './owners';
import { purgePunchesBefore, purgeResetClockReceivedBefore } from './purge';
import type { PunchRuntime } from './runtime';
import { CLOCK_AHEAD_FLAG, type NewPunch, type PunchRow, punches, RESET_CLOCK_DATED_BEFORE } from './tables';
import { type PunchView, punchView } from './view';

const DAY_MS = 86_400_000;
/** The least a punch is ahead of its arrival to be `clock_ahead` (below DEVICE_CLOCK_DRIFT_MAX, when that is smaller). */
const AHEAD_TOLERANCE_MIN_MS = 60_000;

export type { NewPunch, PunchRow } from './tables';

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
  /**
   * Lines older than RETENTION_PUNCHES_DAYS (a clock reset's aside): acknowledged and not stored,
   * so the purge holds against a terminal that sends its whole log again.
   */
  pastRetention: number;
  lastSequence: number | null;
}

/** Punches per insert statement: bounds the JSON text of one (an import may hold many thousands). */
const INSERT_CHUNK = 1000;
/** Uploads sharing one transaction at most (terminals send up to a few hundred lines each). */
const UPLOADS_PER_TRANSACTION = 32;

/** One terminal's upload, within retention, waiting for its transaction. */
interface Upload {
  device: DeviceRow;
  lines: IncomingPunch[];
  receivedAt: number;
  /** Who brought the terminal's lines in by hand (its USB file), when a person did. */
  by?: string;
}

/**
 * Extra flags for punches about to be stored (or voided), decided by a module above this one
 * in the same transaction (attendance: `after_lock` for a date in a locked pay period). Answers
 * one list per punch, or null when it has nothing to add.
 */
/**
 * Told of every terminal upload once it is stored (duplicates included): the lines the terminal
 * sent, as it sent them (completeness counts what a terminal re-uploads). Runs after the commit.
 */
export type UploadListener = (device: DeviceRow, lines: readonly { pin: string; localTime: string }[]) => void;

export type PunchFlagger = (w: WriteContext, punches: readonly { enrolleeId: string | null; punchedAt: number }[]) => Promise<(readonly string[])[] | null>;

export class PunchService {
  readonly events: EventChannel<PunchEvents>;
  private readonly flaggers: PunchFlagger[] = [];
  private readonly uploadListeners: UploadListener[] = [];
  /**
   * Terminals' uploads that arrive together (a shift change) share one write transaction: one
   * commit, one WAL sync and the index pages they share written once, instead of one of each
   * per terminal. Each terminal is still answered only after the commit that holds its punches.
   */
  private readonly uploads: GroupCommit<Upload, PunchRow[]>;
  /** The punches attendance counts, and the span of the stored ones (counted.ts). */
  readonly counted = counted;

  constructor(
    private readonly ctx: PunchRuntime,
    log: EventLog,
    private readonly enrollees: EnrolleeService,
    private readonly devices: DeviceService,
  ) {
    this.events = log.channel<PunchEvents>();
    this.events.storeAs('punch_received', receivedForm);
    this.events.storeAs('punch_voided', voidedForm);
    this.uploads = new GroupCommit(
      ctx.db,
      async (w, uploads) => {
        const stored: PunchRow[][] = [];
        for (const upload of uploads) stored.push(await this.storeUpload(w, upload));
        return stored;
      },
      { maxPerTransaction: UPLOADS_PER_TRANSACTION },
    );
  }

  /** Called at start-up by modules above this one (see PunchFlagger). */
  addFlagger(flagger: PunchFlagger): void {
    this.flaggers.push(flagger);
  }

  /** Wired by the composition root (app/modules.ts): see UploadListener. */
  onUpload(listener: UploadListener): void {
    this.uploadListeners.push(listener);
  }

  /** The flags the flaggers add to these punches, one list per punch (empty lists when none). */
  async extraFlags(w: WriteContext, rows: readonly { enrolleeId: string | null; punchedAt: number }[]): Promise<string[][]> {
    const out: string[][] = rows.map(() => []);
    for (const flagger of this.flaggers) {
      const added = await flagger(w, rows);
      if (added) {
        added.forEach((flags, i) => {
          out[i]?.push(...flags);
        });
      }
    }
    return out;
  }

  /** A terminal's lines: its upload, or its USB file brought in `by` someone (terminals/usb-import.ts). */
  async ingest(device: DeviceRow, received: IncomingPunch[], options: { by?: string } = {}): Promise<IngestResult> {
    this.ctx.uploads.mark();
    const receivedAt = this.ctx.clock.now();
    const lines = this.withinRetention(received, receivedAt);
    const pastRetention = received.length - lines.length;
    if (lines.length === 0) {
      for (const listener of this.uploadListeners) listener(device, received);
      return { inserted: 0, duplicates: 0, pastRetention, lastSequence: null };
    }
    const rows = await this.uploads.submit({ device, lines, receivedAt, ...(options.by ? { by: options.by } : {}) });
    this.ctx.metrics.punchesIngested.inc(rows.length);
    for (const listener of this.uploadListeners) listener(device, received);
    return {
      inserted: rows.length,
      duplicates: lines.length - rows.length,
      pastRetention,
      lastSequence: rows.length > 0 ? rows[rows.length - 1]!.sequence : null,
    };
  }

  /** Stores one terminal's upload in the caller's (shared) transaction; answers the stored rows. */
  private async storeUpload(w: WriteContext, { device, lines, receivedAt, by }: Upload): Promise<PunchRow[]> {
    const pins = [...new Set(lines.map((l) => l.pin))];
    const byPin = await this.whose(w.execute, w.tx, device, pins);
    const owners = lines.map((l) => holderAt(byPin.get(l.pin), l.punchedAt));
    // A PIN that punches there for nobody is a user the terminal holds: listed (adoptable, or a
    // conflict with a deleted person's PIN), never handed out. Not from an unconfirmed address:
    // whoever sent those is not known to be the terminal, and made-up PINs would fill its user
    // list and take PINs out of the service's hands.
    const nobodys = new Set(lines.filter((l, i) => !owners[i] && !l.flags?.includes(NEW_ADDRESS_FLAG)).map((l) => l.pin));
    await this.devices.users.seen(w.tx, device.id, [...nobodys]);
    const payloadOf = new Map<string, PunchPayload>();
    // A punch dated after it arrived was made by a clock running ahead (a real-time upload from a
    // terminal an hour fast): it counts as dated, flagged for HR. Decided here, once: a punch of
    // the terminal's log uploaded later is not ahead of its arrival, and is never flagged.
    const aheadAfter = receivedAt + Math.max(AHEAD_TOLERANCE_MIN_MS, this.ctx.settings.DEVICE_CLOCK_DRIFT_MAX);
    const values: NewPunch[] = lines.map((l, i) => {
      const enrollee = owners[i];
      const flags = [...(l.flags ?? [])];
      if (!enrollee) flags.push('unknown_pin');
      if (l.punchedAt > aheadAfter) flags.push(CLOCK_AHEAD_FLAG);
      // Time-ordered (v7): the unique index on `id` then grows at its end instead of taking
      // random inserts all over a large table (about a quarter faster ingest, bench/ingest.ts).
      const id = Bun.randomUUIDv7();
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
    return this.store(w, values, { sender: deviceRef(device), payloadOf: (id) => payloadOf.get(id)!, ...(by ? { by } : {}) });
  }

  /**
   * Punches older than RETENTION_PUNCHES_DAYS were purged, or would be at the next purge: one a
   * terminal sends again (its log is longer than our retention) is acknowledged and not stored,
   * so the purge holds. A punch from a terminal whose clock was reset is not old, only wrong: kept.
   */
  withinRetention(lines: IncomingPunch[], now: number): IncomingPunch[] {
    const days = this.ctx.settings.RETENTION_PUNCHES_DAYS;
    if (days <= 0) return lines;
    const cutoff = now - days * DAY_MS;
    return lines.filter((l) => l.punchedAt >= cutoff || l.flags?.includes('clock_reset'));
  }

  /**
   * Stores new punches in the caller's transaction: the flaggers' flags added, deduplicated by
   * the table's unique index (a duplicate is skipped, not an error), sequences given by the
   * database, and one `punch_received` event per stored punch. Answers the stored rows.
   */
  async store(
    w: WriteContext,
    values: NewPunch[],
    options: { sender: DeviceRef | null; payloadOf: (id: string) => PunchPayload; by?: string },
  ): Promise<PunchRow[]> {
    const extra = this.flaggers.length > 0 ? await this.extraFlags(w, values) : null;
    if (extra) {
      values.forEach((v, i) => {
        v.flags.push(...(extra[i] ?? []));
      });
    }
    const inserted: PunchRow[] = [];
    for (const chunk of chunks(values, INSERT_CHUNK)) {
      // One raw statement, the rows as one JSON value (platform/db/json-rows.ts): through the
      // query builder, or as thousands of bound values, the binding costs more than the insert.
      // Only what the database decides comes back, as one value (platform/db/json-results.ts).
      const stored = await insertSequenced(w.execute, getTableName(punches), INSERT_PUNCHES_SQL, [jsonRows(chunk.map(punchValues))]);
      const byId = new Map<string, NewPunch>(chunk.map((v) => [v.id, v]));
      for (const row of stored) {
        const v = byId.get(row.id)!;
        inserted.push({
          ...v,
          source: v.source ?? 'device',
          voided: false,
          correctionReason: v.correctionReason ?? null,
          voidReason: null,
          sequence: row.sequence,
        });
      }
    }
    const { sender, by } = options;
    await this.events.recordMany(
      w,
      'punch_received',
      inserted.map((row) => ({ data: { punch: punchView(row), sender, ...(by ? { by } : {}) }, local: { payload: options.payloadOf(row.id) } })),
    );
    return inserted;
  }

  /**
   * `punches/latest/?after=`: ascending by sequence, never skipping or repeating; only the
   * punches the scope sees. An `after` beyond every sequence handed out is refused (409
   * `cursor_ahead`, platform/db/sequences.ts): only a poll that found nothing can be one.
   */
  async latest(after: number, limit: number, scope: AreaScope = EVERYWHERE): Promise<{ results: PunchView[]; last_sequence: number }> {
    const rows = await this.ctx.db.orm
      .select()
      .from(punches)
      .where(and(gt(punches.sequence, after), this.seenBy(scope)))
      .orderBy(asc(punches.sequence))
      .limit(limit);
    if (rows.length === 0) await refuseCursorAhead(this.ctx.db, getTableName(punches), after);
    return { results: rows.map(punchView), last_sequence: rows.length > 0 ? rows[rows.length - 1]!.sequence : after };
  }

  /** `punches/`: filtered, newest first, cursor-paged by sequence (listing.ts). */
  list(filters: PunchListFilters, scope: AreaScope = EVERYWHERE) {
    return listPunches(this.ctx, this.enrollees, filters, this.seenBy(scope));
  }

  /**
   * A condition: the punch is in the scope, through its person (a punch of a PIN no person holds:
   * through the terminal that sent it). Undefined for an unlimited scope.
   */
  seenBy(scope: AreaScope): SQL | undefined {
    const person = this.enrollees.membership.enrolleeInScope(punches.enrolleeId, scope);
    if (!person) return undefined;
    return sql`(${person} or (${punches.enrolleeId} is null and ${this.devices.deviceInAreas(punches.deviceId, scope)}))`;
  }

  /**
   * Whose punches these PINs are on this terminal. A PIN alone does not make a punch an
   * enrollee's: the terminal's user with that PIN must be the enrollee (the service put them
   * there, or an administrator adopted them), or, when the terminal has not told us its users,
   * the terminal must be in the enrollee's scope. Anything else is the terminal's own user.
   * A deleted person's PIN is theirs too (with `deletedAt`): a punch they made before their
   * deletion, uploaded after it (a terminal that was offline), is still theirs (holderAt). So is
   * the PIN of a person whose user left the terminal (with `leftAt`: its areas changed, they were
   * moved), for what it logged until their delete was confirmed. That history is read only for
   * the PINs no user of the terminal answers for and no scope gives: not on an ordinary upload.
   */
  private async whose(execute: Execute, q: Queryable, device: DeviceRow, pins: readonly string[]): Promise<Map<string, PunchOwner>> {
    const candidates = await this.enrollees.byPins(execute, pins);
    if (candidates.size === 0) return candidates;
    const held = await this.devices.users.enrolleesOf(execute, device.id, [...candidates.keys()]);
    const unreported = [...candidates].filter(([pin]) => !held.has(pin)).map(([, e]) => e.id);
    const inScope =
      unreported.length > 0 ? await this.enrollees.membership.sharingAreas(execute, unreported, await this.devices.areaIdsOf(q, device.id)) : new Set<string>();
    const outOfScope = unreported.filter((id) => !inScope.has(id));
    const leftAt = outOfScope.length > 0 ? await this.devices.users.departures.of(execute, device.id, outOfScope) : new Map<string, number>();
    const out = new Map<string, PunchOwner>();
    for (const [pin, enrollee] of candidates) {
      const left = leftAt.get(enrollee.id);
      if (held.has(pin) ? held.get(pin) === enrollee.id : inScope.has(enrollee.id)) out.set(pin, enrollee);
      else if (!held.has(pin) && left !== undefined) out.set(pin, { ...enrollee, leftAt: left });
    }
    return out;
  }

  /**
   * Whose these PINs of a terminal are, as its next upload would find them (whose), and which of
   * those people lie outside the scope (a caller limited to areas must not learn of their punches).
   */
  async ownersOf(device: DeviceRow, pins: readonly string[], scope: AreaScope): Promise<{ owners: Map<string, PunchOwner>; outside: Set<string> }> {
    // A deleted person's PIN too, and one whose user left the terminal: their lines up to the
    // deletion, or the departure, are theirs (holderAt), as an upload stores them.
    const owners = await this.whose((s) => this.ctx.db.client.execute(s), this.ctx.db.orm, device, pins);
    const outside = new Set<string>();
    if (isLimited(scope) && owners.size > 0) {
      const areas = await this.enrollees.membership.areaNamesOf(
        this.ctx.db.orm,
        [...owners.values()].map((e) => e.id),
      );
      for (const [pin, owner] of owners) if (!coversAny(scope, areas.get(owner.id) ?? [])) outside.add(pin);
    }
    return { owners, outside };
  }

  /**
   * A terminal's own user was adopted as an enrollee: the punches that terminal stored for that
   * PIN without an enrollee are theirs now (and their PIN no longer unknown). Recorded as
   * `punches_attributed`, so their attendance days follow.
   */
  async attributeFromDevice(w: WriteContext, deviceId: string, pin: string, enrollee: { id: string; employee: string }): Promise<number> {
    const linked = await w.tx
      .update(punches)
      .set({
        enrolleeId: enrollee.id,
        employeeKey: enrollee.employee,
        flags: sql`(select coalesce(json_group_array(f.value), '[]') from json_each(${punches.flags}) f where f.value <> 'unknown_pin')`,
      })
      .where(and(eq(punches.deviceId, deviceId), eq(punches.devicePin, pin), isNull(punches.enrolleeId)))
      .returning({ sequence: punches.sequence, punchedAt: punches.punchedAt, flags: punches.flags });
    // Now someone's punches, they get the flags an enrollee's punch gets when it is stored: a day
    // of a locked pay period is `after_lock` (the locked day itself never changes).
    const extra =
      this.flaggers.length > 0
        ? await this.extraFlags(
            w,
            linked.map((p) => ({ enrolleeId: enrollee.id, punchedAt: p.punchedAt })),
          )
        : [];
    for (const [i, p] of linked.entries()) {
      const added = (extra[i] ?? []).filter((f) => !p.flags.includes(f));
      if (added.length > 0)
        await w.tx
          .update(punches)
          .set({ flags: [...p.flags.filter((f) => f !== 'unknown_pin'), ...added] })
          .where(eq(punches.sequence, p.sequence));
    }
    if (linked.length > 0) {
      // A loop, not Math.min(...): an adopted user may have more punches than a call takes arguments.
      let [first, last] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
      for (const { punchedAt } of linked) [first, last] = [Math.min(first, punchedAt), Math.max(last, punchedAt)];
      await this.events.record(w, 'punches_attributed', {
        enrollee: enrollee.id,
        employee: enrollee.employee,
        device_pin: pin,
        count: linked.length,
        // The span their days lie in: attendance reads punches by enrollee only day by day.
        first_punched_at: new Date(first).toISOString(),
        last_punched_at: new Date(last).toISOString(),
      });
    }
    return linked.length;
  }

  /**
   * Retention: deletes the punches before `cutoff`, and those of a clock that started over that
   * arrived before it (their date says nothing of their age); returns how many (purge.ts).
   */
  async purgeBefore(cutoff: number): Promise<number> {
    return (await purgePunchesBefore(this.ctx.db, cutoff)) + (await purgeResetClockReceivedBefore(this.ctx.db, cutoff));
  }

  /** Retention: the people who still have punches of a clock that started over (their days stay). */
  async resetClockHolders(): Promise<Set<string>> {
    const rows = await this.ctx.db.orm
      .selectDistinct({ enrollee: punches.enrolleeId })
      .from(punches)
      .where(and(sql`${punches.punchedAt} / 86400000 <= ${bucketOf(RESET_CLOCK_DATED_BEFORE)}`, lt(punches.punchedAt, RESET_CLOCK_DATED_BEFORE)));
    return new Set(rows.flatMap((r) => (r.enrollee === null ? [] : [r.enrollee])));
  }

  /** Punches at or after an instant (`health/`: punches today). */
  async countSince(instant: number, scope: AreaScope = EVERYWHERE): Promise<number> {
    const [row] = await this.ctx.db.orm
      .select({ n: sql<number>`count(*)` })
      .from(punches)
      .where(and(punchedWithin(instant, null), this.seenBy(scope)));
    return row?.n ?? 0;
  }

  async maxSequence(): Promise<number> {
    const [row] = await this.ctx.db.orm.select({ max: sql<number | null>`max(${punches.sequence})` }).from(punches);
    return row?.max ?? 0;
  }
}
