/**
 * Checkpoints in a thread of their own. SQLite's WAL keeps every commit in the `-wal` file until a
 * checkpoint copies its pages into the database file. By default the committing connection does
 * that itself every 1,000 pages (4 MB), on the committing thread, which here is the one
 * JavaScript thread that also answers terminals: a burst of uploads paid for every copy and
 * sync of the database file between its requests. A worker thread with its own connection
 * checkpoints instead (PASSIVE: beside the writer, never blocking it), and the writer's own
 * automatic checkpoint stays on only as a safety net at WRITER_CHECKPOINT_PAGES, in case this
 * thread falls far behind or stops.
 *
 * The thread alone cannot keep the log short under back-to-back writes: SQLite starts it over
 * only when a write begins with every frame already copied. So a bulk background write (a purge)
 * asks for it (`walIsLong`, then `drain`) between batches.
 */
import { Worker } from 'node:worker_threads';
import { describeError } from '../errors';
import type { CheckpointerCommand, CheckpointerReport, CheckpointRound } from './checkpoint-worker';

/** How often the thread checkpoints (ms): well under the time a burst takes to fill 4 MB of WAL. */
const CHECKPOINT_INTERVAL_MS = 100;
/** The writer connection's own automatic checkpoint while the thread runs (pages: 64 MB). */
export const WRITER_CHECKPOINT_PAGES = 16_384;
/** How long `stop` waits for the thread to close its connection before ending it. */
const STOP_WAIT_MS = 2_000;
/**
 * A WAL this long (frames: 16 MB) makes bulk background writes wait for the thread (`drain`).
 * Under back-to-back writes the thread never finds the log fully copied at the moment a writer
 * begins, so SQLite never starts the log over: it grows until the writer's own checkpoint
 * (WRITER_CHECKPOINT_PAGES) copies and syncs it on the committing thread. Measured in a purge at
 * 1M punches: a 50-90 ms stall of every request every 64 MB, about every 250 ms.
 */
const LONG_WAL_FRAMES = 4_096;

export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private latest: CheckpointRound | null = null;
  private rounds = 0;
  private onStopped: (() => void) | null = null;
  /** Waiting for a round, begun after they asked, that finds every frame copied (`drain`). */
  private drained: Array<{ asked: number; resolve: () => void }> = [];
  private asked = 0;
  /** The round that last answered a `drain` with every frame copied. */
  private answered: CheckpointRound | null = null;

  constructor(path: string, walSizeLimitBytes: number, onError: (message: string) => void) {
    this.worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url));
    this.worker.on('message', (report: CheckpointerReport) => {
      if ('round' in report) {
        this.latest = report.round;
        this.rounds++;
        // A round that could not run (-1 and -1: another connection was checkpointing) ends the
        // wait too: a purge must not stall on another instance; its next drain asks again.
        if (report.round.checkpointed >= report.round.log && this.release(report.round.asked)) this.answered = report.round;
      } else if ('error' in report) onError(`background checkpoint failed: ${report.error}`);
      else this.onStopped?.();
    });
    this.worker.on('error', (error: unknown) => onError(`background checkpointer stopped: ${describeError(error)}`));
    // The thread must not keep alive a process that has nothing else to do.
    this.worker.unref();
    this.send({ start: { path, intervalMs: CHECKPOINT_INTERVAL_MS, walSizeLimitBytes } });
  }

  /** Rounds run so far and the last one's counts (tests, health). */
  status(): { rounds: number; latest: CheckpointRound | null } {
    return { rounds: this.rounds, latest: this.latest };
  }

  /**
   * Whether the WAL was long at the last round (LONG_WAL_FRAMES), so that a bulk background
   * write (a purge) should `drain` it before its next batch rather than grow it. Not when that
   * round answered the last `drain` with every frame copied: the next write starts the log over.
   */
  walIsLong(): boolean {
    const latest = this.latest;
    return latest !== null && latest.log >= LONG_WAL_FRAMES && latest !== this.answered;
  }

  /**
   * Resolves once a round has copied every frame into the database file (a round is asked for
   * now), or after `maxWaitMs`: a reader of another instance may hold the log for a while. The
   * next write then starts the log over instead of growing it.
   */
  drain(maxWaitMs: number): Promise<void> {
    const asked = ++this.asked;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.release(asked), maxWaitMs);
      this.drained.push({
        asked,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      this.send({ round: asked });
    });
  }

  /** Resolves the waiters that asked at or before `asked`; whether there were any. */
  private release(asked: number): boolean {
    const waiting = this.drained.filter((waiter) => waiter.asked <= asked);
    this.drained = this.drained.filter((waiter) => waiter.asked > asked);
    for (const waiter of waiting) waiter.resolve();
    return waiting.length > 0;
  }

  /** Lets the thread finish its round and close its connection, then ends it. */
  async stop(): Promise<void> {
    // Held again while stopping: a shutdown awaiting nothing else would otherwise let the process
    // end here, before whatever follows the close (releasing the database lock).
    this.worker.ref();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopped = new Promise<void>((resolve) => {
      this.onStopped = resolve;
      timer = setTimeout(resolve, STOP_WAIT_MS);
    });
    this.send({ stop: true });
    await stopped;
    this.release(this.asked);
    clearTimeout(timer);
    await this.worker.terminate();
  }

  private send(command: CheckpointerCommand): void {
    this.worker.postMessage(command);
  }
}
