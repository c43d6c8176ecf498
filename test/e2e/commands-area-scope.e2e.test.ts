/**
 * A terminal's command queue as a caller limited to areas sees it (README "Roles and areas"): on
 * a terminal shared by north and south, an installer of north sees the terminal's own commands
 * and those about north's people, never those about south's (their name, PIN, card), and cannot
 * cancel or retry them (404, as for a person it does not see). And for everyone: a command's
 * payload never shows a card number, only whether the user record carries one.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { type ApiClient, clientAs, startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain, type EnrolledPerson, enrolledPerson } from '../support/terminals';

interface Command {
  id: number;
  kind: string;
  status: string;
  payload: Record<string, unknown>;
}

const SN = 'SHARED01';
const CARD = '4242424';
let server: TestServer;
let terminal: SimulatedTerminal;
let installer: ApiClient;
let north: EnrolledPerson;
let south: EnrolledPerson;

beforeAll(async () => {
  server = await startTestServer();
  terminal = await approvedTerminal(server, SN, ['south', 'north']);
  north = await enrolledPerson(server, 'N1', 'Person North', ['north']);
  south = await enrolledPerson(server, 'S1', 'Person South', ['south']);
  expect((await server.admin.patch(`/enrollees/${south.id}/`, { card: CARD })).status).toBe(200);
  installer = await clientAs(server, 'installer', ['north']);
});
afterAll(async () => {
  await server.close();
});

async function commandsAs(client: ApiClient): Promise<Command[]> {
  const res = await client.get(`/devices/${SN}/commands/?limit=500`);
  expect(res.status).toBe(200);
  return res.body.results as Command[];
}

const about = (c: Command, person: EnrolledPerson) => c.payload.enrollee === person.id || c.payload.pin === person.device_pin;

describe('the command queue of a terminal shared with another area', () => {
  test('an installer of north sees the terminal’s own commands and those of north’s people, none of south’s', async () => {
    expect((await installer.post(`/devices/${SN}/commands/`, { kind: 'info' })).status).toBe(201);
    const everyone = await commandsAs(server.admin);
    expect(everyone.some((c) => c.kind === 'add_user' && about(c, south))).toBe(true);
    const seen = await commandsAs(installer);
    expect(seen.filter((c) => about(c, south))).toEqual([]);
    expect(JSON.stringify(seen)).not.toContain(CARD);
    expect(JSON.stringify(seen)).not.toContain('Person South');
    // What names nobody stays, and north's person is there.
    expect(seen.some((c) => c.kind === 'info')).toBe(true);
    expect(seen.some((c) => c.kind === 'query_users')).toBe(true);
    expect(seen.some((c) => c.kind === 'add_user' && about(c, north))).toBe(true);
    // The person themselves is 404 to this caller, as their commands are absent.
    expect((await installer.get(`/enrollees/${south.id}/`)).status).toBe(404);
  });

  test('a command about a person of south is 404 to cancel and to retry for north, and stays as it was', async () => {
    const pending = (await commandsAs(server.admin)).find((c) => c.kind === 'add_user' && about(c, south) && c.status === 'pending');
    expect(pending).toBeDefined();
    const cancel = await installer.post(`/devices/${SN}/commands/${pending!.id}/cancel/`);
    expect(cancel.status).toBe(404);
    expect(JSON.stringify(cancel.body)).not.toContain(CARD);
    expect((await installer.post(`/devices/${SN}/commands/${pending!.id}/retry/`)).status).toBe(404);
    expect((await commandsAs(server.admin)).find((c) => c.id === pending!.id)?.status).toBe('pending');
  });

  test('a command that names south’s person by PIN only (a delete) is left out too', async () => {
    await drain(terminal);
    expect((await server.admin.patch(`/enrollees/${south.id}/`, { active: false })).status).toBe(200);
    const deletes = (await commandsAs(server.admin)).filter((c) => c.kind === 'delete_user' && c.payload.pin === south.device_pin);
    expect(deletes.length).toBeGreaterThan(0);
    expect(deletes.every((c) => c.payload.enrollee === undefined)).toBe(true);
    const seen = await commandsAs(installer);
    expect(seen.filter((c) => about(c, south))).toEqual([]);
    expect((await installer.post(`/devices/${SN}/commands/${deletes[0]!.id}/cancel/`)).status).toBe(404);
  });

  test('no one is shown a card number: a user record says only whether it carries one', async () => {
    const users = (await commandsAs(server.admin)).filter((c) => c.kind === 'add_user');
    expect(JSON.stringify(users)).not.toContain(CARD);
    expect(users.find((c) => about(c, south))?.payload.card).toBe(true);
    expect(users.find((c) => about(c, north))?.payload.card).toBe(false);
    expect((await commandsAs(installer)).find((c) => c.kind === 'add_user' && about(c, north))?.payload.card).toBe(false);
  });
});
