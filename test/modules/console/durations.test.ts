/** Durations as the console shows them: H:MM like the reports and the payroll export, drift in words. */
import { describe, expect, test } from 'bun:test';
import { duration, spokenDuration } from '../../../src/modules/console/client/format';
import { hoursMinutes } from '../../../src/modules/reports/table';

describe('durations on screen', () => {
  test('worked and late time read H:MM, exactly as the reports print them', () => {
    for (const seconds of [0, 59, 60, 1_200, 28_800, 30_659, 36_000 + 3_540, 360_000]) expect(duration(seconds)).toBe(hoursMinutes(seconds));
    expect(duration(1_200)).toBe('0:20');
    expect(duration(28_800)).toBe('8:00');
    expect(duration(null)).toBe('—');
  });

  test('a clock drift says its unit', () => {
    expect(spokenDuration(40)).toBe('40 seconds');
    expect(spokenDuration(1)).toBe('1 second');
    expect(spokenDuration(603)).toBe('10 minutes');
    expect(spokenDuration(3_600)).toBe('1 hour');
    expect(spokenDuration(3_900)).toBe('1 hour 5 minutes');
    expect(spokenDuration(7_260)).toBe('2 hours 1 minute');
    // A clock started over or set to a wrong year: days, then years.
    expect(spokenDuration(400 * 86_400)).toBe('400 days');
    expect(spokenDuration(26 * 365.25 * 86_400 + 3_600)).toBe('about 26 years');
  });
});
