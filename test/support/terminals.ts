/** What the end-to-end tests ask of terminals: run their queue dry, read their row and device log. */
import { and, eq } from 'drizzle-orm';
import type { FingerprintAttendance } from '../../src/app/create';
import { deviceEvents, devices } from '../../src/app/schema';
import type { DeviceRow } from '../../src/modules/devices';
import type { SimulatedTerminal } from '../../src/simulator/terminal';

/** Polls until the terminal's queue is empty; returns every command text it ran. */
export async function drain(t: SimulatedTerminal): Promise<string[]> {
  const texts: string[] = [];
  for (let i = 0; i < 20; i++) {
    const got = await t.poll();
    if (got.length === 0) return texts;
    texts.push(...got.map((c) => c.text));
  }
  throw new Error(`${t.sn} never ran out of commands`);
}

/** The device row of a serial, or null when the service does not know it. */
export async function deviceRow(fpa: FingerprintAttendance, serial: string): Promise<DeviceRow | null> {
  const [row] = await fpa.db.orm.select().from(devices).where(eq(devices.serialNumber, serial)).limit(1);
  return row ?? null;
}

/** The device log entries of one kind for a known serial. */
export async function deviceLog(fpa: FingerprintAttendance, serial: string, kind: string) {
  const device = await deviceRow(fpa, serial);
  if (!device) throw new Error(`no device ${serial}`);
  return fpa.db.orm
    .select()
    .from(deviceEvents)
    .where(and(eq(deviceEvents.deviceId, device.id), eq(deviceEvents.kind, kind)));
}
