/**
 * The slot a scheduled tick is for: the latest time at or before now that the job's cron
 * pattern names (croner, the engine under @elysiajs/cron, with the same defaults: the process's
 * time zone). Every instance's schedule fires for the same slots, so the slot is what makes one
 * occurrence one run across instances (runner.ts), even when a tick comes late.
 */
import { Cron } from 'croner';

/** How far back a slot is looked for: a tick is seldom late by more than a minute; a sparse pattern needs more. */
const LOOKBACK_MS = [60_000, 86_400_000, 366 * 86_400_000];

/** The latest time at or before `now` that `pattern` names; `now` to the second when it names none within a year. */
export function slotOf(pattern: string, now: number): number {
  const cron = new Cron(pattern);
  for (const back of LOOKBACK_MS) {
    let slot: number | null = null;
    for (let next = cron.nextRun(new Date(now - back)); next && next.getTime() <= now; next = cron.nextRun(next)) slot = next.getTime();
    if (slot !== null) return slot;
  }
  return now - (now % 1000);
}
