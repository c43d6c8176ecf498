/**
 * A command result closes only a command the terminal was sent. A result posted for a queued
 * command that never went out (no poll took it) is ignored like an unknown id and noted on the
 * terminal's log: otherwise a forged or confused `devicecmd` closes deletes that never reached the
 * terminal and the person's deletion proof reads `confirmed`. A late answer to a send, after the
 * command was put back for a resend, still closes it. A `HEAD getrequest` takes nothing from the
 * queue (a HEAD answer has no body to carry commands). Through the real server and a simulated
 * terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, deviceLog, drain, type EnrolledPerson, enrolledPerson } from '../support/terminals';

const MINUTE = 60_000;
let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

interface Command {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  sent_at: string | null;
  payload: Record<string, unknown>;
}

async function commandsOf(sn: string, pin: string): Promise<Command[]> {
  const res = await server.admin.get(`/devices/${sn}/commands/?limit=100`);
  expect(res.status).toBe(200);
  return (res.body.results as Command[]).filter((c) => c.payload.pin === pin);
}

/** Someone with consent and a fingerprint, held by terminal `t`. */
async function heldBy(t: SimulatedTerminal, employee: string, area: string): Promise<EnrolledPerson> {
  const p = await enrolledPerson(server, employee, `Person ${employee}`, [area]);
  expect((await server.admin.post(`/enrollees/${p.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(p.id, 6, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), { algorithmVersion: '10', by: 'test' });
  await drain(t);
  expect([...t.templates.values()].some((x) => x.pin === p.device_pin)).toBe(true);
  return p;
}

async function proofStatus(enrollee: string, sn: string): Promise<string | undefined> {
  const res = await server.admin.get(`/enrollees/${enrollee}/deletion-proof/`);
  expect(res.status).toBe(200);
  return (res.body.terminals as { serial_number: string; status: string }[]).find((x) => x.serial_number === sn)?.status;
}

const answers = (ids: number[]) => `${ids.map((id) => `ID=${id}&Return=0&CMD=DATA`).join('\n')}\n`;

describe('a command result needs a send', () => {
  test('ordinary flow: the terminal polls, runs the deletes and answers; they succeed and the proof is confirmed', async () => {
    const t = await approvedTerminal(server, 'RES-SENT', ['res-sent']);
    const p = await heldBy(t, 'RES-1', 'res-sent');
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    await drain(t);
    const deletes = (await commandsOf('RES-SENT', p.device_pin)).filter((c) => c.kind.startsWith('delete_'));
    expect(deletes.length).toBeGreaterThan(0);
    expect(deletes.every((c) => c.status === 'succeeded' && c.attempts === 1)).toBe(true);
    expect(await proofStatus(p.id, 'RES-SENT')).toBe('confirmed');
    expect(await deviceLog(server.fpa, 'RES-SENT', 'command_result_ignored')).toEqual([]);
  });

  test('results for deletes never sent are ignored and logged: the deletes stay pending, the proof waits, the next poll sends them', async () => {
    const t = await approvedTerminal(server, 'RES-UNSENT', ['res-unsent']);
    const p = await heldBy(t, 'RES-2', 'res-unsent');
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    const deletes = (await commandsOf('RES-UNSENT', p.device_pin)).filter((c) => c.kind.startsWith('delete_'));
    expect(deletes.length).toBeGreaterThan(0);
    expect(deletes.every((c) => c.status === 'pending' && c.attempts === 0 && c.sent_at === null)).toBe(true);

    // No poll was made: nothing went out, so nothing can have been run.
    const posted = await t.post('devicecmd', {}, answers(deletes.map((c) => c.id)));
    expect(posted).toEqual({ status: 200, body: 'OK' });
    const after = (await commandsOf('RES-UNSENT', p.device_pin)).filter((c) => c.kind.startsWith('delete_'));
    expect(after.map((c) => [c.id, c.status, c.attempts])).toEqual(deletes.map((c) => [c.id, 'pending', 0]));
    expect(await proofStatus(p.id, 'RES-UNSENT')).toBe('pending');
    const logged = await deviceLog(server.fpa, 'RES-UNSENT', 'command_result_ignored');
    expect(logged.map((e) => e.details)).toEqual(deletes.map((c) => ({ id: String(c.id), reason: 'never_sent' })));
    expect(logged[0]!.message).toContain('never sent');

    // The terminal still holds the finger; the next poll sends the deletes and its answer counts.
    expect([...t.templates.values()].some((x) => x.pin === p.device_pin)).toBe(true);
    await drain(t);
    expect([...t.templates.values()].some((x) => x.pin === p.device_pin)).toBe(false);
    expect(await proofStatus(p.id, 'RES-UNSENT')).toBe('confirmed');
  });

  test('a result for a user record never sent is ignored; an unknown id is logged as unknown', async () => {
    const t = await approvedTerminal(server, 'RES-ADD', ['res-add']);
    const p = await heldBy(t, 'RES-3', 'res-add');
    expect((await server.admin.patch(`/enrollees/${p.id}/`, { card: '4711' })).status).toBe(200);
    const [queued] = (await commandsOf('RES-ADD', p.device_pin)).filter((c) => c.kind === 'add_user' && c.status === 'pending');
    expect(queued).toMatchObject({ attempts: 0, sent_at: null });
    await t.post('devicecmd', {}, answers([queued!.id, 987_654_321]));
    expect((await commandsOf('RES-ADD', p.device_pin)).find((c) => c.id === queued!.id)).toMatchObject({ status: 'pending', attempts: 0 });
    const logged = await deviceLog(server.fpa, 'RES-ADD', 'command_result_ignored');
    expect(logged.map((e) => e.details)).toEqual([
      { id: '987654321', reason: 'unknown' },
      { id: String(queued!.id), reason: 'never_sent' },
    ]);
    await drain(t);
    expect(t.users.get(p.device_pin)?.fields.Card).toBe('4711');
    expect((await commandsOf('RES-ADD', p.device_pin)).find((c) => c.id === queued!.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  test('a late answer to a send is taken after the command was put back for a resend (attempts > 0)', async () => {
    const t = await approvedTerminal(server, 'RES-LATE', ['res-late']);
    const p = await heldBy(t, 'RES-4', 'res-late');
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBe(200);
    // Taken by a poll, its answer lost; past the acknowledgement deadline it is pending again.
    const polled = await t.get('getrequest');
    const ids = polled.body
      .split('\n')
      .filter((l) => l.startsWith('C:'))
      .map((l) => Number(l.split(':')[1]));
    expect(ids.length).toBeGreaterThan(0);
    offset += 3 * MINUTE;
    await server.fpa.service.commands.retryUnacknowledged();
    const waiting = (await commandsOf('RES-LATE', p.device_pin)).filter((c) => ids.includes(c.id));
    expect(waiting.every((c) => c.status === 'pending' && c.attempts === 1)).toBe(true);
    await t.post('devicecmd', {}, answers(ids));
    const closed = (await commandsOf('RES-LATE', p.device_pin)).filter((c) => ids.includes(c.id));
    expect(closed.every((c) => c.status === 'succeeded')).toBe(true);
    expect(await deviceLog(server.fpa, 'RES-LATE', 'command_result_ignored')).toEqual([]);
  });
});

describe('a HEAD poll', () => {
  test('takes nothing from the queue: answered as an idle poll, the commands stay pending for the next GET', async () => {
    const t = await approvedTerminal(server, 'RES-HEAD', ['res-head']);
    const p = await heldBy(t, 'RES-5', 'res-head');
    expect((await server.admin.patch(`/enrollees/${p.id}/`, { card: '4712' })).status).toBe(200);
    const [queued] = (await commandsOf('RES-HEAD', p.device_pin)).filter((c) => c.kind === 'add_user' && c.status === 'pending');
    expect(queued).toMatchObject({ attempts: 0, sent_at: null });

    const head = await fetch(`${server.url}/iclock/getrequest?SN=RES-HEAD`, { method: 'HEAD', headers: { 'user-agent': 'iClock Proxy/1.09' } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await commandsOf('RES-HEAD', p.device_pin)).find((c) => c.id === queued!.id)).toMatchObject({ status: 'pending', attempts: 0, sent_at: null });

    const polled = await t.poll();
    expect(polled.map((c) => Number(c.id))).toContain(queued!.id);
    expect(t.users.get(p.device_pin)?.fields.Card).toBe('4712');
  });
});
