/**
 * UploadBurst: what waits for a burst of uploads goes on once they pause, never later than its
 * longest wait counted from when it was owed, and at once when told to stop waiting.
 */
import { describe, expect, test } from 'bun:test';
import { UploadBurst } from '../../src/platform/upload-burst';

/** Marks an upload every `everyMs` until stopped. */
function uploading(burst: UploadBurst, everyMs: number): () => void {
  burst.mark();
  const timer = setInterval(() => burst.mark(), everyMs);
  return () => clearInterval(timer);
}

describe('UploadBurst.pause', () => {
  test('without uploads it does not wait', async () => {
    const burst = new UploadBurst(5_000);
    const start = performance.now();
    await burst.pause(start);
    // Well under the 250 ms pause it would wait for (a loaded machine may take a few tens of ms).
    expect(performance.now() - start).toBeLessThan(200);
  });

  test('waits for uploads to pause for 250 ms', async () => {
    const burst = new UploadBurst(5_000);
    const stop = uploading(burst, 30);
    setTimeout(stop, 400);
    const start = performance.now();
    await burst.pause(start);
    const waited = performance.now() - start;
    expect(waited).toBeGreaterThanOrEqual(400 + 250 - 35);
    expect(waited).toBeLessThan(3_000);
  });

  test('under uploads that never pause, waits its longest wait from when the work was owed, not from the call', async () => {
    const burst = new UploadBurst(600);
    const stop = uploading(burst, 30);
    try {
      const owedSince = performance.now();
      await burst.pause(owedSince);
      const waited = performance.now() - owedSince;
      expect(waited).toBeGreaterThanOrEqual(595);
      expect(waited).toBeLessThan(3_000);
      // Owed that long already: the next call goes on at once, uploads or not.
      const again = performance.now();
      await burst.pause(owedSince);
      expect(performance.now() - again).toBeLessThan(200);
    } finally {
      stop();
    }
  });

  test('returns when told to stop waiting (a worker stopping)', async () => {
    const burst = new UploadBurst(60_000);
    const stop = uploading(burst, 30);
    try {
      let waiting = true;
      setTimeout(() => {
        waiting = false;
      }, 200);
      const start = performance.now();
      await burst.pause(start, () => waiting);
      const waited = performance.now() - start;
      expect(waited).toBeGreaterThanOrEqual(195);
      expect(waited).toBeLessThan(2_000);
    } finally {
      stop();
    }
  });
});
