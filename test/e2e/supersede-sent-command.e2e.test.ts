/**
 * A command that once went to a terminal keeps its id for its own content: when consent is
 * withdrawn while a fingerprint upload the terminal took (and never answered in time) waits to be
 * resent, the upload is superseded and the delete is a new command. The terminal's late answer to
 * the upload then closes nothing: the delete is still sent to it, and the deletion proof waits for
 * that delete's answer. Through the real server and simulated terminals, on the test clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal, SimulatedTerminalOptions } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain } from '../support/terminals';

let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;

/** The `devicecmd` bodies G1 posted while its answers were held back (a slow link). */
const held: string[] = [];
let holdAnswers = false;

/** G1's line to the server: while `holdAnswers`, its command results do not arrive (yet). */
function slowAnswers(): typeof fetch {
  const call = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    if (holdAnswers && new URL(url).pathname.endsWith('/devicecmd')) {
      held.push(await new Response(init?.body).text());
      return new Response('OK');
    }
    return fetch(input, init);
  };
  return Object.assign(call, { preconnect: fetch.preconnect });
}

const terminal = (sn: string, options: Partial<SimulatedTerminalOptions> = {}): Promise<SimulatedTerminal> => approvedTerminal(server, sn, ['north'], options);

interface Command {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  payload: Record<string, unknown>;
}

async function commandsOf(sn: string): Promise<Command[]> {
  const res = await server.admin.get(`/devices/${sn}/commands/?limit=100`);
  expect(res.status).toBe(200);
  return res.body.results as Command[];
}

async function proofTerminal(enrolleeId: string, sn: string) {
  const res = await server.admin.get(`/enrollees/${enrolleeId}/deletion-proof/`);
  expect(res.status).toBe(200);
  const terminals = res.body.terminals as { serial_number: string; status: string; command: { id: number; kind: string; status: string } | null }[];
  return terminals.find((t) => t.serial_number === sn)!;
}

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

describe('a late answer to an upload the withdrawal superseded', () => {
  test('closes only the upload: the delete is a new command, sent to the terminal and awaited by the proof', async () => {
    const walkUp = await terminal('NORTH-W');
    const g1 = await terminal('NORTH-G1', { fetch: slowAnswers() });
    expect((await server.admin.post('/employees/', { id: 'LATE-1', name: 'Lena Late' })).status).toBe(201);
    const created = await server.admin.post('/enrollees/', { employee: 'LATE-1', areas: ['north'] });
    expect(created.status).toBe(201);
    const person = created.body as { id: string; device_pin: string };
    expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    await drain(g1);

    // 1. A walk-up template, fanned out: G1 takes the upload (and stores the finger)…
    expect((await walkUp.enrollFinger(person.device_pin, 2)).body).toBe('OK:1');
    holdAnswers = true;
    const [upload] = await g1.poll();
    expect(upload!.text).toStartWith(`DATA UPDATE FINGERTMP PIN=${person.device_pin}\tFID=2\t`);
    expect(g1.templates.has(`${person.device_pin}:2`)).toBe(true);
    // …but its answer does not arrive in time.
    expect(held).toEqual([`ID=${upload!.id}&Return=0&CMD=DATA\n`]);
    const uploadId = Number(upload!.id);

    // 2. retry-commands puts the upload back in the queue.
    offset += 2 * 60_000 + 1_000;
    expect((await server.admin.post('/jobs/retry-commands/run/')).body.result).toMatchObject({ retried: 1 });
    expect((await commandsOf('NORTH-G1')).find((c) => c.id === uploadId)).toMatchObject({ kind: 'update_template', status: 'pending', attempts: 1 });

    // 3. Consent withdrawn: the upload is superseded, the delete is a command of its own.
    expect((await server.admin.delete(`/enrollees/${person.id}/consent/`)).status).toBe(200);
    let queue = await commandsOf('NORTH-G1');
    expect(queue.find((c) => c.id === uploadId)).toMatchObject({ kind: 'update_template', status: 'superseded' });
    const del = queue.find((c) => c.kind === 'delete_template' && c.payload.pin === person.device_pin)!;
    expect(del).toMatchObject({ status: 'pending', attempts: 0, payload: { fingerIndex: 2 } });
    expect(del.id).not.toBe(uploadId);
    expect(await proofTerminal(person.id, 'NORTH-G1')).toMatchObject({ status: 'pending', command: { id: del.id, kind: 'delete_template' } });

    // 4. G1's answer to the upload arrives at last: accepted, and it closes nothing else.
    holdAnswers = false;
    expect((await g1.post('devicecmd', {}, held[0]!)).body).toBe('OK');
    queue = await commandsOf('NORTH-G1');
    expect(queue.find((c) => c.id === uploadId)).toMatchObject({ kind: 'update_template', status: 'superseded' });
    expect(queue.find((c) => c.id === del.id)).toMatchObject({ kind: 'delete_template', status: 'pending' });
    expect(await proofTerminal(person.id, 'NORTH-G1')).toMatchObject({ status: 'pending', command: { id: del.id } });

    // G1's next poll carries the delete; its answer confirms G1 in the proof.
    const next = await g1.poll();
    expect(next.map((c) => [Number(c.id), c.text])).toEqual([[del.id, `DATA DELETE FINGERTMP PIN=${person.device_pin}\tFID=2`]]);
    expect(g1.templates.has(`${person.device_pin}:2`)).toBe(false);
    expect(await proofTerminal(person.id, 'NORTH-G1')).toMatchObject({ status: 'confirmed', command: { id: del.id, status: 'succeeded' } });
    await drain(walkUp);
    expect((await server.admin.get(`/enrollees/${person.id}/deletion-proof/`)).body.complete).toBe(true);
  });
});
