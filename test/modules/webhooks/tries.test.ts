/**
 * The sends of the events after an endpoint's position, kept as steps (tries.ts): each run adds
 * one to every event it sent (an unbroken run from the position on), the steps before the new
 * position are dropped, and the count read back is what a per-event tally says.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { sendsOf, type Tries, triesAfter } from '../../../src/modules/webhooks/tries';

describe('tries', () => {
  test('runs add one to what they sent; handing off drops the steps behind the position', () => {
    let tries: Tries = [];
    tries = triesAfter(tries, 14, 10); // 11..14 sent once, none handed off
    expect(tries).toEqual([[14, 1]]);
    tries = triesAfter(tries, 11, 10); // a probe: 11 again
    expect(tries).toEqual([
      [11, 2],
      [14, 1],
    ]);
    tries = triesAfter(tries, 18, 11); // 11 handed off, 12..18 sent
    expect(tries).toEqual([
      [14, 2],
      [18, 1],
    ]);
    expect([sendsOf(tries, 12), sendsOf(tries, 15), sendsOf(tries, 19)]).toEqual([2, 1, 0]);
    expect(triesAfter(tries, null, 18)).toEqual([]);
  });

  test('agrees with a tally per event, whatever the runs', () => {
    // Each run: how far past the position it sent (0: nothing), and how many of the events it sent it handed off.
    const run = fc.record({ sent: fc.integer({ min: 0, max: 8 }), handed: fc.integer({ min: 0, max: 8 }) });
    fc.assert(
      fc.property(fc.array(run, { maxLength: 30 }), (runs) => {
        let position = 100;
        let tries: Tries = [];
        const tally = new Map<number, number>();
        for (const r of runs) {
          const sentTo = r.sent === 0 ? null : position + r.sent;
          for (let s = position + 1; sentTo !== null && s <= sentTo; s++) tally.set(s, (tally.get(s) ?? 0) + 1);
          position += Math.min(r.handed, r.sent);
          tries = triesAfter(tries, sentTo, position);
          for (let s = position + 1; s <= position + 10; s++) expect(sendsOf(tries, s)).toBe(tally.get(s) ?? 0);
          expect(tries.every(([upTo]) => upTo > position)).toBe(true);
        }
        expect(tries.length).toBeLessThanOrEqual(runs.length);
      }),
    );
  });
});
