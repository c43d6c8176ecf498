/**
 * A `reboot` is not idempotent (docs/protocol/adms.md §5.1): a terminal carries it out without
 * answering (it restarts, then handshakes). Its handshake closes the reboot as succeeded, saying
 * why, and the retry-commands job never sends a reboot again: one that got neither a handshake
 * nor an answer by its deadline fails. Before, it was resent up to COMMAND_MAX_RETRIES times,
 * and each resend restarted the terminal again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain } from '../support/terminals';

interface Command {
  id: number;
  kind: string;
  status: string;
  return_code: number | null;
  result: Record<string, unknown> | null;
}

const clock = runningClock();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

async function command(sn: string, id: number): Promise<Command> {
  const res = await server.admin.get(`/devices/${sn}/commands/?limit=500`);
  expect(res.status).toBe(200);
  return (res.body.results as Command[]).find((c) => c.id === id)!;
}

async function reboot(sn: string): Promise<number> {
  const queued = await server.admin.post(`/devices/${sn}/commands/`, { kind: 'reboot' });
  expect(queued.status).toBe(201);
  return queued.body.id;
}

/** Past the acknowledgement deadline and any backoff, then the retry job. */
async function retryJob(): Promise<Record<string, number>> {
  clock.advance(server.fpa.settings.COMMAND_ACK_TIMEOUT + 2 * 3_600_000);
  const run = await server.admin.post('/jobs/retry-commands/run/');
  expect(run.status).toBe(200);
  return run.body.result;
}

describe('a reboot', () => {
  test('the terminal restarts without answering; its handshake closes the reboot as succeeded, and it is never sent again', async () => {
    const terminal = await approvedTerminal(server, 'BOOT1', ['north']);
    const id = await reboot('BOOT1');
    const got = await terminal.poll();
    expect(got.map((c) => [Number(c.id), c.text, c.returnCode])).toEqual([[id, 'REBOOT', null]]);
    const closed = await command('BOOT1', id);
    expect(closed).toMatchObject({ status: 'succeeded', return_code: null });
    expect(String(closed.result?.reason)).toContain('restarted');
    await retryJob();
    expect(await drain(terminal)).toEqual([]);
    expect((await command('BOOT1', id)).status).toBe('succeeded');
  });

  test('with neither an answer nor a handshake by its deadline it fails, not resent', async () => {
    const terminal = await approvedTerminal(server, 'BOOT2', ['north'], { respond: (c) => (c.text === 'REBOOT' ? 'ignore' : undefined) });
    const id = await reboot('BOOT2');
    expect((await terminal.poll()).map((c) => c.text)).toEqual(['REBOOT']);
    expect((await command('BOOT2', id)).status).toBe('sent');
    expect(await retryJob()).toMatchObject({ retried: 0, failed: 1 });
    expect(await command('BOOT2', id)).toMatchObject({ status: 'failed', return_code: null, result: { reason: 'no result from the terminal' } });
    expect(await drain(terminal)).toEqual([]);
  });

  test('a handshake closes only a reboot that was sent: one still queued is sent at the next poll', async () => {
    const terminal = await approvedTerminal(server, 'BOOT3', ['north']);
    const id = await reboot('BOOT3');
    await terminal.handshake();
    expect((await command('BOOT3', id)).status).toBe('pending');
    expect(await drain(terminal)).toEqual(['REBOOT']);
    expect((await command('BOOT3', id)).status).toBe('succeeded');
  });

  test('a handshake from a terminal not yet restarted leaves its other sent commands waiting for their answers', async () => {
    const terminal = new SimulatedTerminal({ url: server.url, sn: 'BOOT4', respond: (c) => (c.text === 'INFO' ? 'ignore' : undefined) });
    await terminal.handshake();
    await terminal.postOptions();
    expect((await server.admin.post('/devices/BOOT4/approve/', { areas: ['north'] })).status).toBe(200);
    await drain(terminal);
    const info = await server.admin.post('/devices/BOOT4/commands/', { kind: 'info' });
    await terminal.poll();
    await terminal.handshake();
    expect((await command('BOOT4', info.body.id)).status).toBe('sent');
  });
});
