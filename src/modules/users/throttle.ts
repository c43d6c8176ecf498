/**
 * Failed sign-ins, limited per username (CONSOLE_SIGN_IN_LIMIT) and per client address
 * (CONSOLE_SIGN_IN_ADDRESS_LIMIT), counted in the database (`fpa_sign_in_failures`) so the
 * limits hold across instances. A window starts at its first failure (not at a clock boundary, as
 * AGENT_RATE_LIMIT's do): an epoch-aligned window let twice the limit through across a boundary,
 * and let a count of failures made a second apart start again at zero.
 *
 * A refused attempt is decided by a read alone (no write, no password hashing); failures are
 * counted through a group commit, so a burst of wrong passwords shares write transactions
 * instead of opening one each. A success clears the username's count.
 */
import { eq, inArray, lt, sql } from 'drizzle-orm';
import type { Rate } from '../../platform/config/settings';
import type { Tx } from '../../platform/db/client';
import { GroupCommit } from '../../platform/db/group-commit';
import { FpaError } from '../../platform/errors';
import type { UserRuntime } from './runtime';
import { signInFailures } from './tables';

type Scope = 'user' | 'change';

const SWEEP_EVERY_MS = 3_600_000;

interface Counted {
  key: string;
  rate: Rate;
}

export class SignInThrottle {
  private readonly counter: GroupCommit<{ key: string; at: number; windowMs: number }, void>;
  private sweptAt = 0;

  constructor(private readonly ctx: UserRuntime) {
    const f = signInFailures;
    this.counter = new GroupCommit(ctx.db, async (w, hits) => {
      // Windows long over are dropped now and then (addresses come and go), in the same transaction.
      const now = ctx.clock.now();
      if (now - this.sweptAt >= SWEEP_EVERY_MS) {
        this.sweptAt = now;
        await w.tx.delete(f).where(lt(f.windowStart, now - this.longestWindow() - SWEEP_EVERY_MS));
      }
      for (const hit of hits) {
        // A failure after the key's window has ended opens a new window at that failure.
        const ended = sql`excluded.window_start >= ${f.windowStart} + ${hit.windowMs}`;
        await w.tx
          .insert(f)
          .values({ key: hit.key, windowStart: hit.at, count: 1 })
          .onConflictDoUpdate({
            target: f.key,
            set: {
              count: sql`case when ${ended} then 1 else ${f.count} + 1 end`,
              windowStart: sql`case when ${ended} then excluded.window_start else ${f.windowStart} end`,
            },
          });
      }
      return hits.map(() => undefined);
    });
  }

  private longestWindow(): number {
    const s = this.ctx.settings;
    return Math.max(s.CONSOLE_SIGN_IN_LIMIT.windowMs, s.CONSOLE_SIGN_IN_ADDRESS_LIMIT.windowMs);
  }

  /**
   * `scope` keeps apart what is counted: sign-ins (`user`) and a signed-in person's password
   * changes (`change`), so an attack on one account's sign-in never blocks its owner's change.
   */
  private keys(username: string, address: string | null, scope: Scope): Counted[] {
    const s = this.ctx.settings;
    const keys: Counted[] = [{ key: scope === 'user' ? userKey(username) : `${scope}:${username.trim().toLowerCase()}`, rate: s.CONSOLE_SIGN_IN_LIMIT }];
    if (address) keys.push({ key: `address:${address}`, rate: s.CONSOLE_SIGN_IN_ADDRESS_LIMIT });
    return keys;
  }

  /** 429 with `retry_after` when the username or the address has used up its failures. */
  async check(username: string, address: string | null, scope: Scope = 'user'): Promise<void> {
    const keys = this.keys(username, address, scope);
    const now = this.ctx.clock.now();
    const rows = await this.ctx.db.orm
      .select()
      .from(signInFailures)
      .where(
        inArray(
          signInFailures.key,
          keys.map((k) => k.key),
        ),
      );
    let retryAfter = 0;
    for (const { key, rate } of keys) {
      const row = rows.find((r) => r.key === key);
      const end = row ? row.windowStart + rate.windowMs : 0;
      if (row && end > now && row.count >= rate.limit) retryAfter = Math.max(retryAfter, Math.ceil((end - now) / 1000));
    }
    if (retryAfter > 0) {
      throw new FpaError('rate_limited', 'too many failed sign-ins: wait before trying again', { retry_after: retryAfter });
    }
  }

  /** Counts a failure against the username and the address. */
  async failed(username: string, address: string | null, scope: Scope = 'user'): Promise<void> {
    const now = this.ctx.clock.now();
    await Promise.all(this.keys(username, address, scope).map(({ key, rate }) => this.counter.submit({ key, at: now, windowMs: rate.windowMs })));
  }

  /** A success forgets the username's failures (not the address's: one good password does not vouch for the rest). */
  async succeeded(username: string): Promise<void> {
    const key = userKey(username);
    const [row] = await this.ctx.db.orm.select({ key: signInFailures.key }).from(signInFailures).where(eq(signInFailures.key, key));
    if (row) await this.ctx.db.write(({ tx }) => tx.delete(signInFailures).where(eq(signInFailures.key, key)));
  }
}

/** The key a username's failed sign-ins are counted under. */
function userKey(username: string): string {
  return `user:${username.trim().toLowerCase()}`;
}

/**
 * Forgets a username's failed sign-ins inside a write (an administrator's reset link spent: its
 * holder proved who they are, and signs in with the new password at once).
 */
export async function forgetSignInFailures(tx: Tx, username: string): Promise<void> {
  await tx.delete(signInFailures).where(eq(signInFailures.key, userKey(username)));
}
