/**
 * AGENT_RATE_LIMIT, per agent key: a sliding log of request times per agent, kept in memory
 * by each instance (several instances each enforce the limit on their own). A sliding log
 * rather than a fixed window, so an agent cannot send twice the limit across a window edge;
 * it holds at most `limit` timestamps per agent. The clock is injected, like everywhere else.
 *
 * Why not `elysia-rate-limit`: it keys requests before our agent authentication runs, puts
 * `onStop` and global hooks on the host app, answers Retry-After with the whole window rather
 * than the time left, and reads `Date.now()` instead of our clock.
 */
import type { Rate } from '../config/settings';
import type { Clock } from '../core/context';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the next request would be allowed (0 when allowed now). */
  retryAfterSeconds: number;
  /** Seconds until the window has fully drained. */
  resetSeconds: number;
}

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly rate: Rate,
    private readonly clock: Clock,
  ) {}

  /** Counts a request of `key` if it is within the limit. */
  hit(key: string): RateDecision {
    const now = this.clock.now();
    const { limit, windowMs } = this.rate;
    this.sweep(now);
    const log = (this.hits.get(key) ?? []).filter((t) => t > now - windowMs);
    const allowed = log.length < limit;
    if (allowed) log.push(now);
    this.hits.set(key, log);
    const oldest = log[0] ?? now;
    const retryAfterMs = allowed ? 0 : oldest + windowMs - now;
    const newest = log[log.length - 1] ?? now;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - log.length),
      retryAfterSeconds: Math.max(allowed ? 0 : 1, Math.ceil(retryAfterMs / 1000)),
      resetSeconds: Math.ceil((newest + windowMs - now) / 1000),
    };
  }

  /** Drops agents whose whole log has aged out, at most once a window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.rate.windowMs) return;
    this.lastSweep = now;
    for (const [key, log] of this.hits) {
      if ((log[log.length - 1] ?? 0) <= now - this.rate.windowMs) this.hits.delete(key);
    }
  }
}
