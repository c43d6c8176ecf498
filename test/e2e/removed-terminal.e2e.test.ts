/**
 * Deletion that happens: a terminal removed from the service while it holds people's data keeps
 * owing the deletes that concern them. Consent withdrawn, or a person deleted, while it is
 * removed; the terminal knocks again (pending, not approved): it is sent the deletes it owes —
 * and nothing else — in its own dialect, its confirmations are recorded, and its re-approval
 * neither files the withdrawn person's PIN as a conflict nor sends their fingerprint back.
 * Through the real server and simulated terminals, a 2.x FINGERTMP one and a BIODATA one.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { deviceCommands } from '../../src/app/schema';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { deviceRow, drain } from '../support/terminals';

let server: TestServer;
/** The simulated terminals by serial: each keeps what it holds across the tests. */
const terminals = new Map<string, SimulatedTerminal>();

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function person(id: string) {
  expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: id });
  expect(e.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(e.body.id, 6, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), { algorithmVersion: '10', by: 'test' });
  return e.body as { id: string; device_pin: string };
}

async function commandsOf(sn: string) {
  const device = await deviceRow(server.fpa, sn);
  return server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, device!.id)).orderBy(deviceCommands.id);
}

async function eventsOf(type: string) {
  const res = await server.admin.get(`/events/?type=${type}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.results as { data: Record<string, any> }[];
}

/** The whole story on one terminal: returns what it ran while pending, and after re-approval. */
async function removedAndBack(t: SimulatedTerminal, withdrawn: { id: string; device_pin: string }, deleted: { id: string; device_pin: string }) {
  terminals.set(t.sn, t);
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${t.sn}/approve/`, {})).status).toBe(200);
  await drain(t);
  // It holds both people, with their fingerprints.
  for (const p of [withdrawn, deleted]) {
    expect(t.users.has(p.device_pin)).toBe(true);
    expect([...t.templates.values()].some((tpl) => tpl.pin === p.device_pin)).toBe(true);
  }
  const oldId = (await deviceRow(server.fpa, t.sn))!.id;

  expect((await server.admin.delete(`/devices/${t.sn}/`)).status).toBe(204);
  expect((await server.admin.get(`/devices/${t.sn}/`)).status).toBe(404);

  // While it is gone: one withdraws consent, the other is deleted.
  expect((await server.admin.delete(`/enrollees/${withdrawn.id}/consent`)).status).toBeLessThan(300);
  expect((await server.admin.delete(`/enrollees/${deleted.id}/`)).status).toBe(204);

  // It knocks again: pending, under its old id, and sent its deletes only.
  await t.handshake();
  const back = await deviceRow(server.fpa, t.sn);
  expect(back?.status).toBe('pending_approval');
  expect(back?.id).toBe(oldId);
  const whilePending = await drain(t);
  expect(whilePending.length).toBeGreaterThan(0);
  expect(whilePending.every((c) => c.startsWith('DATA DELETE '))).toBe(true);
  expect([...t.templates.values()].some((tpl) => tpl.pin === withdrawn.device_pin)).toBe(false);
  expect(t.users.has(deleted.device_pin)).toBe(false);
  // Its confirmations are recorded: every delete it was sent succeeded.
  const deletes = (await commandsOf(t.sn)).filter((c) => c.kind === 'delete_template' || c.kind === 'delete_user');
  expect(deletes.length).toBe(whilePending.length);
  expect(deletes.every((c) => c.status === 'succeeded' && c.returnCode === 0)).toBe(true);
  const users = await server.admin.get(`/devices/${t.sn}/users/`);
  expect(users.body.results.some((u: { pin: string }) => u.pin === deleted.device_pin)).toBe(false);

  // Approved again: asked for its users, backfilled; the withdrawn person is theirs, no conflict.
  const conflictsBefore = (await eventsOf('terminal_user_conflict')).length;
  expect((await server.admin.post(`/devices/${t.sn}/approve/`, {})).status).toBe(200);
  const afterApproval = await drain(t);
  expect(afterApproval[0]).toBe('DATA QUERY USERINFO');
  expect((await eventsOf('terminal_user_conflict')).length).toBe(conflictsBefore);
  const again = (await server.admin.get(`/devices/${t.sn}/users/`)).body.results as { pin: string; enrollee: string | null; conflict: unknown }[];
  const mine = again.find((u) => u.pin === withdrawn.device_pin);
  expect(mine?.enrollee).toBe(withdrawn.id);
  expect(mine?.conflict ?? null).toBeNull();
  expect(again.some((u) => u.pin === deleted.device_pin)).toBe(false);
  // Nothing brought back: no fingerprint of the withdrawn person, nothing of the deleted one.
  expect([...t.templates.values()].some((tpl) => tpl.pin === withdrawn.device_pin)).toBe(false);
  expect(t.users.has(deleted.device_pin)).toBe(false);
  expect(afterApproval.some((c) => c.includes(`PIN=${deleted.device_pin}`) && !c.startsWith('DATA DELETE'))).toBe(false);
  return { whilePending, afterApproval };
}

describe('a removed terminal gets the deletes it owes when it returns', () => {
  test('2.x terminal: DATA DELETE FINGERTMP for a withdrawn consent, DATA DELETE USERINFO for a deleted person', async () => {
    const withdrawn = await person('DEL-A');
    const deleted = await person('DEL-B');
    const t = new SimulatedTerminal({ url: server.url, sn: 'GONE1' });
    const { whilePending } = await removedAndBack(t, withdrawn, deleted);
    expect(whilePending).toContain(`DATA DELETE FINGERTMP PIN=${withdrawn.device_pin}\tFID=6`);
    expect(whilePending).toContain(`DATA DELETE USERINFO PIN=${deleted.device_pin}`);
  });

  test('BIODATA terminal: the fingerprint delete goes as DATA DELETE BIODATA', async () => {
    const withdrawn = await person('DEL-C');
    const deleted = await person('DEL-D');
    const t = new SimulatedTerminal({ url: server.url, sn: 'GONE2', biodata: true });
    const { whilePending } = await removedAndBack(t, withdrawn, deleted);
    expect(whilePending.some((c) => c.startsWith(`DATA DELETE BIODATA Pin=${withdrawn.device_pin}`))).toBe(true);
    expect(whilePending).toContain(`DATA DELETE USERINFO PIN=${deleted.device_pin}`);
  });

  test('a disabled terminal is sent deletes, nothing else; its other commands wait', async () => {
    const p = await person('DEL-E');
    const t = new SimulatedTerminal({ url: server.url, sn: 'OFF1' });
    await t.handshake();
    await t.postOptions();
    expect((await server.admin.post('/devices/OFF1/approve/', {})).status).toBe(200);
    await drain(t);
    expect((await server.admin.post('/devices/OFF1/disable/', {})).status).toBe(200);
    expect((await server.admin.delete(`/enrollees/${p.id}/consent`)).status).toBeLessThan(300);
    expect((await server.admin.post('/devices/OFF1/commands/', { kind: 'info' })).status).toBe(201);
    const sent = await drain(t);
    expect(sent).toEqual([`DATA DELETE FINGERTMP PIN=${p.device_pin}\tFID=6`]);
    expect([...t.templates.values()].some((tpl) => tpl.pin === p.device_pin)).toBe(false);
    const open = (await commandsOf('OFF1')).filter((c) => c.status === 'pending');
    expect(open.map((c) => c.kind)).toEqual(['info']);
  });

  test('a terminal that is not approved may answer its deletes, and no other command', async () => {
    // GONE1 is approved again and holds DEL-A (their user record, no fingerprint any more).
    const t = terminals.get('GONE1')!;
    const a = (await server.admin.get('/enrollees/?employee=DEL-A')).body.results[0] as { id: string; device_pin: string };
    expect(t.users.has(a.device_pin)).toBe(true);
    expect((await server.admin.delete('/devices/GONE1/')).status).toBe(204);
    expect((await server.admin.delete(`/enrollees/${a.id}/`)).status).toBe(204);
    await t.handshake();
    const device = (await deviceRow(server.fpa, 'GONE1'))!;
    expect(device.status).toBe('pending_approval');
    // A command other than a delete open for it (queued before a change of status).
    const [info] = await server.fpa.db.orm
      .insert(deviceCommands)
      .values({ deviceId: device.id, kind: 'info', payload: {}, status: 'sent', createdAt: Date.now(), notBefore: 0, expiresAt: Date.now() + 86_400_000 })
      .returning();
    const res = await t.post('devicecmd', {}, `ID=${info!.id}&Return=0&CMD=INFO\n`);
    expect(res.status).toBe(200);
    const [row] = await server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.id, info!.id));
    expect(row?.status).toBe('sent');
    // Its deletes are served (those of the people the other tests withdrew or deleted while it
    // was approved but silent, too) and their answers taken.
    const sent = await drain(t);
    expect(sent).toContain(`DATA DELETE USERINFO PIN=${a.device_pin}`);
    expect(sent.every((c) => c.startsWith('DATA DELETE '))).toBe(true);
    expect(t.users.has(a.device_pin)).toBe(false);
    const deletes = (await commandsOf('GONE1')).filter((c) => c.kind === 'delete_user' && c.payload.pin === a.device_pin);
    expect(deletes.map((c) => c.status)).toEqual(['succeeded']);
  });

  test('a pending terminal that owes nothing has its results refused before they are read', async () => {
    const t = new SimulatedTerminal({ url: server.url, sn: 'STRANGER1' });
    await t.handshake();
    expect((await t.post('devicecmd', {}, 'ID=1&Return=0&CMD=DATA\n')).status).toBe(403);
  });
});

describe('a full pending list', () => {
  test('never keeps a removed terminal from coming back for its deletes', async () => {
    const own = await startTestServer({ ADMS_MAX_PENDING_DEVICES: 1 });
    try {
      const t = new SimulatedTerminal({ url: own.url, sn: 'BACK1' });
      await t.handshake();
      expect((await own.admin.post('/devices/BACK1/approve/', {})).status).toBe(200);
      expect((await own.admin.delete('/devices/BACK1/')).status).toBe(204);
      // A stranger fills the list; the next stranger is refused, the removed terminal is not.
      expect((await new SimulatedTerminal({ url: own.url, sn: 'JUNK1' }).get('getrequest')).status).toBe(200);
      expect((await new SimulatedTerminal({ url: own.url, sn: 'JUNK2' }).get('getrequest')).status).toBe(403);
      expect((await t.get('getrequest')).status).toBe(200);
      expect((await deviceRow(own.fpa, 'BACK1'))?.status).toBe('pending_approval');
    } finally {
      await own.close();
    }
  });
});
