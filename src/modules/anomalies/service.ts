/**
 * Anomalies: punches that deserve a look, found as they are stored. A reaction to
 * `punch_received` (reactions.ts) runs the rules of detect.ts on each batch inside its write:
 * each anomaly is kept (`anomalies/`), added to the punch's flags and announced
 * (`anomaly_detected`, so webhooks carry it). A punch arriving before a stored one it is repeated
 * by flags that stored one, in the same write. `while_on_leave` also follows later changes of
 * leave, after their commit (on-leave.ts). Attendance never changes because of one.
 */
import { and, desc, eq, gte, inArray, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import { travelKey } from '../../platform/config/values';
import type { WriteContext } from '../../platform/db/client';
import { deleteInBatches } from '../../platform/db/purge';
import { FpaError } from '../../platform/errors';
import type { Caller } from '../../platform/http/caller';
import { cursorOf, type Page, textCursor } from '../../platform/http/paging';
import { addDays, dateFilter, localDateOf } from '../../platform/time/dates';
import { areaIdOf, areaNames } from '../areas';
import type { CalendarService } from '../calendar';
import type { DeviceRef, DeviceService } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { Enrollment } from '../enrollment';
import type { EventChannel, EventLog, LogFollower } from '../events';
import { byInstant, type NearbyPunch, type PunchEvents, type PunchService, type PunchView, punchesByIds, punchesNear } from '../punches';
import { detect, laterRepeats, WITHOUT_BIOMETRIC } from './detect';
import type { AnomalyEvents } from './events';
import type { AnomalyView } from './model';
import { OnLeave } from './on-leave';
import { anomalyView, keepAnomalies } from './records';
import type { AnomalyRuntime } from './runtime';
import { ANOMALY_KINDS, type AnomalyKind, type AnomalyRow, anomalies } from './tables';

export interface AnomalyDeps {
  devices: DeviceService;
  enrollment: Enrollment;
  calendar: CalendarService;
  enrollees: EnrolleeService;
  punches: PunchService;
}

export interface AnomalyFilters {
  from?: string;
  to?: string;
  area?: string;
  kind?: string;
  employee?: string;
  limit?: number;
  cursor?: string;
}

const DEFAULT_DAYS = 30;
const READ_BATCH = 500;

export class Anomalies {
  readonly events: EventChannel<AnomalyEvents>;
  /** `while_on_leave` following leave changes after their commit (on-leave.ts); started and stopped with the instance. */
  readonly follower: LogFollower;
  private readonly travel: Map<string, number>;
  private readonly maxTravelMs: number;

  constructor(
    private readonly ctx: AnomalyRuntime,
    log: EventLog,
    private readonly deps: AnomalyDeps,
  ) {
    this.events = log.channel<AnomalyEvents>();
    this.follower = new OnLeave(ctx, log, this.events, deps).follower;
    this.travel = new Map(ctx.settings.TRAVEL_MINUTES.map((t) => [travelKey(t.areas[0], t.areas[1]), t.minutes]));
    this.maxTravelMs = Math.max(0, ...ctx.settings.TRAVEL_MINUTES.map((t) => t.minutes)) * 60_000;
  }

  /**
   * Runs the rules on punches just stored (each with the terminal that sent it), in their write
   * (reactions.ts). It runs with every upload: only the neighbours of the punches just stored
   * are read (`neighbours`), and each punch is compared with its own person's.
   */
  async punchesStored(w: WriteContext, stored: readonly StoredPunch[]): Promise<number> {
    const candidates = stored.filter(({ punch }) => punch.enrollee !== null && !punch.voided);
    if (candidates.length === 0) return 0;
    const { tx } = w;
    const zone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
    const instants = candidates.map(({ punch }) => Date.parse(punch.punched_at));
    const ids = [...new Set(candidates.map(({ punch }) => punch.enrollee!))];
    const { self, byPerson, deviceIds } = await this.neighbours(w, candidates, instants, ids);
    // Whose biometrics matter: only people with a punch verified without one (most punches are
    // not), and only those the terminal holds for them (a card reader, or a terminal their
    // template cannot reach, could not have verified them otherwise).
    const unverified = candidates.flatMap(({ punch }) => {
      const deviceId = self.get(punch.id)?.deviceId;
      return punch.source === 'device' && WITHOUT_BIOMETRIC.has(punch.verify_type) && deviceId ? [{ enrolleeId: punch.enrollee!, deviceId }] : [];
    });
    const kinds = unverified.length > 0 ? await this.deps.enrollment.templates.kindsHeldOn(tx, unverified) : new Map<string, string[]>();
    const sorted = instants.map((at) => localDateOf(at, zone)).sort();
    // A day either side: a person's own zone (their areas') may put the punch on another date.
    // A host's calendar that fails never stops a punch: its leave goes unchecked, and is said (calendar/host-calendar.ts).
    const { people, planner, hostCalendar } = await this.deps.calendar.plannerFor(tx, ids, addDays(sorted[0]!, -1), addDays(sorted.at(-1)!, 1), 'lenient');
    if (!hostCalendar) this.deps.calendar.storedWithoutHostCalendar(sorted[0]!, sorted.at(-1)!, candidates.length);
    const person = new Map(people.map((p) => [p.id, p]));
    const dates = candidates.map(({ punch }, i) => planner.datesOf(person.get(punch.enrollee!) ?? { id: punch.enrollee!, areaIds: [] })(instants[i]!));
    const areas = this.travel.size > 0 ? await this.deps.devices.areaNamesOf(tx, deviceIds) : new Map<string, string[]>();
    const now = this.ctx.clock.now();
    let count = 0;
    for (const [i, { punch: p }] of candidates.entries()) {
      const found = detect(
        {
          id: p.id,
          sequence: self.get(p.id)?.sequence ?? Number.MAX_SAFE_INTEGER,
          enrolleeId: p.enrollee!,
          deviceId: self.get(p.id)?.deviceId ?? null,
          deviceSerial: p.device,
          at: instants[i]!,
          verifyType: p.verify_type,
          source: p.source,
        },
        {
          near: (byPerson.get(p.enrollee!) ?? []).filter((n) => n.id !== p.id),
          biometrics: kinds.get(`${p.enrollee} ${self.get(p.id)?.deviceId}`) ?? [],
          leave: planner.plan(person.get(p.enrollee!) ?? { id: p.enrollee!, areaIds: [] }, dates[i]!).leave,
          areasOf: (id) => areas.get(id) ?? [],
          travel: this.travel,
          duplicateWindowMs: this.ctx.settings.DUPLICATE_WINDOW,
        },
      );
      if (found.length === 0) continue;
      await keepAnomalies(w, this.events, p, found, { at: instants[i]!, date: dates[i]!, now });
      count += found.length;
    }
    return count + (await this.laterRepeated(w, byPerson, new Set(candidates.map(({ punch }) => punch.id)), now));
  }

  /**
   * The stored punches repeated by one arriving before them (a backlog, a recovery, an import
   * deliver the earlier punch last; detect.ts `laterRepeats`): each gets the `repeated_punch` it
   * would have got arriving last, flag and anomaly, in this write. Once: a punch already holding
   * that anomaly keeps it alone.
   */
  private async laterRepeated(
    w: WriteContext,
    byPerson: ReadonlyMap<string, readonly NearbyPunch[]>,
    arriving: ReadonlySet<string>,
    now: number,
  ): Promise<number> {
    const window = this.ctx.settings.DUPLICATE_WINDOW;
    const repeats = [...byPerson.values()].flatMap((near) => laterRepeats(near, arriving, window));
    if (repeats.length === 0) return 0;
    const held = await this.repeatsHeld(
      w,
      repeats.map((r) => r.punch.id),
    );
    const due = repeats.filter((r) => !held.has(r.punch.id));
    const ids = due.map((r) => r.punch.id);
    const views = new Map((await punchesByIds(w.tx, ids)).map((v) => [v.id, v]));
    const zone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
    // On the punch's date in its person's zone (their areas', else the attendance zone).
    const zoneOf = await this.deps.calendar.zonesFor(w.tx, [...new Set(due.map((r) => r.punch.enrolleeId))]);
    const dateOf = (id: string, at: number) => localDateOf(at, zoneOf(id, localDateOf(at, zone)));
    for (const { punch, found } of due)
      await keepAnomalies(w, this.events, views.get(punch.id)!, [found], { at: punch.at, date: dateOf(punch.enrolleeId, punch.at), now });
    return due.length;
  }

  /** Which of these punches already hold a `repeated_punch` anomaly. */
  private async repeatsHeld(w: WriteContext, punchIds: readonly string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const ids of chunks([...punchIds], 500)) {
      const rows = await w.tx
        .select({ punchId: anomalies.punchId })
        .from(anomalies)
        .where(and(eq(anomalies.kind, 'repeated_punch'), inArray(anomalies.punchId, ids)));
      for (const r of rows) held.add(r.punchId);
    }
    return held;
  }

  /**
   * The punches near these (within DUPLICATE_WINDOW or the longest TRAVEL_MINUTES), these
   * included, by id and per person, oldest first, and the terminals that took them. The punches
   * just stored are taken as they are here; only their neighbours are read.
   */
  private async neighbours(w: WriteContext, candidates: readonly StoredPunch[], instants: readonly number[], ids: readonly string[]) {
    const reach = Math.max(this.ctx.settings.DUPLICATE_WINDOW, this.maxTravelMs);
    // A loop, not Math.min(...): an import may store more punches than a call takes arguments.
    let [first, last] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
    for (const at of instants) [first, last] = [Math.min(first, at), Math.max(last, at)];
    const own = candidates.map(({ punch, sender }, i) => nearbyOf(punch, sender, instants[i]!)).filter((n): n is NearbyPunch => n !== null);
    const read = await punchesNear(
      w.execute,
      ids,
      first - reach,
      last + reach,
      own.map((n) => n.sequence),
    );
    const near = [...read, ...own].sort(byInstant);
    const byPerson = new Map<string, NearbyPunch[]>();
    for (const n of near) {
      const list = byPerson.get(n.enrolleeId);
      if (list) list.push(n);
      else byPerson.set(n.enrolleeId, [n]);
    }
    const deviceIds = [...new Set(near.map((n) => n.deviceId).filter((d): d is string => d !== null))];
    return { self: new Map(near.map((n) => [n.id, n])), byPerson, deviceIds };
  }

  /**
   * `anomalies/`: newest first, within the caller's areas (a person is theirs when one of their
   * areas is), once every leave change recorded when asked has been followed.
   */
  async list(filters: AnomalyFilters, caller: Caller): Promise<Page<AnomalyView>> {
    // Every leave change recorded so far is followed first, as reads of days do.
    await this.follower.catchUp();
    const zone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
    // As every route: a date that does not exist is named; a reversed range only when both are given.
    const given = dateFilter(filters);
    const to = given.to ?? localDateOf(this.ctx.clock.now(), zone);
    const from = given.from ?? addDays(to, -DEFAULT_DAYS);
    if (filters.area !== undefined) await this.requireArea(filters.area, caller);
    const kinds = filters.kind
      ? filters.kind
          .split(',')
          .map((k) => k.trim())
          .filter((k) => k !== '')
      : [];
    const unknown = kinds.filter((k) => !(ANOMALY_KINDS as readonly string[]).includes(k));
    if (unknown.length > 0) throw new FpaError('validation_error', 'unknown anomaly kind', { field: 'kind', unknown, known: [...ANOMALY_KINDS] });
    const limit = filters.limit ?? 100;
    const cursor = textCursor('anomalies', filters.cursor);
    let after: { at: number; id: string } | null = null;
    if (cursor !== null) {
      const [at, id] = cursor.split('|');
      if (!at || !id || !/^\d+$/.test(at) || !Number.isSafeInteger(Number(at))) throw new FpaError('invalid_cursor', 'the cursor is not valid', {});
      after = { at: Number(at), id };
    }
    const q = this.ctx.db.orm;
    const conditions: (SQL | undefined)[] = [gte(anomalies.date, from), lte(anomalies.date, to)];
    if (kinds.length > 0) conditions.push(inArray(anomalies.kind, kinds as AnomalyKind[]));
    if (filters.employee) conditions.push(eq(anomalies.employeeKey, filters.employee));
    const wanted = [...(filters.area ? [filters.area] : [])];
    const out: AnomalyRow[] = [];
    let more = false;
    for (;;) {
      const page = await q
        .select()
        .from(anomalies)
        .where(
          and(...conditions, after ? or(sql`${anomalies.at} < ${after.at}`, and(eq(anomalies.at, after.at), sql`${anomalies.id} < ${after.id}`)) : undefined),
        )
        .orderBy(desc(anomalies.at), desc(anomalies.id))
        .limit(READ_BATCH);
      const visible = await this.inScope(page, caller.areas, wanted);
      for (const row of page) {
        if (!visible.has(row.enrolleeId)) continue;
        if (out.length === limit) {
          more = true;
          break;
        }
        out.push(row);
      }
      if (more || page.length < READ_BATCH) break;
      const last = page.at(-1)!;
      after = { at: last.at, id: last.id };
    }
    const last = out.at(-1);
    return { results: out.map(anomalyView), next_cursor: more && last ? cursorOf('anomalies', [`${last.at}|${last.id}`]) : null };
  }

  /** An area asked for must exist and be the caller's: else it does not exist for them (404, as on reports and the roster). */
  private async requireArea(name: string, caller: Caller): Promise<void> {
    const outside = caller.areas.length > 0 && !caller.areas.includes(name);
    if (outside || (await areaIdOf(this.ctx.db.orm, name)) === null) throw new FpaError('not_found', 'area not found', { name });
  }

  /** The people among these rows within the caller's areas and the asked area (by their current areas). */
  private async inScope(rows: readonly AnomalyRow[], callerAreas: readonly string[], wanted: readonly string[]): Promise<Set<string>> {
    const ids = [...new Set(rows.map((r) => r.enrolleeId))];
    if (callerAreas.length === 0 && wanted.length === 0) return new Set(ids);
    const q = this.ctx.db.orm;
    const byPerson = await this.deps.enrollees.membership.areaIdsByEnrollee(q, ids);
    const names = await areaNames(q, [...byPerson.values()].flat());
    const out = new Set<string>();
    for (const id of ids) {
      const theirs = (byPerson.get(id) ?? []).map((a) => names.get(a)).filter((n): n is string => n !== undefined);
      if (callerAreas.length > 0 && !theirs.some((a) => callerAreas.includes(a))) continue;
      if (wanted.length > 0 && !theirs.some((a) => wanted.includes(a))) continue;
      out.add(id);
    }
    return out;
  }

  /** Retention: the anomalies of punches older than the cutoff (RETENTION_PUNCHES_DAYS purges the punches themselves). */
  purgeBefore(cutoff: number): Promise<number> {
    return deleteInBatches(this.ctx.db, anomalies, lt(anomalies.at, cutoff));
  }

  /** Retention: every anomaly of these deleted people, when their tombstones are scrubbed. */
  async forget(enrolleeIds: readonly string[]): Promise<number> {
    let n = 0;
    for (const ids of chunks([...enrolleeIds], 500)) {
      n += await this.ctx.db.write(
        async ({ tx }) => (await tx.delete(anomalies).where(inArray(anomalies.enrolleeId, ids)).returning({ id: anomalies.id })).length,
      );
    }
    return n;
  }
}

/** A punch just stored, and the terminal that sent it (null: manual or imported). */
export type StoredPunch = Pick<PunchEvents['punch_received'], 'punch' | 'sender'>;

/**
 * A punch just stored as a neighbour of the others, its terminal taken from the sender; null
 * when the sender does not say which terminal took it (then it is read like any other).
 */
function nearbyOf(punch: PunchView, sender: DeviceRef | null, at: number): NearbyPunch | null {
  if (punch.device !== null && sender?.serial_number !== punch.device) return null;
  const deviceId = punch.device === null ? null : sender!.id;
  return { sequence: punch.sequence, id: punch.id, enrolleeId: punch.enrollee!, deviceId, deviceSerial: punch.device, at };
}
