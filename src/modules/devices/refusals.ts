/**
 * What a registration refused because too many terminals wait for approval (registration.ts)
 * leaves behind, the one place that throttles it: a log warning at most once a minute, and for
 * the diagnostics, per limit, how many were refused since the last quiet hour and the last
 * serial and address. A flood of junk serials costs at most one write per limit every
 * REFUSAL_WRITE_EVERY_MS on each instance: the refusals in between are counted in memory and
 * written with the next one.
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

export class RegistrationRefusals {
  /** Per limit: refusals not written yet, and when the last write began. */
  private readonly pending = new Map<PendingLimit, { count: number; serial: string; ip: string | null; writtenAt: number }>();
  private lastWarning = Number.NEGATIVE_INFINITY;

  constructor(private readonly ctx: DeviceRuntime) {}

  /** Counts one refusal; logs it and writes it (with those before it) unless that happened lately. Never throws. */
  note(limit: PendingLimit, serial: string, ip: string | null, now: number): void {
    if (now - this.lastWarning >= REFUSAL_WARNING_EVERY_MS) {
      this.lastWarning = now;
      this.ctx.log.warn(WARNINGS[limit], { serial, ip, max: this.ctx.settings[limit] });
    }
    const entry = this.pending.get(limit) ?? { count: 0, serial, ip, writtenAt: Number.NEGATIVE_INFINITY };
    Object.assign(entry, { count: entry.count + 1, serial, ip });
    this.pending.set(limit, entry);
    if (now - entry.writtenAt < REFUSAL_WRITE_EVERY_MS) return;
    const count = entry.count;
    entry.count = 0;
    entry.writtenAt = now;
    this.write(limit, count, serial, ip, now).catch((error: unknown) =>
      this.ctx.log.warn('a refused registration was not recorded', { error: describeError(error) }),
    );
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

/** The refusals of the last hour, per limit (diagnostics). */
export async function recentRefusals(q: Queryable, now: number): Promise<RegistrationRefusal[]> {
  return q
    .select()
    .from(registrationRefusals)
    .where(sql`${registrationRefusals.lastAt} >= ${now - REFUSALS_SHOWN_MS}`);
}
