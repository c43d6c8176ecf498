/**
 * The people and dates a calendar change touches, recomputed in steps of bounded size by the
 * log's followers that follow `calendar_changed` (attendance's days, anomalies' `while_on_leave`).
 * A change may touch every person's every date: an area's weekend from a date on, a schedule
 * everyone works changed in place, a host's leave of everyone. Applied in one step of the log's
 * follower, that was one write transaction, holding the single writer, and every terminal's
 * upload behind it, for as long as it took: an upload waited 8 s at M (10,000 people, 25 days of
 * data), and after a year it would be minutes.
 *
 * So a step recomputes at most STEP_PERSON_DAYS person-dates of calendar changes, people in id
 * order, and tells the follower where it stopped (events/follower.ts, `FollowerStop`); the next
 * step goes on with the next person. Recomputing is idempotent, so a person done twice (a
 * crash between steps, someone moved into the area meanwhile) changes nothing.
 */

import { addDays } from '../../platform/time/dates';
import type { FollowerStop } from '../events';

/** Person-dates of calendar changes one step recomputes at most: a step holds the writer a few tenths of a second at M. */
export const STEP_PERSON_DAYS = 5_000;

/** These people's days on dates from..to. */
export interface Touch {
  enrollees: Set<string>;
  from: string;
  to: string;
}

/** A calendar change's touches, with the sequence of its event. */
export interface ChangeTouches {
  sequence: number;
  touches: readonly Touch[];
}

/** Where a step stopped in its event: the touch, and the last person (by id) done in it. */
export interface CalendarResume {
  touch: number;
  after: string;
}

/** Recomputes what these people have on dates from..to, in the step's transaction. */
type Recompute = (enrollees: string[], from: string, to: string) => Promise<unknown>;

export interface StepOptions {
  /** Person-dates a step spends at most (default STEP_PERSON_DAYS). */
  budget?: number;
  /**
   * Dates done either side of each touch (default 1: a punch's attendance day may be the date
   * either side of it; 0 for what follows a punch's own local date).
   */
  margin?: number;
}

/**
 * Recomputes the changes' touches in order, beginning where `resume` says in the first one,
 * until the budget is spent (at least one person each step, so that the steps come to the
 * end); answers where it stopped, or undefined when it got through them all.
 */
export async function recomputeInSteps(
  changes: readonly ChangeTouches[],
  resume: CalendarResume | null,
  recompute: Recompute,
  { budget = STEP_PERSON_DAYS, margin = 1 }: StepOptions = {},
): Promise<FollowerStop | undefined> {
  let left = budget;
  for (const [c, change] of changes.entries()) {
    const first = c === 0 ? resume : null;
    for (let t = first?.touch ?? 0; t < change.touches.length; t++) {
      const touch = change.touches[t]!;
      const after = first && t === first.touch ? first.after : '';
      const people = [...touch.enrollees].filter((id) => id > after).sort();
      const [from, to] = [addDays(touch.from, -margin), addDays(touch.to, margin)];
      const dates = datesBetween(from, to);
      let done = 0;
      while (done < people.length) {
        if (left < dates && left < budget) return { at: change.sequence, resume: { touch: t, after: people[done - 1] ?? after } satisfies CalendarResume };
        const take = Math.max(1, Math.floor(left / dates));
        const group = people.slice(done, done + take);
        await recompute(group, from, to);
        done += group.length;
        left -= group.length * dates;
      }
    }
  }
  return undefined;
}

/** How many dates from..to holds (both included). */
function datesBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}
