/**
 * The host's own calendar: what its providers (`addProvider`) add to every plan, and what happens
 * while one fails (the host's leave or roster system is down).
 *
 * An outage of the host's calendar never stops attendance capture. What needs the calendar asks
 * in one of two ways:
 *
 * - `require` (attendance days, the `while_on_leave` follower, reads of plans): a failing
 *   provider is a 503 `unavailable`; a follower's step rolls back and is tried again, so no day is
 *   ever computed without the host's leave and shifts;
 * - `lenient` (a punch being stored: its anomaly check, its `after_lock` flag): the plan is made
 *   of the service's own calendar alone, and the caller learns the host's part is missing.
 *
 * The failure is logged once per outage (never the provider's own words: they may carry the
 * host's data), and the recovery once, with the dates whose punches were stored unchecked.
 */
import { FpaError } from '../../platform/errors';
import type { Logger } from '../../platform/log';
import type { AssignmentDef, LeaveDef, ScheduleDef } from './plan';

/** What a host's provider adds for some people and dates: its own leaves and shifts. */
export interface HostCalendarEntries {
  leaves?: { enrollee: string; from: string; to: string; kind: string }[];
  /** Shifts as own assignments of a schedule (by name); they win ties with stored ones. */
  shifts?: { enrollee: string; schedule: string; from: string; to?: string | null; priority?: number }[];
}

export type CalendarProvider = (request: { enrollees: readonly string[]; from: string; to: string }) => Promise<HostCalendarEntries> | HostCalendarEntries;

/** `require`: a failing provider is an error (503); `lenient`: the plan goes without the host's part. */
export type HostCalendarNeed = 'require' | 'lenient';

export class HostCalendars {
  private readonly providers: CalendarProvider[] = [];
  /** Since when the providers fail (null: they answer), and the dates stored unchecked meanwhile. */
  private outage: { since: number; unchecked: { from: string; to: string; punches: number } | null } | null = null;

  constructor(private readonly log: Logger) {}

  get count(): number {
    return this.providers.length;
  }

  add(provider: CalendarProvider): void {
    this.providers.push(provider);
  }

  /**
   * Adds what the providers give for these people and dates. Answers false when one failed and
   * `need` is `lenient` (nothing of any provider is added then); with `require` that is a 503.
   */
  async addTo(
    request: { enrollees: string[]; from: string; to: string },
    schedules: ReadonlyMap<string, ScheduleDef>,
    into: { assignments: AssignmentDef[]; leaves: LeaveDef[] },
    need: HostCalendarNeed,
  ): Promise<boolean> {
    if (this.providers.length === 0) return true;
    const answers: HostCalendarEntries[] = [];
    try {
      for (const provider of this.providers) answers.push(await provider(request));
    } catch (error) {
      this.failed(error);
      if (need === 'lenient') return false;
      throw new FpaError('unavailable', "the host's calendar is unavailable (its calendar provider failed): attendance waits for it; try again", {});
    }
    this.answered();
    for (const extra of answers) this.addEntries(extra, schedules, into);
    return true;
  }

  /** Punches on dates from..to were stored without the host's calendar (their `while_on_leave` check skipped). */
  unchecked(from: string, to: string, punches: number): void {
    if (!this.outage) return;
    const u = this.outage.unchecked;
    this.outage.unchecked = u ? { from: from < u.from ? from : u.from, to: to > u.to ? to : u.to, punches: u.punches + punches } : { from, to, punches };
  }

  private failed(error: unknown): void {
    if (this.outage) return;
    this.outage = { since: Date.now(), unchecked: null };
    // The error's kind only: its message may carry whatever the host's system answered.
    this.log.warn(
      "the host's calendar provider failed: punches are still stored, without the while_on_leave check of the host's leave; attendance days wait until it answers",
      { error: error instanceof Error ? error.name : typeof error },
    );
  }

  private answered(): void {
    if (!this.outage) return;
    const { since, unchecked } = this.outage;
    this.outage = null;
    this.log.info(
      unchecked
        ? "the host's calendar provider answers again; punches stored meanwhile were not checked against the host's leave: call calendarChanged over unchecked_from..unchecked_to to check them"
        : "the host's calendar provider answers again",
      {
        failed_for_seconds: Math.round((Date.now() - since) / 1000),
        ...(unchecked ? { unchecked_from: unchecked.from, unchecked_to: unchecked.to, unchecked_punches: unchecked.punches } : {}),
      },
    );
  }

  /** One provider's leaves, and its shifts as own assignments of a schedule named. */
  private addEntries(
    extra: HostCalendarEntries,
    schedules: ReadonlyMap<string, ScheduleDef>,
    into: { assignments: AssignmentDef[]; leaves: LeaveDef[] },
  ): void {
    for (const l of extra.leaves ?? []) into.leaves.push({ enrolleeId: l.enrollee, from: l.from, to: l.to, kind: l.kind });
    const byName = new Map([...schedules.values()].map((s) => [s.name, s.id]));
    for (const [i, shift] of (extra.shifts ?? []).entries()) {
      const scheduleId = byName.get(shift.schedule);
      if (!scheduleId) {
        this.log.warn('a calendar provider named an unknown schedule; the shift is ignored', { schedule: shift.schedule });
        continue;
      }
      const { enrollee, from, to, priority } = shift;
      into.assignments.push({
        id: `host-${i}`,
        scheduleId,
        enrolleeId: enrollee,
        areaId: null,
        from,
        to: to ?? null,
        priority: priority ?? 0,
        createdAt: Number.MAX_SAFE_INTEGER,
      });
    }
  }
}
