import { describe, expect, test } from 'bun:test';
import { PurgePace } from '../../src/platform/db/purge';

describe('purge pace', () => {
  test('sizes the next batch to the time one takes, at most doubling or halving it', () => {
    const pace = new PurgePace(1000, 50);
    pace.took(10);
    expect(pace.size).toBe(1000);
    pace.took(40);
    expect(pace.size).toBe(500);
    pace.took(20);
    expect(pace.size).toBe(250);
    pace.took(1);
    expect(pace.size).toBe(500);
    pace.took(8);
    expect(pace.size).toBe(625);
  });

  test('stays within its bounds', () => {
    const pace = new PurgePace(100, 20, 300);
    for (let i = 0; i < 10; i++) pace.took(1000);
    expect(pace.size).toBe(20);
    for (let i = 0; i < 10; i++) pace.took(0);
    expect(pace.size).toBe(300);
  });
});
