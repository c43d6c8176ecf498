/**
 * Checkpoints in a thread of their own. SQLite's WAL keeps every commit in the `-wal` file until a
 * checkpoint copies its pages into the database file. By default the committing connection does
 * that itself every 1,000 pages (4 MB), on the committing thread, which here is the one
 * JavaScript thread that also answers terminals: a burst of uploads paid for every copy and
 * sync of the database file between its requests. A worker thread with its own connection
 * checkpoints instead (PASSIVE: beside the writer, never blocking it), and the writer's own
 * automatic checkpoint stays on only as a safety net at WRITER_CHECKPOINT_PAGES, in case this
 * thread falls far behind or stops.
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

export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private latest: CheckpointRound | null = null;
  private rounds = 0;
  private onStopped: (() => void) | null = null;

  constructor(path: string, walSizeLimitBytes: number, onError: (message: string) => void) {
    this.worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url));
    this.worker.on('message', (report: CheckpointerReport) => {
      if ('round' in report) {
        this.latest = report.round;
        this.rounds++;
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
    clearTimeout(timer);
    await this.worker.terminate();
  }

  private send(command: CheckpointerCommand): void {
    this.worker.postMessage(command);
  }
}
