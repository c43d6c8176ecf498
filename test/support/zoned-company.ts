/**
 * A company whose branches keep time zones of their own (README "Time zones"), set up through the
 * real API: terminals entered first with their zone and area, as an installer does (their punches
 * are read in it from the first), and people enrolled in one area each.
 */
import { expect } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import type { TestServer } from './harness';

async function created(server: TestServer, path: string, body: unknown): Promise<{ id: string; device_pin: string }> {
  const res = await server.admin.post(path, body);
  expect({ path, status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ path, status: 201, body: null });
  return res.body;
}

/** `[serial, zone, area]` each: pre-registered with its zone in its area, then heard from (its clock the test's). */
export async function zonedTerminals(
  server: TestServer,
  list: readonly (readonly [string, string, string])[],
  now: () => number,
): Promise<Record<string, SimulatedTerminal>> {
  const terminals: Record<string, SimulatedTerminal> = {};
  for (const [sn, zone, area] of list) {
    await created(server, '/devices/', { serial_number: sn, time_zone: zone, areas: [area] });
    terminals[sn] = new SimulatedTerminal({ url: server.url, sn, timeZone: zone, now });
    await terminals[sn].handshake();
  }
  return terminals;
}

/** `[employee, area]` each: `Person <employee>` in the directory, enrolled in that area; their enrollee id and PIN. */
export async function peopleIn(server: TestServer, list: readonly (readonly [string, string])[]): Promise<Record<string, { id: string; pin: string }>> {
  const people: Record<string, { id: string; pin: string }> = {};
  for (const [employee, area] of list) {
    await created(server, '/employees/', { id: employee, name: `Person ${employee}` });
    const enrollee = await created(server, '/enrollees/', { employee, areas: [area] });
    people[employee] = { id: enrollee.id, pin: enrollee.device_pin };
  }
  return people;
}
