/**
 * Group commit of the `sent` marks of command polls.
 *
 * A poll may hand a command to its terminal only once the command is marked `sent` in the
 * database, and every mark is a write transaction: one commit (one WAL sync) per poll caps
 * polls at the disk's sync rate. Here polls of different terminals that arrive together, or
 * while the writer is busy, share one transaction: the first request starts a write as soon
 * as the current turn of the event loop ends (a lone poll waits for no timer), and everything
 * that arrives until that write begins goes into it. Each poll's promise settles only after
 * the commit that carries its marks.
 */
import type { Database, Tx } from '../../platform/db/client';

/** A command as the poll rendered it: marked only if it still reads the same. */
export interface MarkCandidate {
  id: number;
  kind: string;
  /** The payload's stored JSON text, as read before rendering. */
  payloadText: string;
}

/**
 * Marks, inside `tx`, the commands of `candidates` that are still pending with the content the
 * candidate was rendered from; returns the candidates it marked for, at most one per command
 * (two overlapping polls of one terminal may both have read it; only one may send it).
 */
export type ApplyMarks = (tx: Tx, candidates: MarkCandidate[]) => Promise<Set<MarkCandidate>>;

interface MarkRequest {
  candidates: MarkCandidate[];
  resolve(marked: Set<number>): void;
  reject(error: unknown): void;
}

export class SentMarks {
  private waiting: MarkRequest[] = [];
  private flushing = false;

  constructor(
    private readonly db: Database,
    private readonly apply: ApplyMarks,
  ) {}

  /** Resolves, after commit, with the ids of `candidates` this request marked sent. */
  mark(candidates: MarkCandidate[]): Promise<Set<number>> {
    if (candidates.length === 0) return Promise.resolve(new Set());
    return new Promise((resolve, reject) => {
      this.waiting.push({ candidates, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      // Polls run to their mark without yielding to I/O (the database calls are synchronous),
      // so those arriving together are only seen after this turn of the event loop: the
      // write starts right after it, without a timer.
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const taken: MarkRequest[] = [];
        try {
          const marked = await this.db.write(async ({ tx }) => {
            // Taken when the transaction begins, not when it was asked for: requests that came
            // while it waited behind other writes ride along.
            taken.push(...this.waiting.splice(0));
            return this.apply(
              tx,
              taken.flatMap((r) => r.candidates),
            );
          });
          for (const request of taken) request.resolve(new Set(request.candidates.filter((c) => marked.has(c)).map((c) => c.id)));
        } catch (error) {
          // Rolled back, or never begun (then the requests are still waiting): none is marked.
          for (const request of taken.length > 0 ? taken : this.waiting.splice(0)) request.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
