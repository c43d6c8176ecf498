/**
 * The Pacer (src/platform/event-loop.ts): a loop of small pieces of work gives the event loop a
 * turn once it has held the thread for its budget, and no more often: other requests are answered
 * while a report is built, and a report of a million cheap rows does not take a million turns.
 */
import { describe, expect, test } from 'bun:test';
import { Pacer } from '../../src/platform/event-loop';

/** Counts the turns of the event loop (setImmediate callbacks) while `work` runs. */
async function turnsDuring(work: () => Promise<void>): Promise<{ turns: number; longestGapMs: number; ms: number }> {
  let turns = 0;
  let running = true;
  let last = performance.now();
  let longestGapMs = 0;
  const tick = () => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  running = false;
  return { turns, longestGapMs, ms };
}

/** About `ms` of this thread's time. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the work of one piece
  }
}

describe('Pacer', () => {
  test('a long loop of small pieces gives the event loop a turn every budget, not only at its end', async () => {
    const pacer = new Pacer(20);
    const { turns, longestGapMs, ms } = await turnsDuring(async () => {
      for (let i = 0; i < 300; i++) {
        busy(1);
        await pacer.turn();
      }
    });
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(longestGapMs).toBeLessThan(ms / 2);
  });

  test('cheap pieces take few turns: a turn only once the budget is spent', async () => {
    const pacer = new Pacer(1000);
    const { turns } = await turnsDuring(async () => {
      for (let i = 0; i < 100_000; i++) await pacer.turn();
    });
    expect(turns).toBeLessThanOrEqual(2);
  });
});
