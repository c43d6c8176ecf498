/** Which terminal zones differ from the attendance zone: at any time in the coming year, not only today. */
import { describe, expect, test } from 'bun:test';
import { zonesDiffer } from '../../../src/modules/diagnostics/zones';

const WINTER = Date.parse('2026-12-01T12:00:00Z');
const SUMMER = Date.parse('2026-07-01T12:00:00Z');

describe('zonesDiffer', () => {
  test('the same zone, or zones whose clocks agree all year, do not differ', () => {
    expect(zonesDiffer('Europe/London', 'Europe/London', WINTER)).toBe(false);
    expect(zonesDiffer('Europe/Dublin', 'Europe/London', WINTER)).toBe(false);
    expect(zonesDiffer('Etc/UTC', 'UTC', SUMMER)).toBe(false);
  });

  test('zones that agree today but not after a clock change differ, in any season', () => {
    // Ghana keeps GMT all year; London moves to BST in March.
    expect(zonesDiffer('Africa/Accra', 'Europe/London', WINTER)).toBe(true);
    expect(zonesDiffer('Africa/Accra', 'Europe/London', SUMMER)).toBe(true);
    expect(zonesDiffer('America/New_York', 'Europe/London', WINTER)).toBe(true);
    expect(zonesDiffer('Asia/Kolkata', 'Europe/London', SUMMER)).toBe(true);
  });
});
