/** fast-check arbitraries shared by the property tests. */
import fc from 'fast-check';
import type { LocalDateTimeParts } from '../../src/platform/time/local-time';

/** Valid calendar wall-clock fields from `minYear` to 2099 (the day clamped to the month). */
export function localPartsFrom(minYear: number): fc.Arbitrary<LocalDateTimeParts> {
  return fc
    .record({
      year: fc.integer({ min: minYear, max: 2099 }),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
      second: fc.integer({ min: 0, max: 59 }),
    })
    .map((p) => ({ ...p, day: Math.min(p.day, new Date(Date.UTC(p.year, p.month, 0)).getUTCDate()) }));
}
