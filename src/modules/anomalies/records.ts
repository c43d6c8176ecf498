/**
 * An anomaly kept and announced, or taken away: the row, the punch's flag and the event go
 * together, in the caller's write (service.ts as punches are stored, on-leave.ts as leave
 * changes: many at once, a few statements for all of them).
 */
import { and, eq, getTableName, inArray } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { WriteContext } from '../../platform/db/client';
import { insertFromJsonSql, jsonRows } from '../../platform/db/json-rows';
import type { EventChannel } from '../events';
import { addPunchFlags, type NearbyPunch, type PunchView, setPunchFlag } from '../punches';
import type { Found } from './detect';
import type { AnomalyEvents } from './events';
import type { AnomalyView } from './model';
import { type AnomalyKind, type AnomalyRow, anomalies } from './tables';

/** Rows per insert (one JSON value each statement). */
const INSERT_CHUNK = 2000;
/** Ids per delete or read. */
const ID_CHUNK = 500;

/** Keeps a punch's anomalies, announces each (`anomaly_detected`), and adds their kinds to its flags. */
export async function keepAnomalies(
  w: WriteContext,
  events: EventChannel<AnomalyEvents>,
  p: PunchView,
  found: readonly Found[],
  when: { at: number; date: string; now: number },
): Promise<void> {
  for (const f of found) {
    const row: AnomalyRow = {
      id: Bun.randomUUIDv7(),
      kind: f.kind,
      punchId: p.id,
      enrolleeId: p.enrollee!,
      employeeKey: p.employee,
      deviceSerial: p.device,
      at: when.at,
      date: when.date,
      details: f.details,
      createdAt: when.now,
    };
    await w.tx.insert(anomalies).values(row);
    await events.record(w, 'anomaly_detected', { anomaly: anomalyView(row) });
  }
  const kinds = found.map((f) => f.kind);
  await addPunchFlags(w.tx, p.id, kinds);
  // The punch as this write's in-process listeners get it (`punch_received`, delivered after the
  // commit) carries the flags too, as the stored row does.
  for (const kind of kinds) if (!p.flags.includes(kind)) p.flags.push(kind);
}

/** One anomaly of one kind found on a stored punch (on-leave.ts): the punch as a neighbour, with its employee key. */
export interface FoundOn {
  punch: NearbyPunch;
  employee: string | null;
  details: Record<string, unknown>;
  date: string;
}

const INSERT_SQL = insertFromJsonSql(
  getTableName(anomalies),
  ['id', 'kind', 'punch_id', 'enrollee_id', 'employee_key', 'device_serial', 'at', 'date', 'details', 'created_at'],
  '',
  ['details'],
);

/**
 * Keeps one anomaly of `kind` on each of these stored punches, as keepAnomalies would one by
 * one: the rows, their `anomaly_detected` and the punches' flag, a statement for many of each
 * (one by one, 5,000 held the writer 7.7 s).
 */
export async function keepEach(w: WriteContext, events: EventChannel<AnomalyEvents>, kind: AnomalyKind, found: readonly FoundOn[], now: number): Promise<void> {
  if (found.length === 0) return;
  const rows: AnomalyRow[] = found.map((f) => ({
    id: Bun.randomUUIDv7(),
    kind,
    punchId: f.punch.id,
    enrolleeId: f.punch.enrolleeId,
    employeeKey: f.employee,
    deviceSerial: f.punch.deviceSerial,
    at: f.punch.at,
    date: f.date,
    details: f.details,
    createdAt: now,
  }));
  for (const some of chunks(rows, INSERT_CHUNK)) {
    await w.execute({
      sql: INSERT_SQL,
      args: [jsonRows(some.map((r) => [r.id, r.kind, r.punchId, r.enrolleeId, r.employeeKey, r.deviceSerial, r.at, r.date, r.details, r.createdAt]))],
    });
  }
  await events.recordMany(
    w,
    'anomaly_detected',
    rows.map((row) => ({ data: { anomaly: anomalyView(row) } })),
  );
  await setPunchFlag(
    w.execute,
    rows.map((r) => r.punchId),
    kind,
    true,
  );
}

/**
 * Takes these anomalies away: the rows deleted and each announced (`anomaly_removed`, as it
 * was listed), and its kind taken off its punch's flags unless another anomaly of that kind
 * stays on the punch.
 */
export async function dropAnomalies(w: WriteContext, events: EventChannel<AnomalyEvents>, rows: readonly AnomalyRow[]): Promise<void> {
  if (rows.length === 0) return;
  for (const some of chunks(rows, ID_CHUNK)) {
    await w.tx.delete(anomalies).where(
      inArray(
        anomalies.id,
        some.map((r) => r.id),
      ),
    );
  }
  await events.recordMany(
    w,
    'anomaly_removed',
    rows.map((row) => ({ data: { anomaly: anomalyView(row) } })),
  );
  for (const kind of new Set(rows.map((r) => r.kind))) {
    const punchIds = [...new Set(rows.filter((r) => r.kind === kind).map((r) => r.punchId))];
    const staying = new Set<string>();
    for (const some of chunks(punchIds, ID_CHUNK)) {
      const held = await w.tx
        .select({ punchId: anomalies.punchId })
        .from(anomalies)
        .where(and(eq(anomalies.kind, kind), inArray(anomalies.punchId, some)));
      for (const h of held) staying.add(h.punchId);
    }
    await setPunchFlag(
      w.execute,
      punchIds.filter((id) => !staying.has(id)),
      kind,
      false,
    );
  }
}

/** The wire shape of one anomaly (`anomalies/`, its events). */
export function anomalyView(r: AnomalyRow): AnomalyView {
  return {
    id: r.id,
    kind: r.kind,
    employee: r.employeeKey,
    enrollee: r.enrolleeId,
    device: r.deviceSerial,
    punch: r.punchId,
    at: new Date(r.at).toISOString(),
    date: r.date,
    details: r.details,
    detected_at: new Date(r.createdAt).toISOString(),
  };
}
