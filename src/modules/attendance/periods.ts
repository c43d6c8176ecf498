/**
 * Pay periods: `from`..`to` local dates. Locking one is final: its days never change again
 * (recomputes skip them, generate-absences writes none) and punches that arrive for its dates
 * later are stored with the flag `after_lock` (./service.ts). So only a period whose last date is
 * over (in every zone attendance uses: ATTENDANCE_TIME_ZONE and the areas' own) can be locked: locked over today, today's punches would never
 * count and its absences never be written. Periods may not overlap, so a date is in one period
 * at most. A period not locked yet can be deleted (one added with a wrong date would otherwise
 * stand in the way of the right one); a locked one cannot: the lock is final.
 */
import { and, asc, eq, getTableName, gte, lte, sql } from 'drizzle-orm';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { type Page, pageOf, textCursor } from '../../platform/http/paging';
import { addDays, dateFilter, localDateOf, requireDates, requireOrdered } from '../../platform/time/dates';
import { audit } from '../audit';
import type { EventChannel } from '../events';
import type { AttendanceEvents } from './events';
import type { PayPeriodView } from './model';
import type { AttendanceRuntime } from './runtime';
import { payPeriods } from './tables';

type PeriodRow = typeof payPeriods.$inferSelect;

const LAST_LOCKED_SQL = `select max(to_date) as last from ${getTableName(payPeriods)} where locked = 1`;

export class PayPeriods {
  constructor(
    private readonly ctx: AttendanceRuntime,
    private readonly events: EventChannel<AttendanceEvents>,
  ) {}

  async list(filters: { from?: string; to?: string; cursor?: string; limit: number }): Promise<Page<PayPeriodView>> {
    const conditions = [];
    // A period is listed when it shares a date with the range.
    const { from, to } = dateFilter(filters);
    if (from) conditions.push(gte(payPeriods.toDate, from));
    if (to) conditions.push(lte(payPeriods.fromDate, to));
    const after = textCursor('pay-periods', filters.cursor);
    if (after !== null) conditions.push(sql`${payPeriods.fromDate} > ${after}`);
    const rows = await this.ctx.db.orm
      .select()
      .from(payPeriods)
      .where(and(...conditions))
      .orderBy(asc(payPeriods.fromDate))
      .limit(filters.limit + 1);
    return pageOf(
      'pay-periods',
      rows,
      filters.limit,
      (r) => r.fromDate,
      (page) => page.map(periodView),
    );
  }

  async get(id: string): Promise<PayPeriodView> {
    return periodView(await this.row(this.ctx.db.orm, id));
  }

  async create(input: { from: string; to: string }, by: string): Promise<PayPeriodView> {
    requireDates(input.from, input.to);
    requireOrdered(input.from, input.to);
    return this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      const [overlap] = await tx
        .select({ id: payPeriods.id })
        .from(payPeriods)
        .where(and(lte(payPeriods.fromDate, input.to), gte(payPeriods.toDate, input.from)))
        .limit(1);
      if (overlap) throw new FpaError('conflict', 'the period overlaps another pay period', { pay_period: overlap.id });
      const row: PeriodRow = { id: crypto.randomUUID(), fromDate: input.from, toDate: input.to, locked: false, lockedAt: null, lockedBy: null, createdAt: now };
      await tx.insert(payPeriods).values(row);
      await audit(tx, now, { actor: by, action: 'pay_period.created', targetType: 'pay_period', targetId: row.id, details: { ...input } });
      return periodView(row);
    });
  }

  /**
   * `DELETE pay-periods/{id}/`: removes a period that is not locked (409 for a locked one: its
   * days stay frozen, and a lock is final). An open period changes no day, so nothing follows.
   */
  async remove(id: string, by: string): Promise<void> {
    await this.ctx.db.write(async ({ tx }) => {
      const row = await this.row(tx, id);
      if (row.locked) throw new FpaError('conflict', 'the pay period is locked: a locked pay period cannot be deleted', { pay_period: id });
      await tx.delete(payPeriods).where(eq(payPeriods.id, id));
      await audit(tx, this.ctx.clock.now(), {
        actor: by,
        action: 'pay_period.deleted',
        targetType: 'pay_period',
        targetId: id,
        details: { from: row.fromDate, to: row.toDate },
      });
    });
  }

  /**
   * Locks a period (409 when it already is, or when its last date is not over yet in every zone
   * in use: `earliestToday` is today in the westmost, and that zone); `settle` first brings the
   * days up to date, in the same transaction.
   */
  async lock(id: string, by: string, settle: (w: WriteContext) => Promise<void>, earliestToday?: { date: string; zone: string }): Promise<PayPeriodView> {
    return this.ctx.db.write(async (w) => {
      const { tx } = w;
      const now = this.ctx.clock.now();
      const row = await this.row(tx, id);
      if (row.locked) throw new FpaError('conflict', 'the pay period is already locked', { pay_period: id });
      const attendanceZone = this.ctx.settings.ATTENDANCE_TIME_ZONE;
      notBeforeItEnds(row, earliestToday ?? { date: localDateOf(now, attendanceZone), zone: attendanceZone }, attendanceZone);
      await settle(w);
      const locked: PeriodRow = { ...row, locked: true, lockedAt: now, lockedBy: by };
      await tx.update(payPeriods).set({ locked: true, lockedAt: now, lockedBy: by }).where(eq(payPeriods.id, id));
      await audit(tx, now, { actor: by, action: 'pay_period.locked', targetType: 'pay_period', targetId: id, details: { from: row.fromDate, to: row.toDate } });
      const view = periodView(locked);
      await this.events.record(w, 'pay_period_locked', { pay_period: view, by });
      return view;
    });
  }

  /** The locked periods sharing a date with [from, to]. */
  async lockedIn(q: Queryable, from: string, to: string): Promise<{ from: string; to: string }[]> {
    return q
      .select({ from: payPeriods.fromDate, to: payPeriods.toDate })
      .from(payPeriods)
      .where(and(eq(payPeriods.locked, true), lte(payPeriods.fromDate, to), gte(payPeriods.toDate, from)));
  }

  /**
   * The last locked date, or null: punches after the day following it can never be after a lock.
   * Raw: it runs in every transaction that stores punches.
   */
  async lastLockedDate(w: WriteContext): Promise<string | null> {
    const { rows } = await w.execute(LAST_LOCKED_SQL);
    const last = rows[0]?.last;
    return typeof last === 'string' ? last : null;
  }

  private async row(q: Queryable, id: string): Promise<PeriodRow> {
    const [row] = await q.select().from(payPeriods).where(eq(payPeriods.id, id)).limit(1);
    if (!row) throw new FpaError('not_found', 'pay period not found', { pay_period: id });
    return row;
  }
}

/**
 * Refuses to lock a period whose last date is today or later: its days would be frozen while
 * they are still worked (punches of today `after_lock`, the Today board stuck, no absences ever
 * written). From the next date on it can be locked.
 */
function notBeforeItEnds(row: PeriodRow, today: { date: string; zone: string }, attendanceZone: string): void {
  if (row.toDate < today.date) return;
  const from = addDays(row.toDate, 1);
  // An area's zone behind ATTENDANCE_TIME_ZONE is still on the date there: named, or the refusal reads as a contradiction.
  const where = today.zone === attendanceZone ? '' : ` in ${today.zone} (the zone of an area whose people are still on ${today.date})`;
  throw new FpaError(
    'conflict',
    `the pay period ends on ${row.toDate}, which is not over yet${where}: it can be locked from ${from} on${where ? ' there' : ''}`,
    {
      pay_period: row.id,
      to: row.toDate,
      today: today.date,
      time_zone: today.zone,
      lockable_from: from,
    },
  );
}

/** Whether a date falls in one of these ranges. */
export function inRanges(date: string, ranges: readonly { from: string; to: string }[]): boolean {
  return ranges.some((r) => r.from <= date && date <= r.to);
}

function periodView(row: PeriodRow): PayPeriodView {
  return {
    id: row.id,
    from: row.fromDate,
    to: row.toDate,
    locked: row.locked,
    locked_at: row.lockedAt === null ? null : new Date(row.lockedAt).toISOString(),
    locked_by: row.lockedBy,
    created_at: new Date(row.createdAt).toISOString(),
  };
}
