/**
 * Corrections with a trail: a punch entered by hand, punches imported from a file, a punch
 * voided. Each is audited with who did it and why, and announced like any punch
 * (`punch_received`, with `punch.source` and `by`; `punch_voided`), so attendance and
 * integrators follow. Manual and imported punches have no terminal: they are stored with the
 * device id `NO_DEVICE` (./tables.ts), the enrollee's PIN and the wall time in the person's
 * zone (their areas', else ATTENDANCE_TIME_ZONE: a wall time given is read in it), through the same insert as terminals' punches, so the feed's sequence
 * stays gap-free. A correction is refused (manual) or counted as a duplicate (import) when the
 * enrollee already has a punch at that very instant, whatever its source or whether it was
 * voided: importing the same file twice stores nothing the second time, and a voided punch is
 * not brought back by re-importing it.
 */
import { and, eq } from 'drizzle-orm';
import type { Execute, Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { RecordsBody } from '../../platform/http/body';
import { type AreaScope, EVERYWHERE, isLimited } from '../../platform/scope';
import { isWallTime, localDateOf, parsePunchTime } from '../../platform/time/dates';
import { formatLocalWallTime, timeZoneOffsetMinutes } from '../../platform/time/zone';
import { type AuditEntry, audit, auditMany } from '../audit';
import type { EnrolleeRow, EnrolleeService } from '../enrollees';
import { punchesAt, punchesByIds, storedOfDevice } from './device-counts';
import { type ImportError, importRows } from './import-rows';
import type { PunchRuntime } from './runtime';
import type { NewPunch, PunchService } from './service';
import { NO_DEVICE, type PunchSource, punches } from './tables';
import { type PunchView, punchView } from './view';

export interface ImportResult {
  /** Nothing was stored: the counts say what an import would do. */
  dry_run: boolean;
  /** Punches stored now (dry run: that would be). */
  imported: number;
  /** Records of punches already stored (or repeated within the file): not stored again. */
  duplicates: number;
  /** Records that could not be used; nothing of them is stored. */
  errors: ImportError[];
}

/** A manual punch may lie this far ahead of the server's clock (clocks of people's devices drift). */
const FUTURE_TOLERANCE_MS = 60_000;

/**
 * The reason a correction requires, without the spaces around it: one of spaces only (or any
 * other blank) says nothing, and is refused as an empty one is (400, naming the field).
 */
function requiredReason(reason: string): string {
  const text = reason.trim();
  if (!text) throw new FpaError('validation_error', 'reason must not be blank: say why', { field: 'reason' });
  return text;
}

/** The zone of each of these people on a date (their areas' zone, else ATTENDANCE_TIME_ZONE: calendar `zonesFor`). */
export type PeopleZones = (q: Queryable, enrolleeIds: readonly string[]) => Promise<(enrolleeId: string, date: string) => string>;

export class PunchCorrections {
  private zonesOf: PeopleZones;

  constructor(
    private readonly ctx: PunchRuntime,
    private readonly punches: PunchService,
    private readonly enrollees: EnrolleeService,
  ) {
    const zone = ctx.settings.ATTENDANCE_TIME_ZONE;
    this.zonesOf = async () => () => zone;
  }

  /** Where a wall time is read (registered at the composition root: the calendar knows people's zones). */
  useZones(zonesOf: PeopleZones): void {
    this.zonesOf = zonesOf;
  }

  /** `POST punches/manual/`: one punch entered by an administrator, with the reason. */
  async manual(input: { enrollee: string; at: string; state?: number; reason: string }, by: string, scope: AreaScope = EVERYWHERE): Promise<PunchView> {
    const reason = requiredReason(input.reason);
    const read = parsePunchTime(input.at, this.ctx.settings.ATTENDANCE_TIME_ZONE);
    if (read === null) throw new FpaError('validation_error', 'at must be an ISO 8601 instant or a local time (YYYY-MM-DD HH:MM)', { field: 'at' });
    return this.ctx.db.write(async (w) => {
      const enrollee = await this.enrollees.findByIdOrPin(w.tx, input.enrollee);
      if (!enrollee || !(await this.enrollees.inScope(w.tx, enrollee.id, scope)))
        throw new FpaError('not_found', 'enrollee not found', { enrollee: input.enrollee });
      // A wall time is the person's: read in their zone on its date.
      const zone = (await this.zonesOf(w.tx, [enrollee.id]))(enrollee.id, input.at.trim().slice(0, 10));
      const { at, flags } = isWallTime(input.at) ? (parsePunchTime(input.at, zone) ?? read) : read;
      if (at > this.ctx.clock.now() + FUTURE_TOLERANCE_MS) throw new FpaError('validation_error', 'a manual punch cannot lie in the future', { field: 'at' });
      const [existing] = await punchesAt(w.execute, [{ enrolleeId: enrollee.id, at }]);
      if (existing) throw new FpaError('conflict', 'the enrollee already has a punch at that instant', { punch: existing.id });
      const value = { ...devicelessPunch(enrollee, { at, flags }, input.state ?? 0, 'manual', '', zone, this.ctx.clock.now()), correctionReason: reason };
      const [stored] = await this.store(w, [value], 'manual', by);
      if (!stored) throw new FpaError('conflict', 'the enrollee already has a punch at that local time', {});
      // Read back, not the row as inserted: what reacted to it in this write (an anomaly's flag) shows.
      const [view = punchView(stored)] = await punchesByIds(w.tx, [stored.id]);
      await audit(w.tx, this.ctx.clock.now(), {
        actor: by,
        action: 'punch.manual',
        targetType: 'punch',
        targetId: stored.id,
        details: { enrollee: enrollee.id, employee: enrollee.employeeKey, at: view.punched_at, state: stored.state, reason },
      });
      return view;
    });
  }

  /**
   * `POST punches/import/`: every good record is stored, in one transaction; a bad record is
   * reported by line and nothing of it is stored. Fixing the bad lines and importing the whole
   * file again is safe: what was stored the first time counts as duplicates. A dry run checks
   * the same and stores nothing.
   */
  async import(body: RecordsBody, by: string, scope: AreaScope = EVERYWHERE, options: { dryRun?: boolean } = {}): Promise<ImportResult> {
    const now = this.ctx.clock.now();
    const parsed = importRows(body, this.ctx.settings.ATTENDANCE_TIME_ZONE, now);
    // A dry run reads what the import would (outside any write: it holds no terminal up).
    if (options.dryRun === true) {
      const plan = await this.importPlan({ q: this.ctx.db.orm, execute: (statement) => this.ctx.db.client.execute(statement) }, parsed, scope, now);
      return { dry_run: true, imported: plan.values.length, duplicates: plan.wanted - plan.values.length, errors: plan.errors };
    }
    return this.ctx.db.write(async (w) => {
      const plan = await this.importPlan({ q: w.tx, execute: w.execute }, parsed, scope, now);
      const stored = await this.store(w, plan.values, 'import', by);
      const entries: AuditEntry[] = stored.map((p) => ({
        actor: by,
        action: 'punch.imported',
        targetType: 'punch',
        targetId: p.id,
        details: { enrollee: p.enrolleeId, employee: p.employeeKey, at: new Date(p.punchedAt).toISOString(), state: p.state },
      }));
      await auditMany(w.tx, now, entries);
      return { dry_run: false, imported: stored.length, duplicates: plan.wanted - stored.length, errors: plan.errors };
    });
  }

  /**
   * The punches an import stores: the records of people in the scope (a person outside it is,
   * for the caller, no one), less those already stored (the same person at the same instant, any
   * source) and less those the insert would skip (the same PIN and local time without a
   * terminal: an instant of the repeated hour, or one a millisecond apart), so that a dry run
   * says exactly what the import does.
   */
  private async importPlan({ q, execute }: { q: Queryable; execute: Execute }, parsed: ReturnType<typeof importRows>, scope: AreaScope, now: number) {
    const errors = [...parsed.errors];
    const people = await this.enrollees.byEmployeeKeys(
      q,
      parsed.rows.map((r) => r.employee),
    );
    // A wall time is the person's: read in their zone on its date (ATTENDANCE_TIME_ZONE while no area has one).
    const zoneOf = await this.zonesOf(
      q,
      [...people.values()].map((e) => e.id),
    );
    const wanted: { enrollee: EnrolleeRow; at: number; flags: string[]; state: number; raw: string; zone: string }[] = [];
    for (const row of parsed.rows) {
      const enrollee = people.get(row.employee);
      const zone = enrollee ? zoneOf(enrollee.id, row.wall?.slice(0, 10) ?? localDateOf(row.at, this.ctx.settings.ATTENDANCE_TIME_ZONE)) : '';
      const time = row.wall && zone !== this.ctx.settings.ATTENDANCE_TIME_ZONE ? (parsePunchTime(row.wall, zone) ?? row) : row;
      if (enrollee && (await this.enrollees.inScope(q, enrollee.id, scope)))
        wanted.push({ enrollee, at: time.at, flags: time.flags, state: row.state, raw: row.raw, zone });
      else errors.push({ line: row.line, message: isLimited(scope) ? 'no person of your areas has this employee ID' : 'no person has this employee ID' });
    }
    const taken = new Set<string>();
    const stored = await punchesAt(
      execute,
      wanted.map((r) => ({ enrolleeId: r.enrollee.id, at: r.at })),
    );
    for (const p of stored) taken.add(`${p.enrolleeId} ${p.at}`);
    const candidates = wanted.map((r) => devicelessPunch(r.enrollee, r, r.state, 'import', r.raw, r.zone, now));
    const sameWallTime = await storedOfDevice(
      q,
      NO_DEVICE,
      candidates.map((v) => ({ pin: v.devicePin, localTime: v.localTime })),
    );
    const values: NewPunch[] = [];
    for (const v of candidates) {
      const [instant, wall] = [`${v.enrolleeId} ${v.punchedAt}`, `${v.devicePin}\t${v.localTime}`];
      if (taken.has(instant) || sameWallTime.has(wall)) continue;
      taken.add(instant);
      sameWallTime.add(wall);
      values.push(v);
    }
    errors.sort((a, b) => a.line - b.line);
    return { values, wanted: wanted.length, errors };
  }

  /** `POST punches/{id}/void/`: the punch stays, marked voided; it no longer counts for attendance. */
  async void(id: string, given: string, by: string, scope: AreaScope = EVERYWHERE): Promise<PunchView> {
    const reason = requiredReason(given);
    return this.ctx.db.write(async (w) => {
      const [row] = await w.tx
        .select()
        .from(punches)
        .where(and(eq(punches.id, id), this.punches.seenBy(scope)))
        .limit(1);
      if (!row) throw new FpaError('not_found', 'punch not found', { punch: id });
      if (row.voided) throw new FpaError('conflict', 'the punch is already voided', { punch: id });
      // A void after the punch's pay period was locked is kept and marked like a late punch.
      const [extra = []] = await this.punches.extraFlags(w, [row]);
      const flags = [...row.flags, ...extra.filter((f) => !row.flags.includes(f))];
      // The void's reason is its own: a manual punch keeps the reason it was entered with.
      await w.tx.update(punches).set({ voided: true, flags, voidReason: reason }).where(eq(punches.id, id));
      const view = punchView({ ...row, voided: true, flags, voidReason: reason });
      await audit(w.tx, this.ctx.clock.now(), {
        actor: by,
        action: 'punch.voided',
        targetType: 'punch',
        targetId: id,
        details: { reason, enrollee: row.enrolleeId },
      });
      await this.punches.events.record(w, 'punch_voided', { punch: view, reason, by });
      return view;
    });
  }

  private store(w: WriteContext, values: NewPunch[], source: PunchSource, by: string) {
    const byId = new Map(values.map((v) => [v.id, v]));
    return this.punches.store(w, values, {
      sender: null,
      by,
      payloadOf: (id) => {
        const v = byId.get(id)!;
        return {
          line: { pin: v.devicePin, localTime: v.localTime, state: v.state, verifyType: v.verifyType, workCode: v.workCode, extra: [source] },
          raw: v.raw,
        };
      },
    });
  }
}

/** A punch without a terminal; `time` as parsePunchTime read it (its DST flags kept). */
function devicelessPunch(
  enrollee: EnrolleeRow,
  time: { at: number; flags: string[] },
  state: number,
  source: PunchSource,
  raw: string,
  zone: string,
  now: number,
): NewPunch {
  const { at } = time;
  return {
    id: Bun.randomUUIDv7(),
    deviceId: NO_DEVICE,
    deviceSerial: '',
    devicePin: enrollee.devicePin,
    enrolleeId: enrollee.id,
    employeeKey: enrollee.employeeKey,
    punchedAt: at,
    localTime: formatLocalWallTime(new Date(at), zone),
    utcOffsetMinutes: timeZoneOffsetMinutes(zone, new Date(at)),
    state,
    verifyType: 0,
    workCode: '',
    raw,
    flags: [...time.flags],
    receivedAt: now,
    source,
  };
}
