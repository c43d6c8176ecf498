/**
 * Group commit of the endpoints' progress. Every write transaction ends with a commit (a WAL
 * sync) that holds the event loop, so each endpoint writing its own would cost as many commits
 * as endpoints: here the writes of the endpoints worked by one instance that are due together,
 * or come while the writer is busy, share one transaction. Each writer's promise settles after
 * the commit that carries its write; a write that fails is retried on its own, so one cannot
 * cost the others theirs.
 */
import type { Database, WriteContext } from '../../platform/db/client';

interface Request<T> {
  work: (w: WriteContext) => Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export class GroupWrite {
  private waiting: Request<unknown>[] = [];
  private flushing = false;

  constructor(private readonly db: Database) {}

  /** Runs `work` inside the next shared write transaction; resolves after its commit. */
  submit<T>(work: (w: WriteContext) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, resolve: (value) => resolve(value as T), reject } as Request<unknown>);
      if (this.flushing) return;
      this.flushing = true;
      // Writes due in this turn of the event loop go together: start right after it.
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        try {
          const results = await this.db.write(async (w) => {
            const out: unknown[] = [];
            for (const request of batch) out.push(await request.work(w));
            return out;
          });
          batch.forEach((request, i) => {
            request.resolve(results[i]);
          });
        } catch (error) {
          if (batch.length === 1) batch[0]!.reject(error);
          else for (const request of batch) await this.db.write((w) => request.work(w)).then(request.resolve, request.reject);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
