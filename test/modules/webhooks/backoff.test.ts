import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { MAX_RETRY_DELAY_MS, retryDelay } from '../../../src/modules/webhooks/backoff';

describe('webhook retry backoff', () => {
  test('doubles from the base each attempt, within ±20% jitter', () => {
    expect(retryDelay(1, 1_000, () => 0.5)).toBe(1_000);
    expect(retryDelay(2, 1_000, () => 0.5)).toBe(2_000);
    expect(retryDelay(5, 1_000, () => 0.5)).toBe(16_000);
    expect(retryDelay(1, 1_000, () => 0)).toBe(800);
    expect(retryDelay(1, 1_000, () => 0.999999)).toBe(1_200);
  });

  test('is capped at an hour: the default schedule keeps retrying hourly through a 3-day outage', () => {
    expect(MAX_RETRY_DELAY_MS).toBe(3_600_000);
    // WEBHOOK_RETRY_BACKOFF 30 s: the cap is reached at the 8th retry, after about 64 minutes.
    let elapsed = 0;
    let attempt = 1;
    while (elapsed < 3 * 86_400_000) elapsed += retryDelay(attempt++, 30_000, () => 0.5);
    expect(attempt).toBeGreaterThan(70);
    expect(retryDelay(1_000, 30_000, () => 0.999999)).toBeLessThanOrEqual(1.2 * 3_600_000);
  });

  test('never exceeds the cap (plus jitter) nor drops below 80% of the plain delay', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 3_600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, base, r) => {
          const delay = retryDelay(attempt, base, () => r);
          const plain = Math.min(MAX_RETRY_DELAY_MS, base * 2 ** (attempt - 1));
          expect(delay).toBeGreaterThanOrEqual(Math.floor(plain * 0.8));
          expect(delay).toBeLessThanOrEqual(Math.ceil(plain * 1.2));
          expect(delay).toBeLessThanOrEqual(MAX_RETRY_DELAY_MS * 1.2);
        },
      ),
    );
  });
});
