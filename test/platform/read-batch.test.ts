/** Read batching (platform/db/read-batch.ts): reads of one turn go out together, in order, and a failed read fails only its batch. */
import { describe, expect, test } from 'bun:test';
import { ReadBatch } from '../../src/platform/db/read-batch';

describe('read batch', () => {
  test('loads of one turn are read together, each answered with its own result; a later turn is a new batch', async () => {
    const batches: number[][] = [];
    const reads = new ReadBatch<number, string>(async (inputs) => {
      batches.push(inputs);
      return inputs.map((n) => `#${n}`);
    }, 10);
    expect(await Promise.all([1, 2, 3].map((n) => reads.load(n)))).toEqual(['#1', '#2', '#3']);
    expect(await reads.load(4)).toBe('#4');
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  test('more loads than one read takes are split; a failing read rejects its own part only', async () => {
    const batches: number[][] = [];
    const reads = new ReadBatch<number, number>(async (inputs) => {
      batches.push(inputs);
      if (inputs.includes(3)) throw new Error('bad part');
      return inputs.map((n) => n * 2);
    }, 2);
    const settled = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => reads.load(n)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : 'rejected'))).toEqual([2, 4, 'rejected', 'rejected', 10]);
  });
});
