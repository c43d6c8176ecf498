/**
 * Calendar changes recomputed in steps of bounded size (src/modules/calendar/steps.ts),
 * driven here as the log's follower drives them: each stop is where the next step begins. Whatever
 * the changes (a touch with nobody in it among them: a range without data), the budget and the
 * margin (dates either side of a touch: attendance's 1, anomalies' 0), every person of every
 * touch is recomputed exactly once, in id order, each step does some of the work, and no step
 * spends more than its budget unless one person alone costs more.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type CalendarResume, type ChangeTouches, recomputeInSteps } from '../../../src/modules/calendar/steps';
import { addDays } from '../../../src/platform/time/dates';

const people = fc.uniqueArray(fc.constantFrom(...Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')}`)), { minLength: 0, maxLength: 12 });
const touch = fc.record({ enrollees: people.map((ids) => new Set(ids)), from: fc.constant('2027-01-01'), dates: fc.integer({ min: 1, max: 40 }) });
const changesArb = fc.array(fc.array(touch, { minLength: 0, maxLength: 3 }), { minLength: 1, maxLength: 4 }).map((changes): ChangeTouches[] =>
  changes.map((touches, i) => ({
    sequence: 10 + i * 3,
    touches: touches.map((t) => ({ enrollees: t.enrollees, from: t.from, to: addDays(t.from, t.dates - 1) })),
  })),
);

/** Runs the steps to the end: each call one step, from the change it stopped in. */
async function drive(changes: readonly ChangeTouches[], budget: number, margin: number) {
  const calls: { step: number; ids: string[]; from: string; to: string }[] = [];
  let start = 0;
  let resume: CalendarResume | null = null;
  for (let step = 0; step < 10_000; step++) {
    const stop = await recomputeInSteps(
      changes.slice(start),
      resume,
      async (ids, from, to) => {
        calls.push({ step, ids, from, to });
      },
      { budget, margin },
    );
    if (!stop) return { calls, steps: step + 1 };
    start = changes.findIndex((c) => c.sequence === stop.at);
    expect(start).toBeGreaterThanOrEqual(0);
    resume = stop.resume as CalendarResume;
  }
  throw new Error('the steps never came to the end');
}

describe('calendar changes in steps', () => {
  test('every person of every touch once, in order, each step doing some and at most its budget', async () => {
    await fc.assert(
      fc.asyncProperty(changesArb, fc.integer({ min: 1, max: 300 }), fc.constantFrom(0, 1), async (changes, budget, margin) => {
        const { calls, steps } = await drive(changes, budget, margin);
        const wanted = changes.flatMap((c) =>
          c.touches.flatMap((t) => [...t.enrollees].sort().map((id) => `${id} ${addDays(t.from, -margin)} ${addDays(t.to, margin)}`)),
        );
        const done = calls.flatMap((c) => c.ids.map((id) => `${id} ${c.from} ${c.to}`));
        expect(done).toEqual(wanted);
        for (let step = 0; step < steps; step++) {
          const mine = calls.filter((c) => c.step === step);
          const spent = mine.reduce((n, c) => n + c.ids.length * (dates(c.from, c.to) ?? 0), 0);
          // Some work each step but the last (which may find nothing left), within the budget
          // unless it is one person who alone costs more.
          if (step < steps - 1) expect(mine.length).toBeGreaterThan(0);
          if (spent > budget) expect(mine.flatMap((c) => c.ids)).toHaveLength(1);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a change within the budget is one step; one over it stops inside it and goes on after the last person done', async () => {
    const everyone = new Set(Array.from({ length: 10 }, (_, i) => `p${i}`));
    const change: ChangeTouches = { sequence: 7, touches: [{ enrollees: everyone, from: '2027-01-01', to: '2027-01-08' }] };
    expect(await recomputeInSteps([change], null, async () => undefined, { budget: 100 })).toBeUndefined();
    // 10 dates a person (a margin of one date either side): 4 people fit in 40.
    const stop = await recomputeInSteps([change], null, async () => undefined, { budget: 40 });
    expect(stop).toEqual({ at: 7, resume: { touch: 0, after: 'p3' } });
    const rest: string[] = [];
    expect(await recomputeInSteps([change], stop!.resume as CalendarResume, async (ids) => void rest.push(...ids), { budget: 1000 })).toBeUndefined();
    expect(rest).toEqual(['p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
    // Without the margin, 8 dates a person: 5 fit in 40.
    expect(await recomputeInSteps([change], null, async () => undefined, { budget: 40, margin: 0 })).toEqual({ at: 7, resume: { touch: 0, after: 'p4' } });
  });
});

function dates(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}
