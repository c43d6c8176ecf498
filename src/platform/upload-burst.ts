/**
 * Terminals' uploads arriving back to back, as this process sees them. Work that can wait
 * (webhook deliveries reading the log) yields to such a burst: it goes on once uploads pause
 * for BURST_QUIET_MS, or once it has been owed for `maxWaitMs`, so the terminals are answered first
 * and deliveries catch up after. It is per process because what it frees is this process's
 * one JavaScript thread, which parses the uploads, stores them and sends the webhooks.
 */

/**
 * The pause that ends a burst: longer than the gap between two group commits of one (the event
 * loop parsing the next uploads), so a burst is not taken as over at every such gap. Background
 * writes wait for the same pause (db/client.ts).
 */
export const BURST_QUIET_MS = 250;
/** A waiter looks again this often, so a stopping worker is not held for the whole wait. */
const CHECK_MS = 100;

export class UploadBurst {
  private lastUploadAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly maxWaitMs: number) {}

  /** An upload arrived. */
  mark(): void {
    this.lastUploadAt = performance.now();
  }

  /**
   * Resolves once uploads have paused for BURST_QUIET_MS, once work owed since `owedSince`
   * (`performance.now()`) has waited `maxWaitMs`, or once `keepWaiting` says stop.
   */
  async pause(owedSince: number, keepWaiting: () => boolean = () => true): Promise<void> {
    for (;;) {
      const now = performance.now();
      const wait = Math.min(this.lastUploadAt + BURST_QUIET_MS - now, owedSince + this.maxWaitMs - now);
      if (wait <= 0 || !keepWaiting()) return;
      await Bun.sleep(Math.min(wait, CHECK_MS));
    }
  }
}
