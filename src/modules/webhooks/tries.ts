/**
 * How many times each event after an endpoint's position has been sent. A run sends the events
 * after the position in order, several in flight at once, and stops at the first retryable
 * failure: what it sent is always an unbroken run of events from the position on, and what is
 * handed off is too. So the count of sends only ever falls along the log, and is kept as steps:
 * `[upTo, count]`, every event after the position up to `upTo` (and after the previous step)
 * was sent `count` times; events after the last step were never sent. A handful of steps,
 * whatever the number of events, however long the outage.
 */
export type Tries = [upTo: number, count: number][];

/** How many times the event at `sequence` (after the position) was sent. */
export function sendsOf(tries: Tries, sequence: number): number {
  for (const [upTo, count] of tries) if (sequence <= upTo) return count;
  return 0;
}

/**
 * The counts after a run sent every event after its position up to `sentTo` once more (null:
 * it sent nothing), and the position moved to `position`.
 */
export function triesAfter(tries: Tries, sentTo: number | null, position: number): Tries {
  const bounds = new Set(tries.map(([upTo]) => upTo));
  if (sentTo !== null) bounds.add(sentTo);
  const steps: Tries = [];
  for (const upTo of [...bounds].sort((a, b) => a - b)) {
    if (upTo <= position) continue;
    const count = sendsOf(tries, upTo) + (sentTo !== null && upTo <= sentTo ? 1 : 0);
    if (count === 0) break;
    const last = steps[steps.length - 1];
    // Equal neighbours are one step: it ends at the later bound.
    if (last && last[1] === count) last[0] = upTo;
    else steps.push([upTo, count]);
  }
  return steps;
}
