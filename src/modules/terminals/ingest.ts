/**
 * Attendance from terminals: ATTLOG lines (2.x) and rtlog events (3.x) become punches. A
 * terminal runs on the fixed UTC offset it was last told at a handshake, not on its zone's
 * rules: each wall time is read with the offset the terminal ran on when it was recorded (the
 * history of offsets told, devices `clockOffsets`), so punches between a DST change and the
 * terminal's next handshake are not an hour off. A wall time from before the history (or of a
 * terminal never told) is converted with the zone's rules; DST gaps and overlaps are resolved as
 * platform/time/zone.ts documents and the resolution is kept as a flag. Real-time uploads also
 * measure the terminal's clock drift. Bad lines are logged as device events and skipped; they
 * never cost the good lines beside them.
 */

import { localWallTimeToUtc, resolutionFlags, timeZoneOffsetMinutes } from '../../platform/time/zone';
import { counted } from '../../platform/words';
import type { AttlogRecord, LineError } from '../../protocol/adms';
import { type DeviceRow, type DeviceService, noteOnDevice } from '../devices';
import type { IncomingPunch, IngestResult, PunchService } from '../punches';
import type { TerminalRuntime } from './runtime';

const DAY_MS = 86_400_000;
/** A year before this means the terminal's clock was reset (dead RTC battery: 2000-01-01). */
const FIRST_PLAUSIBLE_YEAR = 2001;
/** An upload whose newest punch is this close to now was sent as it happened (realtime). */
const REAL_TIME_MS = 15 * 60_000;
/** Records in an upload sent as they happen (one punch, or a few at a busy door); more is a backlog. */
const REAL_TIME_RECORDS = 4;
/** Drift is measured to within an upload's delay: changes smaller than this are not written. */
const DRIFT_RESOLUTION_S = 10;
/** Raw text of a bad line kept in its device event, enough to find it on the terminal. */
const RAW_EXCERPT = 200;

/** The offsets a terminal was told, oldest first. */
export type OffsetHistory = readonly { since: number; offsetMinutes: number }[];

/** A wall time read with one offset told: the instant it gives and that offset. */
interface ToldReading {
  utc: number;
  offsetMinutes: number;
}

/**
 * Every reading of a wall time with the offsets told whose instant falls inside the period that
 * offset was told, earliest first. Two or more when the offset went back (a DST change, a zone
 * changed) and the terminal showed this wall time on both sides of the handshake.
 */
function toldReadings(localTime: string, history: OffsetHistory): ToldReading[] {
  const asIfUtc = Date.parse(`${localTime.replace(' ', 'T')}Z`);
  if (Number.isNaN(asIfUtc)) return [];
  const readings: ToldReading[] = [];
  history.forEach((told, i) => {
    const until = history[i + 1]?.since ?? Number.POSITIVE_INFINITY;
    const utc = asIfUtc - told.offsetMinutes * 60_000;
    if (utc >= told.since && utc < until) readings.push({ utc, offsetMinutes: told.offsetMinutes });
  });
  return readings.sort((a, b) => a.utc - b.utc);
}

/**
 * A wall time read with the offset the terminal ran on when it was recorded. Of several readings
 * the earlier is taken, as for a zone's own overlap, and the wall time is `ambiguous`, unless
 * only one could have happened by the upload: a reading more than REAL_TIME_MS after `now` (a
 * clock a little ahead still counts) is a punch still to come. Null when no period holds it
 * (recorded before the history).
 */
export function byToldOffset(localTime: string, history: OffsetHistory, now: number): (ToldReading & { ambiguous: boolean }) | null {
  const readings = toldReadings(localTime, history);
  const first = readings[0];
  if (!first) return null;
  const possible = readings.filter((r) => r.utc <= now + REAL_TIME_MS).length;
  // All in the future: the clock is wrong (`future_time`), and which one says nothing.
  return { ...first, ambiguous: possible > 1 || (possible === 0 && readings.length > 1) };
}

/** Flags and UTC instant for one device wall time; null when the time cannot be converted. */
export function toIncomingPunch(record: AttlogRecord, timeZone: string, now: number, history: OffsetHistory = []): IncomingPunch | null {
  const resolved = localWallTimeToUtc(record.localTime, timeZone);
  if (!resolved) return null;
  const flags: string[] = [];
  const told = byToldOffset(record.localTime, history, now);
  let punchedAt = resolved.utc.getTime();
  let offsetMinutes = resolved.offsetMinutes;
  if (told) {
    punchedAt = told.utc;
    offsetMinutes = told.offsetMinutes;
    if (told.ambiguous) flags.push('dst_overlap');
    // The terminal still ran on an offset its zone no longer had then (its next handshake was to come).
    if (told.offsetMinutes !== timeZoneOffsetMinutes(timeZone, new Date(told.utc))) flags.push('stale_offset');
  } else flags.push(...resolutionFlags(resolved.resolution));
  if (punchedAt > now + DAY_MS) flags.push('future_time');
  if (Number(record.localTime.slice(0, 4)) < FIRST_PLAUSIBLE_YEAR) flags.push('clock_reset');
  // A state the terminal sent that says nothing (its line keeps it): the punch counts all the same.
  if (record.stateUnknown) flags.push('unknown_state');
  if (record.verifyUnknown) flags.push('unknown_verify');
  return {
    pin: record.pin,
    localTime: record.localTime,
    punchedAt,
    utcOffsetMinutes: offsetMinutes,
    state: record.state,
    verifyType: record.verifyType,
    workCode: record.workCode,
    extra: record.extra,
    raw: record.raw,
    flags,
  };
}

export interface MalformedLine {
  line: number;
  reason: string;
  /** Only for lines that cannot carry template data (attendance); never for OPERLOG/BIODATA. */
  excerpt?: string;
}

/** Runs this long of base64 characters never occur in attendance or error records. */
const BASE64_RUN = /[A-Za-z0-9+/]{24,}={0,2}/g;

/**
 * Device text for a log: long base64 runs are withheld, because a terminal (or anyone posing
 * as one) may send a template or photo where it does not belong, and those are never logged.
 */
export function withholdBase64(text: string): string {
  return text.replace(BASE64_RUN, (run) => `[${run.length} base64 characters withheld]`);
}

/**
 * The keys of a user record whose values are secrets (a USER / 3.x `user` line, or one sent where
 * it does not belong): the password, given at the terminal's menu and sealed when kept
 * (devices/user-passwords.ts), and the cards, whose numbers open doors.
 */
const SECRET_KEY = /^(passwd|password|card|cardno|vicecard)$/i;

/** A secret key's `=` and value in device text: after a TAB, a space (the keyword), `&` or a quote (a reason quoting a field). */
const SECRET_PAIR = /(^|[\t &"])(passwd|password|card|cardno|vicecard)(\s*=)([^\t\r\n"&]+)/gi;

/**
 * Device text for a log: long base64 runs (withholdBase64) and the values of a user record's
 * secrets (`Passwd=[withheld]`, `Card=[withheld]`) are withheld, wherever the line was sent.
 */
export function withholdSecrets(text: string): string {
  return withholdBase64(text).replace(SECRET_PAIR, (_pair, lead: string, key: string, equals: string) => `${lead}${key}${equals}[withheld]`);
}

/** A field of device text for a log: a secret's value withheld whole, any other's base64 runs. */
export function withholdField(key: string, value: string): string {
  return SECRET_KEY.test(key.trim()) && value.trim() !== '' ? '[withheld]' : withholdSecrets(value);
}

/**
 * Line errors of an attendance parser, with an excerpt of the raw text: never its health data,
 * which those parsers leave out of the line they quote (protocol/adms/health.ts), nor a template,
 * password or card (withholdSecrets).
 */
export function attendanceErrors(errors: LineError[]): MalformedLine[] {
  return errors.map((e) => ({ line: e.line, reason: withholdSecrets(e.reason), excerpt: withholdSecrets(e.raw).slice(0, RAW_EXCERPT) }));
}

/** Line errors of a table that may carry templates: reason and line number only. */
export function redactedErrors(errors: LineError[]): MalformedLine[] {
  return errors.map((e) => ({ line: e.line, reason: withholdSecrets(e.reason) }));
}

/** Attendance records from a terminal to punches, and the device log of what could not be used. */
export class AttendanceIngest {
  constructor(
    private readonly ctx: TerminalRuntime,
    private readonly devices: DeviceService,
    private readonly punches: PunchService,
  ) {}

  /**
   * Stores attendance records as punches. Returns how many the terminal may count as accepted
   * (new ones and resent duplicates). Throws when the database fails, so the caller answers 5xx
   * and the terminal sends the batch again.
   */
  async ingest(
    device: DeviceRow,
    table: string,
    records: AttlogRecord[],
    errors: MalformedLine[],
    /** Flags every punch of this upload carries (`new_address`: devices/identity.ts). */
    flags: readonly string[] = [],
  ): Promise<IngestResult & { accepted: number }> {
    const now = this.ctx.clock.now();
    const timeZone = this.devices.timeZoneOf(device);
    const history = records.length > 0 ? await this.devices.reports.clockOffsets(this.ctx.db.orm, device.id) : [];
    const punches: IncomingPunch[] = [];
    const bad = [...errors];
    for (const record of records) {
      const punch = toIncomingPunch(record, timeZone, now, history);
      if (punch) punches.push(flags.length > 0 ? { ...punch, flags: [...(punch.flags ?? []), ...flags] } : punch);
      else
        bad.push({
          line: 0,
          reason: `time ${record.localTime} cannot be converted in zone ${timeZone}`,
          excerpt: withholdSecrets(record.raw).slice(0, RAW_EXCERPT),
        });
    }
    const result = await this.punches.ingest(device, punches);
    await this.logMalformed(device, table, bad);
    if (result.pastRetention > 0) await this.logPastRetention(device, table, punches, now);
    // Punches from an unconfirmed address say nothing about the approved terminal's clock, nor
    // does a batch holding punches already stored: a resend or a re-upload (DATA QUERY ATTLOG)
    // of records made minutes ago would read as a slow clock.
    if (flags.length === 0 && result.duplicates === 0) await this.measureDrift(device, punches, now);
    return { ...result, accepted: result.inserted + result.duplicates + result.pastRetention };
  }

  /**
   * Punches older than the retention horizon are acknowledged and not stored (the purge would
   * only take them again): said in the terminal's log, how many and of which dates, so a
   * terminal back after months away, or a re-upload reaching that far, loses none silently.
   */
  private async logPastRetention(device: DeviceRow, table: string, punches: IncomingPunch[], now: number): Promise<void> {
    const kept = new Set(this.punches.withinRetention(punches, now));
    const old = punches.filter((p) => !kept.has(p)).map((p) => p.punchedAt);
    const [oldest, newest] = [Math.min(...old), Math.max(...old)].map((ms) => new Date(ms).toISOString());
    const days = this.ctx.settings.RETENTION_PUNCHES_DAYS;
    await this.ctx.db.write(({ tx }) =>
      noteOnDevice(
        tx,
        device.id,
        'punches_past_retention',
        `${table}: ${counted(old.length, 'punch', 'punches')} older than RETENTION_PUNCHES_DAYS (${days} days) acknowledged and not stored: the retention purge keeps nothing older`,
        { table, count: old.length, oldest, newest, retention_days: days },
        now,
      ),
    );
    this.ctx.log.warn('terminal sent punches past the retention horizon: not stored', { device: device.serialNumber, table, count: old.length });
  }

  /**
   * A real-time upload (its newest punch within REAL_TIME of now) shows how far the terminal's
   * clock is off; a backlog says nothing, and is not mistaken for a slow clock. A punch ahead of
   * now by more than that is no backlog: the clock runs ahead (by hours: a wrong time zone), by
   * at least that much. The device keeps the measure; beyond DEVICE_CLOCK_DRIFT_MAX it is
   * flagged, and corrected with `set_time` when DEVICE_CLOCK_CORRECTION is on.
   */
  private async measureDrift(device: DeviceRow, punches: IncomingPunch[], now: number): Promise<void> {
    // A record more than a day ahead (`future_time`) or before FIRST_PLAUSIBLE_YEAR
    // (`clock_reset`) cannot be a real time. Beside real-time ones it is a corrupt record and says
    // nothing of the clock; but an upload of nothing else comes from a clock that is wrong (a
    // flat battery resets it to 2000-01-01, a wrong year puts it ahead), and its newest record
    // is the best measure of how wrong: far past any limit, so the terminal is flagged and, with
    // DEVICE_CLOCK_CORRECTION, set right. One pass, on every upload.
    let newest = Number.NEGATIVE_INFINITY;
    let newestImpossible = Number.NEGATIVE_INFINITY;
    for (const p of punches) {
      if (p.punchedAt > now + DAY_MS || p.flags?.includes('clock_reset')) newestImpossible = Math.max(newestImpossible, p.punchedAt);
      else if (p.punchedAt > newest) newest = p.punchedAt;
    }
    // Impossible records measure only in an upload as small as a real-time one: a batch of them is
    // a backlog (a history re-uploaded to a new server, a battery failure long since mended).
    const measured = newest === Number.NEGATIVE_INFINITY && punches.length <= REAL_TIME_RECORDS ? newestImpossible : newest;
    if (measured === Number.NEGATIVE_INFINITY || (measured === newest && now - newest > REAL_TIME_MS)) return;
    // Back from a silence a moment ago: a punch dated before its return was kept while it was
    // away (a network outage of a few minutes) and says nothing of its clock.
    const back = this.devices.registration.returnedAt(device.id);
    if (back !== undefined && now - back < REAL_TIME_MS && measured === newest && newest < back) return;
    const drift = Math.round((measured - now) / 1000);
    if (device.clockDriftSeconds !== null && Math.abs(drift - device.clockDriftSeconds) < DRIFT_RESOLUTION_S) return;
    await this.devices.reports.recordDrift(device, drift, { limitSeconds: this.ctx.settings.DEVICE_CLOCK_DRIFT_MAX / 1000 });
  }

  /** Logs skipped lines as `malformed_line` device events, in one small write. */
  async logMalformed(device: DeviceRow, table: string, lines: MalformedLine[]): Promise<void> {
    if (lines.length === 0) return;
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      for (const l of lines.slice(0, 100)) {
        await noteOnDevice(
          tx,
          device.id,
          'malformed_line',
          `${table} line ${l.line} skipped: ${l.reason}`,
          { table, line: l.line, reason: l.reason, ...(l.excerpt !== undefined ? { excerpt: l.excerpt } : {}) },
          now,
        );
      }
      if (lines.length > 100) {
        await noteOnDevice(tx, device.id, 'malformed_line', `${table}: ${lines.length - 100} more bad lines skipped`, { table, more: lines.length - 100 }, now);
      }
    });
    this.ctx.log.warn('terminal sent lines that could not be used', { device: device.serialNumber, table, count: lines.length });
  }
}
