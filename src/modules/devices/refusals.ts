/**
 * What a registration refused because too many terminals wait for approval (registration.ts)
 * leaves behind, the one place that throttles it: a log warning at most once a minute, and for
 * the diagnostics, per limit, how many were refused since the last quiet hour and the last
 * serial and address. A flood of junk serials costs at most one write per limit every
 * REFUSAL_WRITE_EVERY_MS on each instance: the refusals in between are counted in memory and
 * written with the next write, which comes REFUSAL_WRITE_EVERY_MS after the last one even when
 * no refusal follows (it was never written when none did, so two refusals read as one), and when
 * the service stops. The diagnostics read the counts not written yet with the rows (`recent`).
 */
import { sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { describeError } from '../../platform/errors';
import type { DeviceRuntime } from './runtime';
import { type PendingLimit, registrationRefusals } from './tables';

/** A quiet hour starts the count again (and the diagnostic goes). */
export const REFUSALS_SHOWN_MS = 3_600_000;
const REFUSAL_WRITE_EVERY_MS = 5_000;
/** The log says it at most this often (a flood must not flood the log). */
const REFUSAL_WARNING_EVERY_MS = 60_000;

const WARNINGS: Record<PendingLimit, string> = {
  ADMS_MAX_PENDING_DEVICES: 'unknown terminals refused: ADMS_MAX_PENDING_DEVICES terminals already wait for approval',
  ADMS_MAX_PENDING_PER_ADDRESS: 'unknown terminals refused: ADMS_MAX_PENDING_PER_ADDRESS terminals from this address already wait for approval',
};

export type RegistrationRefusal = typeof registrationRefusals.$inferSelect;

/** Per limit: the refusals not written yet (the first and last of them), when the last write began, and the write due for them. */
interface Unwritten {
  count: number;
  serial: string;
  ip: string | null;
  firstAt: number;
  lastAt: number;
  writtenAt: number;
  due: ReturnType<typeof setTimeout> | null;
}

export class RegistrationRefusals {
  private readonly pending = new Map<PendingLimit, Unwritten>();
  private readonly writes = new Set<Promise<void>>();
  private lastWarning = Number.NEGATIVE_INFINITY;

  constructor(private readonly ctx: DeviceRuntime) {}

  /** Counts one refusal; logs it and writes it (with those before it) unless that happened lately, then later. Never throws. */
  note(limit: PendingLimit, serial: string, ip: string | null, now: number): void {
    if (now - this.lastWarning >= REFUSAL_WARNING_EVERY_MS) {
      this.lastWarning = now;
      this.ctx.log.warn(WARNINGS[limit], { serial, ip, max: this.ctx.settings[limit] });
    }
    const entry = this.pending.get(limit) ?? { count: 0, serial, ip, firstAt: now, lastAt: now, writtenAt: Number.NEGATIVE_INFINITY, due: null };
    if (entry.count === 0) entry.firstAt = now;
    Object.assign(entry, { count: entry.count + 1, serial, ip, lastAt: now });
    this.pending.set(limit, entry);
    if (now - entry.writtenAt >= REFUSAL_WRITE_EVERY_MS) this.writeHeld(limit, entry, now);
    else if (entry.due === null) {
      // Written with the next refusal after the interval, or at its end if none comes.
      entry.due = setTimeout(() => this.writeHeld(limit, entry, entry.writtenAt + REFUSAL_WRITE_EVERY_MS), REFUSAL_WRITE_EVERY_MS);
      entry.due.unref?.();
    }
  }

  /**
   * The refusals of the last hour, per limit (diagnostics): the rows, with the refusals this
   * instance counted and has not written yet.
   */
  async recent(q: Queryable, now: number): Promise<RegistrationRefusal[]> {
    const rows = new Map((await recentRefusals(q, now)).map((r) => [r.limitName, r]));
    for (const [limit, held] of this.pending) {
      if (held.count === 0 || held.lastAt < now - REFUSALS_SHOWN_MS) continue;
      const row = rows.get(limit);
      // After a quiet hour the count starts again, as the write will do.
      const counted = row && row.lastAt >= held.firstAt - REFUSALS_SHOWN_MS ? row : null;
      rows.set(limit, {
        limitName: limit,
        refused: (counted?.refused ?? 0) + held.count,
        firstAt: counted?.firstAt ?? held.firstAt,
        ...(counted && counted.lastAt > held.lastAt
          ? { lastSerial: counted.lastSerial, lastIp: counted.lastIp, lastAt: counted.lastAt }
          : { lastSerial: held.serial, lastIp: held.ip, lastAt: held.lastAt }),
      });
    }
    return [...rows.values()];
  }

  /** The service stops: what is held is written, and the writes under way are waited for. */
  async flush(): Promise<void> {
    for (const [limit, entry] of this.pending) if (entry.count > 0) this.writeHeld(limit, entry, entry.lastAt);
    await Promise.all([...this.writes]);
  }

  private writeHeld(limit: PendingLimit, entry: Unwritten, writtenAt: number): void {
    if (entry.due !== null) clearTimeout(entry.due);
    entry.due = null;
    if (entry.count === 0) return;
    const { count, serial, ip, lastAt } = entry;
    entry.count = 0;
    entry.writtenAt = writtenAt;
    const write = this.write(limit, count, serial, ip, lastAt).catch((error: unknown) =>
      this.ctx.log.warn('a refused registration was not recorded', { error: describeError(error) }),
    );
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  private async write(limit: PendingLimit, count: number, serial: string, ip: string | null, now: number): Promise<void> {
    const t = registrationRefusals;
    await this.ctx.db.write(
      async ({ tx }) => {
        await tx
          .insert(t)
          .values({ limitName: limit, refused: count, lastSerial: serial, lastIp: ip, firstAt: now, lastAt: now })
          .onConflictDoUpdate({
            target: t.limitName,
            set: {
              // After a quiet hour the count starts again.
              refused: sql`case when ${t.lastAt} < ${now - REFUSALS_SHOWN_MS} then ${count} else ${t.refused} + ${count} end`,
              firstAt: sql`case when ${t.lastAt} < ${now - REFUSALS_SHOWN_MS} then ${now} else ${t.firstAt} end`,
              lastSerial: serial,
              lastIp: ip,
              lastAt: now,
            },
          });
      },
      { background: true },
    );
  }
}

/** The refusals of the last hour, per limit, as written (RegistrationRefusals `recent` adds those not written yet). */
export async function recentRefusals(q: Queryable, now: number): Promise<RegistrationRefusal[]> {
  return q
    .select()
    .from(registrationRefusals)
    .where(sql`${registrationRefusals.lastAt} >= ${now - REFUSALS_SHOWN_MS}`);
}
