/**
 * Consent recorded after a walk-up refusal (README "Walk-up by PIN"): a person without consent
 * enrolls a finger at a terminal's menu; the upload is refused (`consent_required`) and a delete
 * of that finger is queued there. Consent recorded before the terminal's next poll drops that
 * delete, so the query of the person's fingerprints finds the finger: it is stored and sent to
 * their other terminals. Before, the terminal was sent the delete first, then the query, which
 * found nothing: the person had to enroll again. A delete already sent stays (the finger is gone).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain, enrolledPerson } from '../support/terminals';

interface Command {
  id: number;
  kind: string;
  status: string;
  payload: Record<string, unknown>;
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function commandsOf(sn: string): Promise<Command[]> {
  const res = await server.admin.get(`/devices/${sn}/commands/?limit=500`);
  expect(res.status).toBe(200);
  return res.body.results as Command[];
}

async function fingersOf(id: string): Promise<{ finger_index: number; source: string }[]> {
  const res = await server.admin.get(`/enrollees/${id}/templates/`);
  expect(res.status).toBe(200);
  return (res.body.results ?? res.body) as { finger_index: number; source: string }[];
}

async function refusedAt(terminal: SimulatedTerminal, pin: string, finger: number): Promise<Command> {
  expect((await terminal.enrollFinger(pin, finger)).body).toBe('OK:1');
  const deletes = (await commandsOf(terminal.sn)).filter((c) => c.kind === 'delete_template' && c.payload.pin === pin && c.payload.fingerIndex === finger);
  expect(deletes.map((c) => c.status)).toEqual(['pending']);
  return deletes[0]!;
}

const consent = (id: string) => server.admin.post(`/enrollees/${id}/consent/`, { version: 'v1', method: 'paper' });

describe('consent recorded after a walk-up refusal for want of it', () => {
  test('drops the unsent delete: the query finds the finger, which is stored and sent to the other terminals', async () => {
    const gate = await approvedTerminal(server, 'CONS1', ['north']);
    const other = await approvedTerminal(server, 'CONS2', ['north']);
    const person = await enrolledPerson(server, 'C-1', 'Cleo One', ['north']);
    await drain(gate);
    await drain(other);
    const refusal = await refusedAt(gate, person.device_pin, 4);
    expect((await consent(person.id)).status).toBe(201);
    expect((await commandsOf('CONS1')).find((c) => c.id === refusal.id)?.status).toBe('superseded');
    const sent = await drain(gate);
    expect(sent.some((t) => t.includes('DELETE'))).toBe(false);
    expect(gate.templates.has(`${person.device_pin}:4`)).toBe(true);
    expect((await fingersOf(person.id)).map((t) => [t.finger_index, t.source])).toEqual([[4, 'device']]);
    expect((await drain(other)).some((t) => t.startsWith('DATA UPDATE FINGERTMP') && t.includes('FID=4'))).toBe(true);
  });

  test('a user adopted from the terminal: the delete is dropped, and the query consent asks for there finds the finger', async () => {
    const gate = await approvedTerminal(server, 'CONS5', ['north'], { existingUsers: [{ pin: '77', name: 'Old Seven' }] });
    expect((await server.admin.post('/employees/', { id: 'C-5', name: 'Old Seven' })).status).toBe(201);
    const adopted = await server.admin.post('/devices/CONS5/users/77/adopt/', { employee: 'C-5' });
    expect(adopted.status).toBe(201);
    await drain(gate);
    const refusal = await refusedAt(gate, '77', 4);
    expect((await consent(adopted.body.id)).status).toBe(201);
    const queue = (await commandsOf('CONS5')).filter((c) => c.id >= refusal.id);
    expect(queue.map((c) => [c.kind, c.status])).toEqual([
      ['delete_template', 'superseded'],
      ['query_templates', 'pending'],
    ]);
    const sent = await drain(gate);
    expect(sent.some((t) => t.includes('DELETE'))).toBe(false);
    expect((await fingersOf(adopted.body.id)).map((t) => [t.finger_index, t.source])).toEqual([[4, 'device']]);
  });

  test('a delete already sent stays: the terminal deleted the finger', async () => {
    const gate = await approvedTerminal(server, 'CONS3', ['south'], { respond: (c) => (c.text.startsWith('DATA DELETE') ? 'ignore' : undefined) });
    const person = await enrolledPerson(server, 'C-2', 'Cleo Two', ['south']);
    await drain(gate);
    const refusal = await refusedAt(gate, person.device_pin, 4);
    expect((await gate.poll()).map((c) => c.text.startsWith('DATA DELETE'))).toEqual([true]);
    expect((await consent(person.id)).status).toBe(201);
    expect((await commandsOf('CONS3')).find((c) => c.id === refusal.id)?.status).toBe('sent');
  });

  test('a refusal for another reason keeps its delete: a finger outside the terminal’s areas', async () => {
    const gate = await approvedTerminal(server, 'CONS4', ['east']);
    const person = await enrolledPerson(server, 'C-3', 'Cleo Three', ['west']);
    const refusal = await refusedAt(gate, person.device_pin, 2);
    expect((await consent(person.id)).status).toBe(201);
    expect((await commandsOf('CONS4')).find((c) => c.id === refusal.id)?.status).toBe('pending');
  });
});
