/** Helpers of the attendance, retention and job tests: people, a terminal and its punches. */
import { expect } from 'bun:test';
import type { DeviceRow } from '../../src/modules/devices/tables';
import type { IncomingPunch } from '../../src/modules/punches/service';
import { localWallTimeToUtc } from '../../src/platform/time/zone';
import type { TestServer } from './harness';

export interface Person {
  employee: string;
  id: string;
  pin: string;
}

/** Creates built-in employees and their enrollees through the admin API. */
export async function createPeople(server: TestServer, employees: string[]): Promise<Record<string, Person>> {
  const out: Record<string, Person> = {};
  for (const employee of employees) {
    const e = await server.admin.post('/employees/', { id: employee, name: `Person ${employee}` });
    expect(e.status).toBe(201);
    const r = await server.admin.post('/enrollees/', { employee });
    expect(r.status).toBe(201);
    out[employee] = { employee, id: r.body.id, pin: r.body.device_pin };
  }
  return out;
}

/**
 * A terminal as the punch service sees it (registered on first contact). With `areas` it is
 * approved into them: a punch is an enrollee's only at a terminal of their areas (or one that
 * holds their user), so people outside the default area need it.
 */
export async function terminal(server: TestServer, serial: string, areas?: string[]): Promise<DeviceRow> {
  const device = await server.fpa.service.devices.registration.touch(serial);
  if (!areas) return device;
  await server.fpa.service.approveDevice(serial, { by: 'test', areas });
  return server.fpa.service.devices.get(serial);
}

/** ATTLOG lines of one PIN at wall times of `timeZone` (`YYYY-MM-DD HH:MM:SS`). */
export function linesAt(timeZone: string, pin: string, ...localTimes: string[]): IncomingPunch[] {
  return localTimes.map((localTime) => {
    const resolved = localWallTimeToUtc(localTime, timeZone);
    if (!resolved) throw new Error(`bad local time ${localTime}`);
    return {
      pin,
      localTime,
      punchedAt: resolved.utc.getTime(),
      utcOffsetMinutes: resolved.offsetMinutes,
      state: 0,
      verifyType: 1,
      workCode: '0',
      extra: [],
      raw: `${pin}\t${localTime}\t0\t1\t0`,
    };
  });
}

/** Uploads punches the way the ADMS endpoint does (one transaction per batch). */
export function upload(server: TestServer, device: DeviceRow, lines: IncomingPunch[]) {
  return server.fpa.service.punches.ingest(device, lines);
}

/** The attendance day of one employee on one date, through the API. */
export async function dayOf(server: TestServer, employee: string, date: string) {
  const res = await server.admin.get(`/attendance-days/?employee=${encodeURIComponent(employee)}&from=${date}&to=${date}`);
  expect(res.status).toBe(200);
  return res.body.results[0] ?? null;
}
