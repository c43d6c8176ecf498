/**
 * A follower of the event log: derived state (attendance days, …) kept up to date after the
 * commit instead of inside the transaction that recorded the events, so the writer of the
 * events (a terminal's upload) does not pay for it.
 *
 * Each step runs in one write transaction: it reads where the follower stands, the next events
 * of its types, applies them, and moves its position, all together. A crash therefore loses
 * nothing and applies nothing twice, and several instances may run the same follower: the
 * single writer (or the libSQL server) orders their steps, and each reads the position the
 * previous one left. It catches up when woken after a commit, every second (events other
 * instances wrote), at start-up, and on demand before a read that must see every event.
 */
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { CoalescingPass } from '../../platform/coalescing-pass';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { describeError, FpaError } from '../../platform/errors';
import type { EventRuntime } from './runtime';
import type { EventLog, LoggedEvent } from './service';
import { eventLog, logFollowers } from './tables';

export interface FollowerOptions {
  /** Stable name: the row that keeps its position. */
  name: string;
  types: readonly string[];
  /** Events applied per transaction at most. */
  batch?: number;
  /**
   * Applies the events, in the step's transaction. `resume` is what the last step answered when
   * it stopped inside the first of them (`FollowerStop`), else null. Answering a stop applies the
   * events before `at` and part of `at`: the next step begins at `at` again, with `resume`.
   */
  apply(w: WriteContext, events: readonly LoggedEvent[], resume: unknown): Promise<FollowerStop | undefined>;
}

/**
 * A step that stopped inside an event too large for one transaction (a calendar change over
 * everyone's every date): that event's sequence, and what the next step needs to go on (JSON).
 * Each stop must have done part of the event, so that the steps come to its end.
 */
export interface FollowerStop {
  at: number;
  resume: unknown;
}

const POLL_MS = 1_000;

/** What one step did: the events it applied, whether it moved, and where it stands. */
interface StepDone {
  applied: number;
  moved: boolean;
  position: number;
}

export class LogFollower {
  private readonly pass = new CoalescingPass(
    () => this.step({ background: true }).then((done) => done.moved),
    () => this.running,
  );
  /**
   * Since when (`performance.now()`) events have been waiting for this follower; null when it
   * has reached the head. Its background steps count their wait from here, so under a steady
   * stream of uploads it still catches up once overdue, one step right after another.
   */
  private owedSince: number | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private running = false;
  /** A step failed as `unavailable` (the host's calendar is down): said once, until a step succeeds again. */
  private waiting = false;
  private readonly batch: number;

  constructor(
    private readonly ctx: EventRuntime,
    private readonly log: EventLog,
    private readonly options: FollowerOptions,
  ) {
    this.batch = options.batch ?? 2000;
    log.pruning.followedBy(options.name);
    log.onAppended(() => this.wake());
  }

  /** Follows the log in the background (serving instances). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.pass.busy) await Bun.sleep(5);
  }

  wake(): void {
    if (!this.running) return;
    void this.pass.trigger().catch((error: unknown) => this.failed(error));
  }

  /**
   * A background step that failed is tried again at the next wake (every second). One that waits
   * for something unavailable (the host's calendar: calendar/host-calendar.ts) is said once, not
   * every second, until a step succeeds; any other failure each time.
   */
  private failed(error: unknown): void {
    const { name } = this.options;
    if (!(error instanceof FpaError && error.code === 'unavailable')) {
      this.ctx.log.error(`log follower ${name} failed`, { error: describeError(error) });
      return;
    }
    if (!this.waiting) this.ctx.log.warn(`log follower ${name} waits, and tries again every second: ${error.message}`);
    this.waiting = true;
  }

  /**
   * Applies every event recorded so far; resolves when the follower has reached the log's head
   * as it was when asked. Not a later one: under a steady stream of uploads a read would chase
   * the head for as long as the stream lasts.
   */
  async catchUp(): Promise<number> {
    const [head] = await this.ctx.db.orm.select({ max: sql<number | null>`max(${eventLog.sequence})` }).from(eventLog);
    const upTo = head?.max ?? 0;
    let total = 0;
    for (;;) {
      const { applied, moved, position } = await this.step({ upTo });
      total += applied;
      // Past `upTo`, one step more moves past what the steps themselves appended, and no further.
      // Its steps take turns with the uploads: the write queue leaves the event loop a turn
      // after every write (a read catching up a burst's backlog held every request 4 s).
      if (!moved || (position >= upTo && applied === 0)) return total;
    }
  }

  /**
   * Applies, in the caller's write transaction, every event of its types not applied yet: for a
   * change that must have seen them all when it commits (a pay period's lock), after `catchUp`
   * has done the bulk of them outside it. Uploads take turns with a catch-up's steps, so events
   * may have come in since it ended.
   */
  async applyAllIn(w: WriteContext): Promise<void> {
    for (;;) {
      const { reachedHead } = await this.applyNext(w, Number.POSITIVE_INFINITY);
      if (reachedHead) return;
    }
  }

  /**
   * One transaction: the next events of the follower's types, applied, and its position moved.
   * Woken by new events it is background work (uploads are answered first); a caller that must
   * see every event (`catchUp` before a read) does not wait behind them. With `upTo` it applies
   * no event past that sequence, but still moves past later events that are not its types (the
   * ones its own steps append). Answers how many events it applied, whether it moved, and the
   * position it stands at.
   */
  private async step(options: { background?: boolean; upTo?: number } = {}): Promise<StepDone> {
    const { upTo, ...writeOptions } = options;
    // A read first, so an idle follower (woken every second) takes no write lock.
    if (!(await this.behind(this.ctx.db.orm))) {
      this.owedSince = null;
      return { applied: 0, moved: false, position: Number.POSITIVE_INFINITY };
    }
    this.owedSince ??= performance.now();
    const { reachedHead, ...done } = await this.ctx.db.write((w) => this.applyNext(w, upTo ?? Number.POSITIVE_INFINITY), {
      ...writeOptions,
      owedSince: this.owedSince,
    });
    if (reachedHead) this.owedSince = null;
    if (this.waiting) this.ctx.log.info(`log follower ${this.options.name} goes on`);
    this.waiting = false;
    return done;
  }

  /** The body of a step (see `step`), in its write transaction. */
  private async applyNext(w: WriteContext, upTo: number): Promise<StepDone & { reachedHead: boolean }> {
    const { name, types } = this.options;
    const [row] = await w.tx.select({ position: logFollowers.position, resume: logFollowers.resume }).from(logFollowers).where(eq(logFollowers.name, name));
    const position = row?.position ?? 0;
    const stoppedIn = row?.resume ? (JSON.parse(row.resume) as { at: number; state: unknown }) : null;
    // Read inside the write transaction: nothing can commit between this read and the move.
    const [head] = await w.tx.select({ max: sql<number | null>`max(${eventLog.sequence})` }).from(eventLog);
    const last = head?.max ?? 0;
    if (last <= position) return { applied: 0, moved: false, position, reachedHead: true };
    const rows = await w.tx
      .select()
      .from(eventLog)
      .where(and(gt(eventLog.sequence, position), inArray(eventLog.type, [...types])))
      .orderBy(asc(eventLog.sequence))
      .limit(this.batch);
    const upToHere = rows.filter((r) => r.sequence <= upTo);
    // A step that stopped inside an event goes on with that event alone: the events after it
    // were applied with it then, and would be again at every step until it is done.
    const resuming = stoppedIn !== null && upToHere[0]?.sequence === stoppedIn.at;
    const taken = resuming ? upToHere.slice(0, 1) : upToHere;
    const events = await this.log.read(w.tx, taken);
    const resume = resuming ? stoppedIn.state : null;
    const stop = events.length > 0 ? await this.options.apply(w, events, resume) : undefined;
    if (stop) {
      // Everything before the event it stopped in is applied; that event goes on at the next step.
      await this.moveTo(w, stop.at - 1, JSON.stringify({ at: stop.at, state: stop.resume }));
      return { applied: events.filter((e) => e.sequence < stop.at).length, moved: true, position: stop.at - 1, reachedHead: false };
    }
    // A full batch stops at its last event, one cut short by `upTo` at `upTo`, a resumed event
    // at itself; otherwise everything up to the head is done.
    const reachedHead = rows.length < this.batch && taken.length === rows.length;
    const next = reachedHead ? last : resuming ? taken[0]!.sequence : upToHere.length < rows.length ? upTo : taken[taken.length - 1]!.sequence;
    // Past the event a step stopped in (it is the first after `position`), so its resume is done with.
    if (next <= position) return { applied: events.length, moved: false, position, reachedHead };
    await this.moveTo(w, next, null);
    return { applied: events.length, moved: true, position: next, reachedHead };
  }

  private async moveTo(w: WriteContext, position: number, resume: string | null): Promise<void> {
    const now = this.ctx.clock.now();
    await w.tx
      .insert(logFollowers)
      .values({ name: this.options.name, position, resume, updatedAt: now })
      .onConflictDoUpdate({ target: logFollowers.name, set: { position, resume, updatedAt: now } });
  }

  private async behind(q: Queryable): Promise<boolean> {
    const [row] = await q.select({ position: logFollowers.position }).from(logFollowers).where(eq(logFollowers.name, this.options.name));
    const [head] = await q.select({ max: sql<number | null>`max(${eventLog.sequence})` }).from(eventLog);
    return (head?.max ?? 0) > (row?.position ?? 0);
  }
}
