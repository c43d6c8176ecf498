/**
 * A clock for a test server that runs in real time from a chosen instant and that a test can
 * move on. Tests that read "today" (completeness, the Today board, a manual punch) start it at
 * noon UTC of the current date, far from any midnight of the zones they use: on the real clock
 * they failed when CI happened to run in the last minutes before midnight. Tokens are checked
 * against the real time, so any start works for them.
 */
export interface TestClock {
  now(): number;
  /** Moves the clock on (the server sees that much more time pass). */
  advance(ms: number): void;
}

/** Noon UTC of the current date. */
export function middayUtc(): number {
  const noon = new Date();
  noon.setUTCHours(12, 0, 0, 0);
  return noon.getTime();
}

/** A clock running in real time from `start` (default: noon UTC of the current date). */
export function runningClock(start: number = middayUtc()): TestClock {
  let offset = start - Date.now();
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      offset += ms;
    },
  };
}
