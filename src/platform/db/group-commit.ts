/**
 * Group commit: writes that arrive together, or while the writer is busy, share one write
 * transaction. Every commit is a WAL sync that holds the event loop, so one transaction per
 * request would cap requests at the disk's sync rate (command polls marking what they send,
 * webhook endpoints writing their progress).
 *
 * The first request starts a write right after the current turn of the event loop (no timer);
 * the requests are taken when that transaction begins, so those that came while it waited
 * behind other writes ride along. Each request's promise settles after the commit that carries
 * it. If a shared transaction fails, each of its requests is tried again on its own, so one bad
 * request cannot cost the others theirs.
 */
import type { Database, WriteContext, WriteOptions } from './client';

/** Applies the inputs of one shared transaction; answers one result per input, in order. */
export type ApplyBatch<In, Out> = (w: WriteContext, inputs: In[]) => Promise<Out[]>;

interface Request<In, Out> {
  input: In;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions {
  /** Requests one transaction takes at most; the rest wait for the next (default: all waiting). */
  maxPerTransaction?: number;
  /** WriteOptions.durable of every transaction (default: durable). */
  durable?: boolean;
}

export class GroupCommit<In, Out> {
  private waiting: Request<In, Out>[] = [];
  private flushing = false;
  private readonly maxPerTransaction: number;
  private readonly writeOptions: WriteOptions;

  constructor(
    private readonly db: Database,
    private readonly apply: ApplyBatch<In, Out>,
    options: GroupCommitOptions = {},
  ) {
    this.maxPerTransaction = options.maxPerTransaction ?? Number.POSITIVE_INFINITY;
    this.writeOptions = { durable: options.durable ?? true };
  }

  submit(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      // Callers run to their submit without yielding to I/O (the database calls are
      // synchronous), so those arriving together are only seen after this turn of the loop.
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const taken: Request<In, Out>[] = [];
        try {
          const results = await this.db.write(async (w) => {
            taken.push(...this.waiting.splice(0, this.maxPerTransaction));
            return this.apply(
              w,
              taken.map((r) => r.input),
            );
          }, this.writeOptions);
          taken.forEach((request, i) => {
            request.resolve(results[i]!);
          });
        } catch (error) {
          // Rolled back, or never begun (then the requests are still waiting).
          const failed = taken.length > 0 ? taken : this.waiting.splice(0, this.maxPerTransaction);
          if (failed.length === 1) failed[0]!.reject(error);
          else for (const request of failed) await this.alone(request);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async alone(request: Request<In, Out>): Promise<void> {
    try {
      const [result] = await this.db.write((w) => this.apply(w, [request.input]), this.writeOptions);
      request.resolve(result!);
    } catch (error) {
      request.reject(error);
    }
  }
}
