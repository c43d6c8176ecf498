/**
 * Reads for the proofs and diagnostics: terminals by id (removed ones too), the newest device
 * log entry of some kinds per terminal, and the terminals holding a communication key.
 */
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable } from '../../platform/db/client';
import { deviceEvents, deviceKeys, devices, removedDevices } from './tables';

export interface TerminalFacts {
  serialNumber: string;
  /** null: removed by an administrator. */
  status: string | null;
  lastSeenAt: number | null;
  removedAt: number | null;
}

/** Terminals by id, removed ones included (by their removal record). */
export async function terminalsByIds(q: Queryable, ids: readonly string[]): Promise<Map<string, TerminalFacts>> {
  const out = new Map<string, TerminalFacts>();
  for (const chunk of chunks([...new Set(ids)], 500)) {
    const live = await q
      .select({ id: devices.id, serialNumber: devices.serialNumber, status: devices.status, lastSeenAt: devices.lastSeenAt })
      .from(devices)
      .where(inArray(devices.id, chunk));
    for (const r of live) out.set(r.id, { serialNumber: r.serialNumber, status: r.status, lastSeenAt: r.lastSeenAt, removedAt: null });
    const missing = chunk.filter((id) => !out.has(id));
    if (missing.length === 0) continue;
    const gone = await q.select().from(removedDevices).where(inArray(removedDevices.deviceId, missing));
    for (const r of gone) out.set(r.deviceId, { serialNumber: r.serialNumber, status: null, lastSeenAt: r.facts.lastSeenAt ?? null, removedAt: r.removedAt });
  }
  return out;
}

export interface LogEntry {
  deviceId: string;
  kind: string;
  message: string;
  details: Record<string, unknown> | null;
  at: number;
}

/** The columns of a log entry as the diagnostics read it. */
const LOG_ENTRY = {
  deviceId: deviceEvents.deviceId,
  kind: deviceEvents.kind,
  message: deviceEvents.message,
  details: deviceEvents.details,
  at: deviceEvents.createdAt,
};

/** The newest device log entry of each of these kinds, per terminal. */
export async function newestLogEntries(q: Queryable, kinds: readonly string[]): Promise<LogEntry[]> {
  if (kinds.length === 0) return [];
  const newest = q
    .select({ id: sql<number>`max(${deviceEvents.id})` })
    .from(deviceEvents)
    .where(inArray(deviceEvents.kind, [...kinds]))
    .groupBy(deviceEvents.deviceId, deviceEvents.kind);
  return q.select(LOG_ENTRY).from(deviceEvents).where(inArray(deviceEvents.id, newest));
}

/** The newest device log entry of one kind on one terminal, or null. */
export async function newestLogEntryOf(q: Queryable, deviceId: string, kind: string): Promise<LogEntry | null> {
  const [row] = await q
    .select(LOG_ENTRY)
    .from(deviceEvents)
    .where(and(eq(deviceEvents.deviceId, deviceId), eq(deviceEvents.kind, kind)))
    .orderBy(desc(deviceEvents.id))
    .limit(1);
  return row ?? null;
}

/** Every terminal the service knows (the diagnostics look at each). */
export async function allTerminals(q: Queryable) {
  return q.select().from(devices);
}

/** The ids of the terminals holding a communication key that is not revoked. */
export async function terminalsWithKeys(q: Queryable): Promise<Set<string>> {
  const rows = await q.selectDistinct({ deviceId: deviceKeys.deviceId }).from(deviceKeys).where(isNull(deviceKeys.revokedAt));
  return new Set(rows.map((r) => r.deviceId));
}
