/**
 * A device command as the HTTP contract shows it (docs/api.md): `kind` in the API's words (the
 * operator kinds as `POST devices/{sn}/commands/` takes them, not `QUERY_USERS`, `INFO`…; the
 * service's own as docs/api.md lists them), and `finished_at` (with `completed_at`, the same
 * value, for clients of earlier releases). Through the real server and a simulated terminal: the
 * queued command, the queue's list, a cancel, and `device_command_finished` in the event log
 * (what webhooks carry).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

interface Command {
  id: number;
  kind: string;
  status: string;
  finished_at: string | null;
  completed_at: string | null;
}

const SN = 'NEW02';
/** Every kind docs/api.md lists. */
const DOCUMENTED = [
  ...['reboot', 'set_time', 'info', 'query_users', 'reupload_logs', 'clear_logs', 'clear_data', 'raw'],
  ...['add_user', 'delete_user', 'update_template', 'delete_template', 'check', 'query_templates', 'ENROLL_FP', 'ENROLL_BIO'],
];
let server: TestServer;
let terminal: SimulatedTerminal;

beforeAll(async () => {
  server = await startTestServer({ ADMS_RAW_COMMANDS: true });
  terminal = new SimulatedTerminal({ url: server.url, sn: SN });
  await terminal.handshake();
  await terminal.postOptions();
  expect((await server.admin.post(`/devices/${SN}/approve/`, {})).status).toBe(200);
  await drain(terminal);
});
afterAll(async () => {
  await server.close();
});

async function listed(): Promise<Command[]> {
  const res = await server.admin.get(`/devices/${SN}/commands/?limit=100`);
  expect(res.status).toBe(200);
  return res.body.results as Command[];
}

describe('a device command as the API shows it', () => {
  const today = new Date().toISOString().slice(0, 10);
  const operatorCommands: ({ kind: string } & Record<string, unknown>)[] = [
    { kind: 'query_users' },
    { kind: 'info' },
    { kind: 'reboot' },
    { kind: 'set_time' },
    { kind: 'reupload_logs', from: today },
    { kind: 'clear_logs', confirm: SN },
    { kind: 'clear_data', confirm: SN },
    { kind: 'raw', command: 'INFO' },
  ];
  const queued = new Map<number, string>();

  test('a queued operator command answers the kind it was asked by, and finished_at null', async () => {
    for (const body of operatorCommands) {
      const res = await server.admin.post(`/devices/${SN}/commands/`, body);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ kind: body.kind, status: 'pending', finished_at: null, completed_at: null });
      queued.set(res.body.id, body.kind);
    }
    // The list shows them the same way, waiting.
    const waiting = (await listed()).filter((c) => queued.has(c.id));
    expect(waiting.map((c) => [c.kind, c.status, c.finished_at])).toEqual(operatorCommands.map((b) => [b.kind, 'pending', null]));
  });

  test('finished, each has finished_at, equal to completed_at; the list and the log speak the same words', async () => {
    await drain(terminal);
    const all = await listed();
    const mine = all.filter((c) => queued.has(c.id));
    expect(mine.map((c) => c.kind)).toEqual(operatorCommands.map((b) => b.kind));
    for (const c of mine) {
      expect(c.status).toBe('succeeded');
      expect(c.finished_at).not.toBeNull();
      expect(c.finished_at).toBe(c.completed_at);
    }
    // Those the service queued itself (the query of its users on approval, its people again after
    // clear_data) are named in the same words.
    expect(all.filter((c) => !DOCUMENTED.includes(c.kind))).toEqual([]);
    expect(all.some((c) => !queued.has(c.id) && c.kind === 'query_users')).toBe(true);
    // What a webhook carries: the event log's device_command_finished.
    const events = await server.admin.get('/events/?type=device_command_finished&limit=1000');
    expect(events.status).toBe(200);
    const finished = new Map(
      (events.body.results as { data: { command: { id: number; kind: string } } }[]).map((e) => [e.data.command.id, e.data.command.kind]),
    );
    for (const [id, kind] of queued) expect(finished.get(id)).toBe(kind);
  });

  test('a cancelled command answers the same view, finished', async () => {
    const queuedInfo = await server.admin.post(`/devices/${SN}/commands/`, { kind: 'info' });
    const cancelled = await server.admin.post(`/devices/${SN}/commands/${queuedInfo.body.id}/cancel/`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ kind: 'info', status: 'cancelled' });
    expect(cancelled.body.finished_at).not.toBeNull();
    expect(cancelled.body.finished_at).toBe(cancelled.body.completed_at);
  });
});
