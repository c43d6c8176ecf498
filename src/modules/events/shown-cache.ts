/**
 * The views of stored forms (StoredForm, ./service.ts) read a moment ago, by event sequence.
 * Webhook endpoints following the log read the same events one after another; without this
 * each would read the same punches again (ten endpoints draining a backlog spent a quarter of
 * their time on it). A view is reused for at most SHOWN_TTL_MS, so a reader of the log may see
 * a row as it was that long ago, as if it had read a moment earlier. Followers, which must see
 * the rows as their own transaction does, never use it.
 */

const SHOWN_TTL_MS = 1_000;
/** Views kept at most: ten endpoints' batches, many times over. */
const MAX_SHOWN = 20_000;

export class ShownCache {
  private readonly entries = new Map<number, { data: object; at: number }>();

  get(sequence: number, now: number): object | undefined {
    const entry = this.entries.get(sequence);
    if (!entry) return undefined;
    if (now - entry.at <= SHOWN_TTL_MS) return entry.data;
    this.entries.delete(sequence);
    return undefined;
  }

  set(sequence: number, data: object, now: number): void {
    this.entries.delete(sequence);
    this.entries.set(sequence, { data, at: now });
    // A Map iterates in insertion order: the first entries are the oldest.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_SHOWN) break;
      this.entries.delete(oldest);
    }
  }
}
