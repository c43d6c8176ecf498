/**
 * AGENT_RATE_LIMIT, per agent key, counted in the database (`fpa_agent_rate_windows`) so the
 * limit holds however many instances serve the API (DESIGN: no process may assume it is the
 * only one). A fixed window aligned to the epoch: one upsert per request increments the
 * agent's count, or starts a new window at 1 once the stored one has ended. A fixed window
 * may let an agent send up to twice the limit across a window edge; a sliding log would need
 * one row per request, and the limit is a guard against runaway agents, not a quota.
 *
 * Why not `elysia-rate-limit`: it keys requests before our agent authentication runs, puts
 * `onStop` and global hooks on the host app, counts in memory per process, and reads
 * `Date.now()` instead of our clock.
 */
import { sql } from 'drizzle-orm';
import type { Rate } from '../../platform/config/settings';
import type { Database } from '../../platform/db/client';
import type { Clock } from '../../platform/runtime';
import { agentRateWindows } from './tables';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the next request would be allowed (0 when allowed now). */
  retryAfterSeconds: number;
  /** Seconds until the current window ends and the count starts again. */
  resetSeconds: number;
}

export class AgentRateLimiter {
  constructor(
    private readonly rate: Rate,
    private readonly clock: Clock,
    private readonly db: Database,
  ) {}

  /** Counts a request of `agentId` (allowed or not) and says whether it is within the limit. */
  async hit(agentId: string): Promise<RateDecision> {
    const { limit, windowMs } = this.rate;
    const now = this.clock.now();
    const windowStart = now - (now % windowMs);
    const w = agentRateWindows;
    // Instances whose clocks differ slightly never move a window backwards: an older
    // window start counts into the newer window already stored.
    const [row] = await this.db.write(({ tx }) =>
      tx
        .insert(w)
        .values({ agentId, windowStart, count: 1 })
        .onConflictDoUpdate({
          target: w.agentId,
          set: {
            count: sql`case when excluded.window_start > ${w.windowStart} then 1 else ${w.count} + 1 end`,
            windowStart: sql`max(${w.windowStart}, excluded.window_start)`,
          },
        })
        .returning({ count: w.count, windowStart: w.windowStart }),
    );
    const count = row?.count ?? 1;
    const windowEnd = (row?.windowStart ?? windowStart) + windowMs;
    const allowed = count <= limit;
    const resetSeconds = Math.max(1, Math.ceil((windowEnd - now) / 1000));
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - count),
      retryAfterSeconds: allowed ? 0 : resetSeconds,
      resetSeconds,
    };
  }
}
