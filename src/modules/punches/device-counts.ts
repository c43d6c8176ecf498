/**
 * What completeness (modules/completeness) and anomalies (modules/anomalies) read of the punch
 * table: punches counted per terminal (by the terminal's own local dates, through the dedupe
 * index, which starts with the device and its local date), and a person's punches near an
 * instant with the terminal that took them, and punches by id as they are stored.
 */
import { and, desc, eq, getTableName, gt, gte, inArray, lte, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Execute, Queryable } from '../../platform/db/client';
import { placeholders } from '../../platform/db/placeholders';
import { BUCKET_SQL, bucketGroups } from './buckets';
import { NO_DEVICE, punches } from './tables';
import { type PunchView, punchView } from './view';

/** Punches a terminal sent (source `device`), voided ones included: they were kept. */
const fromDevice = (deviceId: string) => and(eq(punches.deviceId, deviceId), eq(punches.source, 'device'));

/** Punches kept from a terminal, all of them or those stored after a sequence. */
export async function countFromDevice(q: Queryable, deviceId: string, afterSequence: number | null = null): Promise<number> {
  const [row] = await q
    .select({ n: sql<number>`count(*)` })
    .from(punches)
    .where(afterSequence === null ? fromDevice(deviceId) : and(fromDevice(deviceId), gt(punches.sequence, afterSequence)));
  return row?.n ?? 0;
}

/** When the newest punch a terminal sent after `afterSequence` was stored; null when none (walks back from the newest punch). */
export async function newestFromDeviceAt(q: Queryable, deviceId: string, afterSequence: number): Promise<number | null> {
  const [row] = await q
    .select({ at: punches.receivedAt })
    .from(punches)
    .where(and(fromDevice(deviceId), gt(punches.sequence, afterSequence)))
    .orderBy(desc(punches.sequence))
    .limit(1);
  return row?.at ?? null;
}

/**
 * Punches kept from a terminal per local date (its wall time) within [fromTime, toTime], both
 * `YYYY-MM-DD HH:MM:SS`; only those stored after `afterSequence`, stored by the instant
 * `receivedBy`, or received from the instant `receivedFrom` on, when given.
 */
export async function countPerDateFromDevice(
  q: Queryable,
  deviceId: string,
  fromTime: string,
  toTime: string,
  {
    afterSequence = null,
    receivedBy = null,
    receivedFrom = null,
  }: { afterSequence?: number | null; receivedBy?: number | null; receivedFrom?: number | null } = {},
): Promise<Map<string, number>> {
  const date = sql<string>`substr(${punches.localTime}, 1, 10)`;
  const rows = await q
    .select({ date, n: sql<number>`count(*)` })
    .from(punches)
    .where(
      and(
        fromDevice(deviceId),
        // The dedupe index's own expression: the device's dates are sought, not all its punches.
        sql`${date} between ${fromTime.slice(0, 10)} and ${toTime.slice(0, 10)}`,
        gte(punches.localTime, fromTime),
        lte(punches.localTime, toTime),
        afterSequence === null ? undefined : gt(punches.sequence, afterSequence),
        receivedBy === null ? undefined : lte(punches.receivedAt, receivedBy),
        receivedFrom === null ? undefined : gte(punches.receivedAt, receivedFrom),
      ),
    )
    .groupBy(date);
  return new Map(rows.map((r) => [r.date, r.n]));
}

/** A person's punch near another, with the terminal that took it (null: manual or imported). */
export interface NearbyPunch {
  /** Its sequence: what orders punches of one instant (as the index does). */
  sequence: number;
  id: string;
  enrolleeId: string;
  deviceId: string | null;
  deviceSerial: string | null;
  at: number;
}

/**
 * The counted (not voided) punches of these people in [start, end], oldest first (then by
 * sequence), leaving out the sequences in `except` (punches the caller already holds: those it
 * has just stored). It runs in every upload's transaction (anomalies), so it is one raw
 * statement (people and exclusions as JSON values: no bind variable per person) that seeks
 * each (day bucket, person) of the enrollee index by equality (a range of buckets would scan
 * every person's punches of those days), and the exclusion is decided on the index entry (it
 * holds the sequence): only the rows returned are read, and reading a row back through the
 * driver costs more than finding it.
 */
export async function punchesNear(
  execute: Execute,
  enrolleeIds: readonly string[],
  start: number,
  end: number,
  except: readonly number[] = [],
): Promise<NearbyPunch[]> {
  const out: NearbyPunch[] = [];
  const skip = except.length > 0 ? ' and sequence not in (select value from json_each(?))' : '';
  const people = JSON.stringify([...new Set(enrolleeIds)]);
  for (const buckets of bucketGroups(start, end + 1)) {
    const { rows } = await execute({
      sql: `select sequence, id, enrollee_id, device_id, device_serial, punched_at from ${getTableName(punches)} where ${BUCKET_SQL} in (${placeholders(buckets.length)}) and enrollee_id in (select value from json_each(?)) and punched_at >= ? and punched_at <= ? and voided = 0${skip}`,
      args: [...buckets, people, start, end, ...(except.length > 0 ? [JSON.stringify(except)] : [])],
    });
    for (const r of rows) {
      const device = r.device_id === NO_DEVICE ? null : String(r.device_id);
      out.push({
        sequence: Number(r.sequence),
        id: String(r.id),
        enrolleeId: String(r.enrollee_id),
        deviceId: device,
        deviceSerial: device ? String(r.device_serial) : null,
        at: Number(r.punched_at),
      });
    }
  }
  return out.sort(byInstant);
}

/** Oldest first; punches of one instant in the order they were stored. */
export function byInstant(a: NearbyPunch, b: NearbyPunch): number {
  return a.at - b.at || a.sequence - b.sequence;
}

/** These punches as they are stored (anomalies: a stored punch that earned a flag later; a manual punch's answer). */
export async function punchesByIds(q: Queryable, ids: readonly string[]): Promise<PunchView[]> {
  const out: PunchView[] = [];
  for (const some of chunks([...ids], 500)) out.push(...(await q.select().from(punches).where(inArray(punches.id, some))).map(punchView));
  return out;
}

/** Adds flags to one stored punch (anomalies: a flag a punch earns once stored). */
export async function addPunchFlags(q: Queryable, punchId: string, flags: readonly string[]): Promise<void> {
  if (flags.length === 0) return;
  const [row] = await q.select({ flags: punches.flags }).from(punches).where(eq(punches.id, punchId)).limit(1);
  if (!row) return;
  const next = [...row.flags, ...flags.filter((f) => !row.flags.includes(f))];
  if (next.length !== row.flags.length) await q.update(punches).set({ flags: next }).where(eq(punches.id, punchId));
}

/** The employee key each of these punches was stored with, by id (anomalies keep it with theirs); one statement a few thousand. */
export async function employeeKeysOf(execute: Execute, punchIds: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const some of chunks([...punchIds], 5000)) {
    const { rows } = await execute({
      sql: `select p.id, p.employee_key from json_each(?) as j join ${getTableName(punches)} as p on p.id = j.value`,
      args: [JSON.stringify(some)],
    });
    for (const r of rows) out.set(String(r.id), r.employee_key === null ? null : String(r.employee_key));
  }
  return out;
}

/**
 * Puts one flag on many stored punches, or takes it off them, a statement per few thousand
 * (anomalies: the `while_on_leave` of every punch a change of leave touches, which may be a
 * year of everyone's). A punch that already has it (or has it not) is left as it is.
 */
export async function setPunchFlag(execute: Execute, punchIds: readonly string[], flag: string, on: boolean): Promise<void> {
  const table = getTableName(punches);
  const has = `exists (select 1 from json_each(${table}.flags) where value = ?)`;
  for (const some of chunks([...new Set(punchIds)], 5000)) {
    await execute({
      sql: on
        ? `update ${table} set flags = json_insert(flags, '$[#]', ?) where id in (select value from json_each(?)) and not ${has}`
        : `update ${table} set flags = (select coalesce(json_group_array(f.value), '[]') from json_each(${table}.flags) f where f.value <> ?) where id in (select value from json_each(?)) and ${has}`,
      args: [flag, JSON.stringify(some), flag],
    });
  }
}

/**
 * Which of these lines a terminal's punches already hold (any source), as the dedupe index keys
 * them: `PIN \t local time`. Read date by date through that index (device, local date), so a
 * file of two years asks for its own dates only.
 */
export async function storedOfDevice(q: Queryable, deviceId: string, lines: readonly { pin: string; localTime: string }[]): Promise<Set<string>> {
  const dates = [...new Set(lines.map((l) => l.localTime.slice(0, 10)))];
  const stored = new Set<string>();
  const date = sql<string>`substr(${punches.localTime}, 1, 10)`;
  for (const some of chunks(dates, 200)) {
    const rows = await q
      .select({ pin: punches.devicePin, localTime: punches.localTime })
      .from(punches)
      .where(and(eq(punches.deviceId, deviceId), inArray(date, some)));
    for (const r of rows) stored.add(`${r.pin}\t${r.localTime}`);
  }
  return stored;
}

/**
 * The punches (any terminal, or none) of these people at exactly these instants: each pair a
 * point lookup on the enrollee index (its day bucket, the person, the instant), one statement a
 * chunk, so the answer costs what the pairs are, not what the people punched besides.
 */
export async function punchesAt(
  execute: Execute,
  pairs: readonly { enrolleeId: string; at: number }[],
): Promise<{ id: string; enrolleeId: string; deviceId: string | null; at: number }[]> {
  const out: { id: string; enrolleeId: string; deviceId: string | null; at: number }[] = [];
  for (const chunk of chunks(pairs, 2_000)) {
    const { rows } = await execute({
      sql: `select p.id, p.enrollee_id, p.device_id, p.punched_at from json_each(?) as j join ${getTableName(punches)} as p
        on ${BUCKET_SQL} = (j.value ->> 1) / 86400000 and p.enrollee_id = j.value ->> 0 and p.punched_at = j.value ->> 1`,
      args: [JSON.stringify(chunk.map((p) => [p.enrolleeId, p.at]))],
    });
    for (const r of rows)
      out.push({
        id: String(r.id),
        enrolleeId: String(r.enrollee_id),
        deviceId: r.device_id === NO_DEVICE ? null : String(r.device_id),
        at: Number(r.punched_at),
      });
  }
  return out;
}
