/**
 * ShownCache (src/modules/events/shown-cache.ts): a view read a moment ago is reused for at most
 * a second, and the cache keeps a bounded number of views, dropping the oldest first.
 */
import { describe, expect, test } from 'bun:test';
import { ShownCache } from '../../../src/modules/events/shown-cache';

describe('ShownCache', () => {
  test('a view is reused for a second after it was read, then read again', () => {
    const cache = new ShownCache();
    const view = { punch: { sequence: 1 } };
    cache.set(7, view, 10_000);
    expect(cache.get(7, 10_000)).toBe(view);
    expect(cache.get(7, 11_000)).toBe(view);
    expect(cache.get(7, 11_001)).toBeUndefined();
    // Expired views are dropped, not kept around.
    expect(cache.get(7, 10_500)).toBeUndefined();
    expect(cache.get(8, 10_000)).toBeUndefined();
  });

  test('a view set again is fresh again', () => {
    const cache = new ShownCache();
    cache.set(1, { v: 1 }, 0);
    cache.set(1, { v: 2 }, 900);
    expect(cache.get(1, 1_800)).toEqual({ v: 2 });
  });

  test('keeps at most 20,000 views, dropping the oldest first', () => {
    const cache = new ShownCache();
    for (let sequence = 1; sequence <= 20_005; sequence++) cache.set(sequence, { sequence }, 0);
    for (let sequence = 1; sequence <= 5; sequence++) expect(cache.get(sequence, 0)).toBeUndefined();
    expect(cache.get(6, 0)).toEqual({ sequence: 6 });
    expect(cache.get(20_005, 0)).toEqual({ sequence: 20_005 });
  });
});
