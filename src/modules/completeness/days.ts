/**
 * `devices/{sn}/completeness/`: per local date of the terminal, the punches stored from it, what
 * it holds as far as known, what re-uploads recovered, and a status (status.ts: `recovering`,
 * `gap`, `possible_gap`, `complete` or `unknown`, by the rules listed there; the dates a gap may
 * lie on from the re-uploads finished during it, evidence.ts).
 */
import type { Static } from '@sinclair/typebox';
import { and, between, eq } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { Caller } from '../../platform/http/caller';
import { addDays, isCalendarDate } from '../../platform/time/dates';
import type { DeviceRow, DeviceService } from '../devices';
import { countPerDateFromDevice } from '../punches';
import { coversWholeDate, evidenceSpans, gapWindows, spanOn, type WallTime } from './evidence';
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
  const wall = (at: number) => c.recoveries.wallTime(device, at);
  const done = await c.recoveries.doneWithin(db, device.id, evidenceSpans(state));
  const counts = countsByDate(state, wall, done, wall(device.approvedAt ?? device.createdAt).slice(0, 10), today);
  const facts: DateFacts[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) {
    const n = stored.get(date) ?? 0;
    const row = known.get(date) ?? null;
    const recovering = recoveries.some((r) => covers(r, date) && (r.status === 'planned' || r.status === 'queued' || r.status === 'answered'));
    const source = row ? (recoveries.find((r) => r.status === 'done' && r.finishedAt === row.reportedAt && covers(r, date)) ?? null) : null;
    // A row whose re-upload is not found (never, as finish writes both at once) is read as before: the whole date.
    const reupload = row ? { count: row.reported, whole: source ? coversWholeDate(source, date, wall) : true } : null;
    facts.push({ date, stored: n, row, source, ...dayStatus({ date, stored: n, recovering, reupload }, counts) });
  }
  const agreements = await storedAtAgreements(db, device.id, facts, state);
  const days = facts.map((f) => ({ date: f.date, stored: f.stored, ...reportedOf(f, agreements), recovered: f.row?.recovered ?? 0, status: f.status }));
  return {
    serial_number: device.serialNumber,
    from,
    to,
    counts: {
      reported: state?.reportedCount ?? null,
      reported_at: iso(state?.reportedAt ?? null),
      agreed_at: iso(state?.agreedAt ?? null),
      missing: state?.gapSince != null ? state.gapMissing : null,
      cleared_at: iso(state?.clearedAt ?? null),
      missing_at_clear: state?.missingAtClear ?? null,
    },
    days,
    recoveries: recoveries.slice(0, 50).map(recoveryView),
  };
}

type PunchDayRow = typeof punchDays.$inferSelect;
type Agreement = 'agreed' | 'agreed_before_clear';
/** A date as dayStatus read it, with what the terminal said of it (a re-upload's row and the re-upload). */
type DateFacts = { date: string; stored: number; row: PunchDayRow | null; source: RecoveryRow | null; status: Day['status']; byCount: Agreement | null };
/** Per agreement a complete date rests on: when, and the punches of each date stored by then. */
type Agreements = Map<Agreement, { at: number; stored: Map<string, number> }>;

/**
 * What the terminal said of a date: a re-upload's count of the records it re-sent, with the part of
 * the date its range covered; else, for a date complete by its count, the punches of the date
 * stored when that count agreed (what the count vouched for then, not what is stored now).
 */
function reportedOf(f: DateFacts, agreements: Agreements): Pick<Day, 'reported' | 'reported_at' | 'reported_by' | 'reported_from' | 'reported_to'> {
  if (f.row) {
    const span = f.source ? spanOn(f.source, f.date) : { from: null, to: null };
    return { reported: f.row.reported, reported_at: iso(f.row.reportedAt), reported_by: 'reupload', reported_from: span.from, reported_to: span.to };
  }
  const agreement = f.byCount ? agreements.get(f.byCount) : undefined;
  if (!agreement) return { reported: null, reported_at: null, reported_by: null, reported_from: null, reported_to: null };
  return { reported: agreement.stored.get(f.date) ?? 0, reported_at: iso(agreement.at), reported_by: 'count', reported_from: null, reported_to: null };
}

/** The punches of each date complete by a count that were stored by the moment that count agreed. */
async function storedAtAgreements(db: Queryable, deviceId: string, facts: readonly DateFacts[], state: PunchCountRow | null): Promise<Agreements> {
  const out: Agreements = new Map();
  for (const [agreement, at] of [
    ['agreed', state?.agreedAt ?? null],
    ['agreed_before_clear', state?.agreedBeforeClearAt ?? null],
  ] as const) {
    const dates = facts.filter((f) => f.byCount === agreement).map((f) => f.date);
    if (at === null || dates.length === 0) continue;
    const stored = await countPerDateFromDevice(db, deviceId, `${dates[0]} 00:00:00`, `${dates.at(-1)} 23:59:59`, { receivedBy: at });
    out.set(agreement, { at, stored });
  }
  return out;
}

/**
 * The terminal's counts in its local dates. A count that fell (a cleared log, a reset terminal)
 * keeps the agreement in force then and the gap open then (its loss) for the dates up to the
 * clear; each gap is the window of dates its records may bear (evidence.ts).
 */
function countsByDate(state: PunchCountRow | null, wall: WallTime, done: readonly RecoveryRow[], since: string, today: string): CountsByDate {
  const dateOf = (at: number | null | undefined) => (at == null ? null : wall(at).slice(0, 10));
  const clearedDate = dateOf(state?.clearedAt);
  const { gap, atClear } = gapWindows(state, done, wall, today);
  return {
    since,
    today,
    agreed: dateOf(state?.agreedAt),
    gap,
    cleared: clearedDate === null ? null : { date: clearedDate, agreed: dateOf(state?.agreedBeforeClearAt), gap: atClear },
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
