/**
 * `while_on_leave` follows the leave, not only the punch. A punch is judged as it is stored
 * (service.ts), against the leave of that moment; a leave recorded, changed or removed later —
 * the calendar's own (`leaves/`), or the host's when it says so (`calendarChanged`) — is a
 * `calendar_changed` event, and this follower of the log brings the `while_on_leave` anomalies
 * of the people and dates it touches in line with the leave of now:
 *
 * - a punch now on leave without one gets it (row, flag, `anomaly_detected`), as if it had
 *   arrived now;
 * - one whose leave is gone, or is now of another kind, loses it (row and flag,
 *   `anomaly_removed`); another kind is then detected anew, with its own `anomaly_detected`.
 *
 * After the commit, as attendance days follow the same events (a leave's write does not wait for
 * it), and in steps of bounded size (calendar/steps.ts): a year of leave for everyone is many
 * small transactions, never one that holds the writer. Bringing a date in line is idempotent, so
 * a step done twice, or a punch judged in between, changes nothing. A locked pay period does not
 * stop it: a lock freezes attendance days, and an anomaly is no day.
 */
import { and, eq, gte, inArray, lt } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { WriteContext } from '../../platform/db/client';
import { addDays, dayBounds, localDateOf } from '../../platform/time/dates';
import type { CalendarEvents, CalendarResume, CalendarService, ChangeTouches, Touch } from '../calendar';
import { recomputeInSteps } from '../calendar';
import { type EventChannel, type EventLog, type FollowerStop, LogFollower, type LoggedEvent } from '../events';
import { employeeKeysOf, type PunchService, punchesNear } from '../punches';
import type { AnomalyEvents } from './events';
import { dropAnomalies, keepEach } from './records';
import type { AnomalyRuntime } from './runtime';
import { type AnomalyRow, anomalies } from './tables';

type CalendarChange = CalendarEvents['calendar_changed'];

/** The changes that may change someone's leave: the calendar's leaves, and the host's calendar (its provider's leaves). */
/** Changes that can move a punch on or off a leave date: a leave, a host's calendar, an area's time zone (the punch's date is its person's zone's). */
const LEAVE_CHANGES: ReadonlySet<CalendarChange['kind']> = new Set(['leave', 'host', 'area_zone']);

/**
 * Person-dates a step brings in line at most: fewer than attendance's 5,000 (calendar/steps.ts),
 * as every date may hold punches to flag or unflag. Measured on this project's shared 2-core
 * machine, 100 people punching twice on each of 100 dates of a leave of everyone's (the worst
 * case: 4,000 anomalies kept, or taken away, a step): the longest step held the writer
 * 0.45–1 s, with the rows, events and flags of all of them a statement or two each
 * (records.ts; one by one, 5,000 took 7.7 s); the same dates already in line, 0.15–0.2 s. A
 * year of leave for 1,000 people is then 180 steps, the uploads that come meanwhile written
 * between them.
 */
export const ON_LEAVE_STEP_PERSON_DAYS = 2_000;

/** People per read of their anomalies. */
const READ_CHUNK = 500;

export interface OnLeaveDeps {
  calendar: CalendarService;
  punches: PunchService;
}

export class OnLeave {
  /** Follows `calendar_changed` after the commit (position `anomalies` in fpa_log_followers). */
  readonly follower: LogFollower;
  private readonly zone: string;

  constructor(
    private readonly ctx: AnomalyRuntime,
    log: EventLog,
    private readonly events: EventChannel<AnomalyEvents>,
    private readonly deps: OnLeaveDeps,
  ) {
    this.zone = ctx.settings.ATTENDANCE_TIME_ZONE;
    this.follower = new LogFollower(ctx, log, {
      name: 'anomalies',
      types: ['calendar_changed'],
      apply: (w, logged, resume) => this.apply(w, logged, resume as CalendarResume | null),
    });
  }

  /**
   * The follower's step: the leave changes among these events, their people and dates brought in
   * line in steps of bounded size (calendar/steps.ts), from `resume` on. A punch's anomaly is
   * on its own local date, so no date either side is needed (`margin` 0).
   */
  private async apply(w: WriteContext, logged: readonly LoggedEvent[], resume: CalendarResume | null): Promise<FollowerStop | undefined> {
    const changes: ChangeTouches[] = [];
    let span: { first: string; last: string } | null | undefined;
    for (const event of logged) {
      const change = event.data as CalendarChange;
      if (!LEAVE_CHANGES.has(change.kind)) continue;
      // Read once a step, and only when a leave changed: a holiday or a schedule costs nothing here.
      if (span === undefined)
        span = await this.deps.punches.counted.datedSpan(
          w.tx,
          (at) => localDateOf(at, this.zone),
          (d) => dayBounds(d, this.zone).start,
        );
      changes.push({ sequence: event.sequence, touches: await this.touchesOf(w, change, span) });
    }
    // The first change is the one the last step stopped in, when it did (`resume`).
    return recomputeInSteps(changes, changes[0]?.sequence === logged[0]?.sequence ? resume : null, (ids, from, to) => this.bringInLine(w, ids, from, to), {
      budget: ON_LEAVE_STEP_PERSON_DAYS,
      margin: 0,
    });
  }

  /**
   * Whose punches and which dates a leave change touches, limited to the dates punches are on:
   * one touch per range of the change, in its order (a step that stops inside the change names
   * its touch by that place), nobody's when the range holds no punch.
   */
  private async touchesOf(w: WriteContext, change: CalendarChange, span: { first: string; last: string } | null): Promise<Touch[]> {
    const out: Touch[] = [];
    for (const range of change.ranges) {
      const from = span && range.from < span.first ? span.first : range.from;
      const to = range.to === null ? (span?.last ?? range.from) : span && range.to > span.last ? span.last : range.to;
      const people = span && from <= to ? (change.enrollees ?? (await this.peopleOf(w, change.areas, from, to))) : [];
      out.push({ enrollees: new Set(people), from, to });
    }
    return out;
  }

  /** The people of these areas (an area's zone changed: those who were in it before a move too), or else everyone with punches on from..to. */
  private async peopleOf(w: WriteContext, areas: readonly string[] | undefined, from: string, to: string): Promise<readonly string[]> {
    return areas ? this.deps.calendar.membersOfAreas(w.tx, areas) : this.punchedOn(w, from, to);
  }

  /** The people with punches (voided ones too: their anomalies stay with them) on dates from..to. */
  private punchedOn(w: WriteContext, from: string, to: string): Promise<string[]> {
    return this.deps.punches.counted.enrolleesWithPunches(w.tx, dayBounds(from, this.zone).start, dayBounds(to, this.zone).end);
  }

  /**
   * These people's `while_on_leave` on dates from..to, as their leave is now: the ones whose
   * leave is gone or of another kind taken away, then one kept for each counted punch on leave
   * that has none.
   */
  private async bringInLine(w: WriteContext, ids: readonly string[], from: string, to: string): Promise<void> {
    // A day either side: a person's own zone (their areas') may put a punch on another date.
    const { people, planner } = await this.deps.calendar.plannerFor(w.tx, ids, addDays(from, -1), addDays(to, 1));
    const margin = planner.zoned ? 1 : 0;
    const [start, end] = [dayBounds(addDays(from, -margin), this.zone).start, dayBounds(addDays(to, margin), this.zone).end];
    const person = new Map(people.map((p) => [p.id, p]));
    const personOf = (enrolleeId: string) => person.get(enrolleeId) ?? { id: enrolleeId, areaIds: [] };
    const dateOf = (enrolleeId: string, at: number) => planner.datesOf(personOf(enrolleeId))(at);
    const leaveOf = (enrolleeId: string, at: number) => planner.plan(personOf(enrolleeId), dateOf(enrolleeId, at)).leave;

    const held = await this.heldOn(w, ids, start, end);
    const stale = held.filter((row) => leaveOf(row.enrolleeId, row.at) !== row.details.leave);
    await dropAnomalies(w, this.events, stale);
    const gone = new Set(stale.map((row) => row.id));
    const staying = new Set(held.filter((row) => !gone.has(row.id)).map((row) => row.punchId));

    const due = (await punchesNear(w.execute, ids, start, end - 1))
      .filter((p) => !staying.has(p.id))
      .map((p) => ({ punch: p, leave: leaveOf(p.enrolleeId, p.at) }))
      .filter((d): d is typeof d & { leave: string } => d.leave !== null);
    if (due.length === 0) return;
    const employees = await employeeKeysOf(
      w.execute,
      due.map((d) => d.punch.id),
    );
    const found = due.map(({ punch, leave }) => ({
      punch,
      employee: employees.get(punch.id) ?? null,
      details: { leave },
      date: dateOf(punch.enrolleeId, punch.at),
    }));
    await keepEach(w, this.events, 'while_on_leave', found, this.ctx.clock.now());
  }

  /** These people's `while_on_leave` anomalies of punches in [start, end) (the index by person and instant). */
  private async heldOn(w: WriteContext, ids: readonly string[], start: number, end: number): Promise<AnomalyRow[]> {
    const out: AnomalyRow[] = [];
    for (const some of chunks([...ids], READ_CHUNK)) {
      out.push(
        ...(await w.tx
          .select()
          .from(anomalies)
          .where(and(eq(anomalies.kind, 'while_on_leave'), inArray(anomalies.enrolleeId, some), gte(anomalies.at, start), lt(anomalies.at, end)))),
      );
    }
    return out;
  }
}
