/**
 * What completeness (modules/completeness) and anomalies (modules/anomalies) read of the punch
 * table: punches counted per terminal (by the terminal's own local dates, through the dedupe
 * index, which starts with the device and holds the local time), and a person's punches near an
 * instant with the terminal that took them.
 */
import { and, eq, gt, gte, inArray, lte, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import { punchedWithin } from './buckets';
import { punches } from './tables';

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

/**
 * Punches kept from a terminal per local date (its wall time) within [fromTime, toTime], both
 * `YYYY-MM-DD HH:MM:SS`; only those stored after `afterSequence` when given.
 */
export async function countPerDateFromDevice(
  q: Queryable,
  deviceId: string,
  fromTime: string,
  toTime: string,
  afterSequence: number | null = null,
): Promise<Map<string, number>> {
  const date = sql<string>`substr(${punches.localTime}, 1, 10)`;
  const rows = await q
    .select({ date, n: sql<number>`count(*)` })
    .from(punches)
    .where(
      and(
        fromDevice(deviceId),
        gte(punches.localTime, fromTime),
        lte(punches.localTime, toTime),
        afterSequence === null ? undefined : gt(punches.sequence, afterSequence),
      ),
    )
    .groupBy(date);
  return new Map(rows.map((r) => [r.date, r.n]));
}

/** A person's punch near another, with the terminal that took it (null: manual or imported). */
export interface NearbyPunch {
  id: string;
  enrolleeId: string;
  deviceId: string | null;
  deviceSerial: string | null;
  at: number;
}

/** The counted (not voided) punches of these people in [start, end], oldest first. */
export async function punchesNear(q: Queryable, enrolleeIds: readonly string[], start: number, end: number): Promise<NearbyPunch[]> {
  const out: NearbyPunch[] = [];
  for (const ids of chunks([...new Set(enrolleeIds)], 400)) {
    const rows = await q
      .select({ id: punches.id, enrolleeId: punches.enrolleeId, deviceId: punches.deviceId, deviceSerial: punches.deviceSerial, punchedAt: punches.punchedAt })
      .from(punches)
      .where(and(punchedWithin(start, end + 1), inArray(punches.enrolleeId, ids), eq(punches.voided, false)));
    for (const r of rows) {
      const device = r.deviceId === '' ? null : r.deviceId;
      out.push({ id: r.id, enrolleeId: r.enrolleeId!, deviceId: device, deviceSerial: device ? r.deviceSerial : null, at: r.punchedAt });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Adds flags to one stored punch (anomalies: a flag a punch earns once stored). */
export async function addPunchFlags(q: Queryable, punchId: string, flags: readonly string[]): Promise<void> {
  if (flags.length === 0) return;
  const [row] = await q.select({ flags: punches.flags }).from(punches).where(eq(punches.id, punchId)).limit(1);
  if (!row) return;
  const next = [...row.flags, ...flags.filter((f) => !row.flags.includes(f))];
  if (next.length !== row.flags.length) await q.update(punches).set({ flags: next }).where(eq(punches.id, punchId));
}
