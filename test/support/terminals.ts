/** What the end-to-end tests ask of terminals: run their queue dry, read their row and device log. */

import { expect } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import type { FingerprintAttendance } from '../../src/app/create';
import { deviceEvents, devices } from '../../src/app/schema';
import type { DeviceRow } from '../../src/modules/devices';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import type { TestServer } from './harness';

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

/** The `C:<id>:<text>` lines of one poll, which the test answers itself (or not). */
export async function takeCommands(t: SimulatedTerminal): Promise<{ id: string; text: string }[]> {
  const res = await t.get('getrequest');
  expect(res.status).toBe(200);
  return res.body
    .split('\n')
    .filter((l) => l.startsWith('C:'))
    .map((l) => {
      const [, id, ...rest] = l.split(':');
      return { id: id!, text: rest.join(':') };
    });
}

/** Answers these commands of the terminal with one `Return` code, as its `devicecmd` post. */
export async function answerCommands(t: SimulatedTerminal, ids: readonly string[], code = 0): Promise<void> {
  if (ids.length === 0) return;
  const res = await t.post('devicecmd', {}, ids.map((id) => `ID=${id}&Return=${code}&CMD=DATA\n`).join(''));
  expect(res.status).toBe(200);
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

/** A terminal that connected, approved into `areas`, its first commands run. */
export async function approvedTerminal(
  server: TestServer,
  sn: string,
  areas: string[],
  options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {},
): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, { areas })).status).toBe(200);
  await drain(t);
  return t;
}

/** A terminal that connected, approved into `areas` under a name, its first commands run. */
export async function namedTerminal(
  server: TestServer,
  sn: string,
  name: string,
  areas: string[],
  options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {},
): Promise<SimulatedTerminal> {
  const t = await approvedTerminal(server, sn, areas, options);
  expect((await server.admin.patch(`/devices/${sn}/`, { name })).status).toBe(200);
  await drain(t);
  return t;
}

/** An enrollee as the tests hold one: its id and device PIN. */
export interface EnrolledPerson {
  id: string;
  device_pin: string;
}

/** An employee enrolled into `areas`: the enrollee's id and device PIN. */
export async function enrolledPerson(server: TestServer, employee: string, name: string, areas: string[]): Promise<EnrolledPerson> {
  expect((await server.admin.post('/employees/', { id: employee, name })).status).toBe(201);
  const created = await server.admin.post('/enrollees/', { employee, areas });
  expect(created.status).toBe(201);
  return created.body as EnrolledPerson;
}

/** An enrollee of `area` (named `Person <employee>`) with consent on record and fingerprints 5 and 6 stored. */
export async function personWithFingers(server: TestServer, employee: string, area: string): Promise<EnrolledPerson> {
  const person = await enrolledPerson(server, employee, `Person ${employee}`, [area]);
  expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  for (const finger of [5, 6]) {
    await server.fpa.service.storeTemplate(person.id, finger, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), {
      algorithmVersion: '10',
      by: 'test',
    });
  }
  return person;
}
