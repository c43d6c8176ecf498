/**
 * A turn of the event loop between two pieces of a long piece of work. A local libSQL statement
 * runs on this thread and its promise is already settled when awaited, so a loop of statements
 * (a purge's batches, a follower's steps, a recompute's groups) runs as one long chain of
 * microtasks: no request is even read, no timer fires and no other write is queued until the
 * loop is over (measured: a purge held 1 s at 100k punches and 8 s at 1M; an overdue follower
 * 10 s after a 20-terminal burst).
 */
export function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** How long a paced piece of work holds the thread before it gives the event loop a turn. */
export const TURN_MS = 20;

/**
 * Turns for a long piece of work done in small pieces (a report's rows and pages): `await
 * pacer.turn()` after each piece gives the event loop a turn (a macrotask, yieldToOthers) once
 * the work has held the thread for `budgetMs` since its last turn, and costs a clock read
 * otherwise, so a loop of a million cheap pieces takes a turn every `budgetMs`, not a million.
 * A report reads local libSQL pages and computes: without turns, a month's timesheets of 10,000
 * people held every terminal's poll for 20 s (README, "Large reports").
 */
export class Pacer {
  private since = performance.now();

  constructor(private readonly budgetMs = TURN_MS) {}

  /** A turn of the event loop when the work has held the thread for its budget. */
  async turn(): Promise<void> {
    if (performance.now() - this.since < this.budgetMs) return;
    await yieldToOthers();
    this.since = performance.now();
  }
}
