/**
 * No event carries a card number: a card opens doors, and the event log is read by every viewer
 * of `events/` and sent to every webhook receiver. A terminal sent a person's user record
 * (`add_user`, with their name and card) announces the command's end with references only; a
 * card set, replaced or removed by an administrator, or taken from a terminal's own user adopted
 * as an enrollee, says whether a card is set, not which. An operator's raw command text (which
 * may hold a card) is not logged either. In-process listeners still get the data as recorded.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { clientAs, startTestServer, type TestServer } from '../support/harness';
import { approvedTerminal, drain } from '../support/terminals';
import { receiver, waitFor } from '../support/webhook-receiver';

const SN = 'NOCARD01';
const CARDS = ['7777777', '7777778', '5550001', '6060606'];
const NAMES = ['Zed Quill', 'Yan Ode', 'Raw Rita', 'At the menu'];
const TYPES = ['device_command_finished', 'enrollee_created', 'enrollee_updated'];

let server: TestServer;
let rx: ReturnType<typeof receiver>;
let terminal: SimulatedTerminal;
const recorded: { card?: { from: string | null; to: string | null } }[] = [];

interface Logged {
  type: string;
  data: Record<string, unknown> & {
    command?: { kind: string; payload: Record<string, unknown> };
    enrollee?: { id: string; card?: unknown };
    changes?: { card?: unknown };
  };
}

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, ADMS_RAW_COMMANDS: true });
  server.fpa.events.on('enrollee_updated', (e) => void recorded.push(e.changes));
  rx = receiver();
  expect((await server.admin.post('/webhooks/', { url: rx.url, events: TYPES })).status).toBe(201);
  terminal = await approvedTerminal(server, SN, ['default'], { existingUsers: [{ pin: '7', name: 'At the menu', card: '5550001' }] });
});
afterAll(async () => {
  rx.stop();
  await server.close();
});

async function logged(client = server.admin): Promise<Logged[]> {
  const page = await client.get(`/events/?type=${TYPES.join(',')}&limit=1000`);
  expect(page.status).toBe(200);
  return page.body.results as Logged[];
}

describe('events carry no card number', () => {
  test('a user record sent to a terminal and answered, and card changes, log references and whether a card is set', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-NC-1', name: 'Zed Quill' })).status).toBe(201);
    const zed = (await server.admin.post('/enrollees/', { employee: 'E-NC-1' })).body as { id: string; device_pin: string };
    expect((await server.admin.patch(`/enrollees/${zed.id}/`, { card: '7777777' })).status).toBe(200);
    const sent = await drain(terminal);
    // The terminal was sent the card (the record is the terminal's) and answered.
    expect(sent.some((c) => c.includes(`PIN=${zed.device_pin}\t`) && c.includes('Card=7777777'))).toBe(true);
    expect(terminal.users.get(zed.device_pin)?.fields.Card).toBe('7777777');
    expect((await server.admin.patch(`/enrollees/${zed.id}/`, { card: '7777778' })).status).toBe(200);
    expect((await server.admin.patch(`/enrollees/${zed.id}/`, { card: null })).status).toBe(200);
    await drain(terminal);
    // The terminal's own user 7 (with a card) adopted as a new enrollee.
    expect((await server.admin.post('/employees/', { id: 'E-NC-2', name: 'Yan Ode' })).status).toBe(201);
    const yan = await server.admin.post(`/devices/${SN}/users/7/adopt/`, { employee: 'E-NC-2' });
    expect(yan.status).toBeLessThan(300);
    expect(yan.body.card).toBe('5550001');
    // An operator's raw command that writes a user record with a card.
    const raw = await server.admin.post(`/devices/${SN}/commands/`, { kind: 'raw', command: 'DATA UPDATE USERINFO PIN=900 Name=Raw Rita Card=6060606' });
    expect(raw.status).toBeLessThan(300);
    await drain(terminal);

    const events = await logged();
    const addUser = events.filter((e) => e.type === 'device_command_finished' && e.data.command?.kind === 'add_user');
    expect(addUser.length).toBeGreaterThan(0);
    // The add_user of Zed's card, answered: who it was about, not their name or card.
    expect(addUser.map((e) => e.data.command!.payload)).toContainEqual({ pin: zed.device_pin, enrollee: zed.id });
    const rawFinished = events.find((e) => e.type === 'device_command_finished' && e.data.command?.kind === 'raw');
    expect(rawFinished?.data.command?.payload).toEqual({});
    // A card set, replaced, removed: whether one was set before and after.
    const zedChanges = events.filter((e) => e.type === 'enrollee_updated' && e.data.enrollee?.id === zed.id).map((e) => e.data.changes?.card);
    expect(zedChanges).toEqual([
      { from: false, to: true },
      { from: true, to: true },
      { from: true, to: false },
    ]);
    const created = events.find((e) => e.type === 'enrollee_created' && e.data.enrollee?.id === yan.body.id);
    expect(created?.data.enrollee?.card).toBe(true);

    // Nowhere a card number; no name in a command's end. A viewer reads the same log.
    const viewer = await clientAs(server, 'viewer');
    for (const list of [events, await logged(viewer)]) {
      const text = JSON.stringify(list);
      for (const card of CARDS) expect(text).not.toContain(card);
      const commands = JSON.stringify(list.filter((e) => e.type === 'device_command_finished'));
      for (const name of NAMES) expect(commands).not.toContain(name);
    }
    // …nor in what the webhook receiver got: every one of these events, the same data.
    await waitFor(() => rx.calls.length >= events.length, 'the webhook deliveries');
    const bodies = rx.calls.map((c) => c.body).join('\n');
    for (const card of CARDS) expect(bodies).not.toContain(card);
    const commandBodies = rx.calls.map((c) => c.body).filter((b) => b.includes('"device_command_finished"'));
    expect(commandBodies.length).toBeGreaterThan(0);
    for (const name of NAMES) expect(commandBodies.join('\n')).not.toContain(name);

    // In-process listeners (the host's own code) get the data as recorded.
    expect(recorded.map((c) => c.card)).toContainEqual({ from: null, to: '7777777' });
  });
});
