/**
 * `devices/{sn}/completeness/`: per local date of the terminal, the punches stored from it, what
 * it holds as far as known, what re-uploads recovered, and a status (status.ts: `recovering`,
 * `gap`, `complete` or `unknown`, by the rules listed there).
 */
import type { Static } from '@sinclair/typebox';
import { and, between, eq } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { Caller } from '../../platform/http/caller';
import { addDays, isCalendarDate } from '../../platform/time/dates';
import type { DeviceRow, DeviceService } from '../devices';
import { countPerDateFromDevice } from '../punches';
import type { CompletenessDay, CompletenessReport, Recovery } from './model';
import type { Recoveries } from './recovery';
import type { CompletenessRuntime } from './runtime';
import { type CountsByDate, dayStatus } from './status';
import { type PunchCountRow, punchDays, type RecoveryRow } from './tables';

/** What the report reads, from the completeness service. */
export interface ReportParts {
  devices: DeviceService;
  recoveries: Recoveries;
  stateOf(q: Queryable, deviceId: string): Promise<PunchCountRow | null>;
}

type Report = Static<typeof CompletenessReport>;
type Day = Static<typeof CompletenessDay>;
type DateRange = { from?: string; to?: string };

const MAX_DAYS = 366;
const DEFAULT_DAYS = 30;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function completenessOf(ctx: CompletenessRuntime, c: ReportParts, serial: string, range: DateRange, caller: Caller): Promise<Report> {
  const db = ctx.db.orm;
  const device = await visibleDevice(db, c, serial, caller);
  const now = ctx.clock.now();
  const today = c.recoveries.wallTime(device, now).slice(0, 10);
  const to = range.to ?? today;
  const from = range.from ?? addDays(to, -DEFAULT_DAYS);
  if (!isCalendarDate(from) || !isCalendarDate(to) || to < from || addDays(from, MAX_DAYS) <= to) {
    throw new FpaError('validation_error', `from and to are local dates, from before to, at most ${MAX_DAYS} days apart`, { fields: ['from', 'to'] });
  }
  const stored = await countPerDateFromDevice(db, device.id, `${from} 00:00:00`, `${to} 23:59:59`);
  const known = new Map(
    (
      await db
        .select()
        .from(punchDays)
        .where(and(eq(punchDays.deviceId, device.id), between(punchDays.date, from, to)))
    ).map((r) => [r.date, r]),
  );
  const recoveries = await c.recoveries.overlapping(db, device.id, from, to);
  const state = await c.stateOf(db, device.id);
  const dateOf = (at: number | null | undefined) => (at == null ? null : c.recoveries.wallTime(device, at).slice(0, 10));
  const counts = countsByDate(state, dateOf, dateOf(device.approvedAt ?? device.createdAt)!, today);
  const days: Day[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) {
    const n = stored.get(date) ?? 0;
    const row = known.get(date);
    const recovering = recoveries.some((r) => covers(r, date) && (r.status === 'planned' || r.status === 'queued' || r.status === 'answered'));
    const { status, byCount } = dayStatus({ date, stored: n, recovering, reuploaded: row?.reported ?? null }, counts);
    const agreedAt = byCount === 'agreed_before_clear' ? (state?.agreedBeforeClearAt ?? null) : (state?.agreedAt ?? null);
    const reported = byCount
      ? { reported: n, reported_at: iso(agreedAt), reported_by: 'count' as const }
      : { reported: row?.reported ?? null, reported_at: iso(row?.reportedAt ?? null), reported_by: row ? ('reupload' as const) : null };
    days.push({ date, stored: n, ...reported, recovered: row?.recovered ?? 0, status });
  }
  return {
    serial_number: device.serialNumber,
    from,
    to,
    counts: {
      reported: state?.reportedCount ?? null,
      reported_at: iso(state?.reportedAt ?? null),
      agreed_at: iso(state?.agreedAt ?? null),
      missing: state?.gapSince != null ? state.gapMissing : null,
    },
    days,
    recoveries: recoveries.slice(0, 50).map(recoveryView),
  };
}

/**
 * The terminal's counts in its local dates. A count that fell (a cleared log, a reset terminal)
 * keeps the agreement in force then and whether a gap was open then (its loss) for the dates up
 * to the clear.
 */
function countsByDate(state: PunchCountRow | null, dateOf: (at: number | null | undefined) => string | null, since: string, today: string): CountsByDate {
  const clearedDate = dateOf(state?.clearedAt);
  return {
    since,
    today,
    agreed: dateOf(state?.agreedAt),
    gapOpen: state?.gapSince != null,
    cleared: clearedDate === null ? null : { date: clearedDate, agreed: dateOf(state?.agreedBeforeClearAt), gapOpen: state?.missingAtClear != null },
  };
}

function covers(r: RecoveryRow, date: string): boolean {
  return r.fromTime.slice(0, 10) <= date && date <= r.toTime.slice(0, 10);
}

function recoveryView(r: RecoveryRow): Static<typeof Recovery> {
  return {
    id: r.id,
    reason: r.reason,
    from: r.fromTime,
    to: r.toTime,
    status: r.status,
    command: r.commandId,
    missing: r.missing,
    recovered: r.recovered,
    return_code: r.returnCode,
    queued_at: new Date(r.queuedAt).toISOString(),
    finished_at: iso(r.finishedAt),
  };
}

/** The terminal, when the caller's areas reach it (one of its areas is theirs); else 404. */
async function visibleDevice(db: Queryable, c: ReportParts, serial: string, caller: Caller): Promise<DeviceRow> {
  const device = await c.devices.findBySerial(db, serial);
  if (device && caller.areas.length > 0) {
    const names = (await c.devices.areaNamesOf(db, [device.id])).get(device.id) ?? [];
    if (!names.some((n) => caller.areas.includes(n))) throw new FpaError('not_found', 'no such device', { serial_number: serial });
  }
  if (!device) throw new FpaError('not_found', 'no such device', { serial_number: serial });
  return device;
}
