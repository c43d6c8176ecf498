/**
 * Read batching: reads asked for in the same turn of the event loop (concurrent terminal polls
 * asking for their queues) are answered by one statement per batch instead of one each, since
 * preparing and running a statement costs more than the few rows each read returns. Like the
 * group commit (group-commit.ts), the batch starts right after the current turn, without a timer.
 */
import { chunks } from '../chunks';

/** Reads the inputs of one batch; answers one result per input, in order. */
export type ReadMany<In, Out> = (inputs: In[]) => Promise<Out[]>;

interface Request<In, Out> {
  input: In;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

export class ReadBatch<In, Out> {
  private waiting: Request<In, Out>[] = [];
  private scheduled = false;

  constructor(
    private readonly readMany: ReadMany<In, Out>,
    /** Inputs one statement takes at most (SQLite's bind-variable and compound-select limits). */
    private readonly maxPerRead: number,
  ) {}

  load(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const taken = this.waiting;
    this.waiting = [];
    this.scheduled = false;
    for (const part of chunks(taken, this.maxPerRead)) {
      try {
        const results = await this.readMany(part.map((r) => r.input));
        part.forEach((request, i) => {
          request.resolve(results[i]!);
        });
      } catch (error) {
        for (const request of part) request.reject(error);
      }
    }
  }
}
