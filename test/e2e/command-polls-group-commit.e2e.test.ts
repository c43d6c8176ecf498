/**
 * Group commit of the `sent` marks (src/modules/commands/polls.ts): concurrent polls share one
 * write transaction, yet every command is marked sent before its poll is answered, goes to
 * exactly one poll, in queue order, and a command replaced in place after a poll read it is
 * not sent with its old text. Over real HTTP where the terminal's view matters.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { asc, eq, inArray } from 'drizzle-orm';
import { deviceCommands } from '../../src/app/schema';
import type { NewCommand } from '../../src/modules/commands/kinds';
import type { DeviceRow } from '../../src/modules/devices/tables';
import type { Database } from '../../src/platform/db/client';
import { startTestServer, type TestServer } from '../support/harness';

const PER_POLL = 3;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ ADMS_MAX_COMMANDS_PER_REQUEST: PER_POLL });
});
afterAll(async () => {
  await server.close();
});

async function approved(serial: string): Promise<DeviceRow> {
  const core = server.fpa.service;
  await core.devices.registration.touch(serial);
  await server.fpa.service.approveDevice(serial, { by: 'test' });
  const device = await core.devices.get(serial);
  // Approval queues a query of the terminal's users; these tests start from an empty queue.
  await server.fpa.db.write(({ tx }) => tx.delete(deviceCommands).where(eq(deviceCommands.deviceId, device.id)));
  return device;
}

async function queueUsers(device: DeviceRow, count: number, firstPin = 1000): Promise<number[]> {
  const commands: NewCommand[] = Array.from({ length: count }, (_, i) => ({
    deviceId: device.id,
    kind: 'add_user',
    payload: { pin: String(firstPin + i), name: `User ${firstPin + i}` },
    supersedeKey: `user:${firstPin + i}`,
  }));
  return server.fpa.db.write((w) => server.fpa.service.commands.enqueue(w, commands));
}

function commandIds(body: string | null): number[] {
  return (body ?? '')
    .split('\n')
    .filter((l) => l.startsWith('C:'))
    .map((l) => Number(l.split(':')[1]));
}

/** Counts write transactions begun while `work` runs, with whether each was durable. */
async function countingWrites<T>(db: Database, work: () => Promise<T>): Promise<{ result: T; writes: number; durable: boolean[] }> {
  const original = db.write;
  const durable: boolean[] = [];
  db.write = (fn, options) => {
    durable.push(options?.durable !== false);
    return original(fn, options);
  };
  try {
    return { result: await work(), writes: durable.length, durable };
  } finally {
    db.write = original;
  }
}

async function statuses(ids: number[]): Promise<string[]> {
  const rows = await server.fpa.db.orm.select({ status: deviceCommands.status }).from(deviceCommands).where(inArray(deviceCommands.id, ids));
  return rows.map((r) => r.status);
}

describe('group commit of sent marks', () => {
  test('polls of several terminals in one turn share one write; each gets its own commands, marked sent', async () => {
    const _commands = server.fpa.service.commands;
    const renderer = server.fpa.service.terminals.renderer;
    const devices = await Promise.all(['GC-A', 'GC-B', 'GC-C', 'GC-D'].map(approved));
    const queued = new Map<string, number[]>();
    for (const d of devices) queued.set(d.id, await queueUsers(d, 5));

    const { result: bodies, writes } = await countingWrites(server.fpa.db, () => Promise.all(devices.map((d) => renderer.takeBatch(d))));
    expect(writes).toBe(1);
    for (const [i, d] of devices.entries()) {
      const ids = commandIds(bodies[i]!);
      expect(ids).toEqual(queued.get(d.id)!.slice(0, PER_POLL));
      expect(await statuses(ids)).toEqual(ids.map(() => 'sent'));
    }
  });

  test('sent marks commit without a WAL sync (lost in a power cut, a command is only sent again); an enroll command’s mark is synced (it is never sent twice)', async () => {
    const renderer = server.fpa.service.terminals.renderer;
    const [plain, enrolling] = await Promise.all(['GC-SYNC-A', 'GC-SYNC-B'].map(approved));
    await queueUsers(plain!, 2, 7000);
    await server.fpa.db.write((w) =>
      server.fpa.service.commands.enqueue(w, [{ deviceId: enrolling!.id, kind: 'ENROLL_FP', payload: { pin: '7100', fingerIndex: 6 } }]),
    );
    const first = await countingWrites(server.fpa.db, () => renderer.takeBatch(plain!));
    expect(commandIds(first.result)).toHaveLength(2);
    expect(first.durable).toEqual([false]);
    const second = await countingWrites(server.fpa.db, () => renderer.takeBatch(enrolling!));
    expect(second.result).toContain('ENROLL_FP');
    expect(second.durable).toEqual([true]);
  });

  test('polls of one turn read their queues with one statement; a terminal owed deletes only gets only its deletes', async () => {
    const { fpa } = server;
    const commands = fpa.service.commands;
    const [a, b] = await Promise.all(['GC-READ-A', 'GC-READ-B'].map(approved));
    const aIds = await queueUsers(a!, 4, 3000);
    const [deleteId] = await fpa.db.write((w) => commands.enqueue(w, [{ deviceId: b!.id, kind: 'delete_user', payload: { pin: '3100' } }]));
    await queueUsers(b!, 2, 3200);
    const client = fpa.db.client;
    const original = client.execute.bind(client);
    let reads = 0;
    client.execute = ((statement: Parameters<typeof client.execute>[0]) => {
      reads++;
      return original(statement);
    }) as typeof client.execute;
    let due: Awaited<ReturnType<typeof commands.polls.takeDue>>[];
    try {
      due = await Promise.all([commands.polls.takeDue(a!.id), commands.polls.takeDue(b!.id, { deletesOnly: true }), commands.polls.takeDue(b!.id)]);
    } finally {
      client.execute = original;
    }
    expect(reads).toBe(1);
    expect(due[0]!.map((c) => c.id)).toEqual(aIds.slice(0, PER_POLL));
    expect(due[1]!.map((c) => c.kind)).toEqual(['delete_user']);
    expect(due[1]!.map((c) => c.id)).toEqual([deleteId!]);
    expect(due[2]!.map((c) => c.kind)).toEqual(['delete_user', 'add_user', 'add_user']);
    expect(due[2]![1]!.payload).toEqual({ pin: '3200', name: 'User 3200' });
  });

  test('two overlapping polls of one terminal never carry the same command', async () => {
    const _commands = server.fpa.service.commands;
    const renderer = server.fpa.service.terminals.renderer;
    const d = await approved('GC-TWICE');
    const ids = await queueUsers(d, 4);
    const [first, second] = await Promise.all([renderer.takeBatch(d), renderer.takeBatch(d)]);
    const a = commandIds(first);
    const b = commandIds(second);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    // Both read the same first three; one poll sends them, the other sends nothing.
    expect([...a, ...b].sort((x, y) => x - y)).toEqual(ids.slice(0, PER_POLL));
    const next = commandIds(await renderer.takeBatch(d));
    expect(next).toEqual(ids.slice(PER_POLL));
    const rows = await server.fpa.db.orm.select().from(deviceCommands).where(inArray(deviceCommands.id, ids));
    expect(rows.map((r) => r.attempts)).toEqual(ids.map(() => 1));
  });

  test('a command replaced in place after the poll read it is not sent with its old text', async () => {
    const { fpa } = server;
    const commands = fpa.service.commands;
    const renderer = fpa.service.terminals.renderer;
    const d = await approved('GC-REPLACED');
    const [id] = await queueUsers(d, 1, 5000);
    // The rename commits between the poll's read and its mark (first in the mark's transaction).
    const original = fpa.db.write;
    fpa.db.write = (fn) => {
      fpa.db.write = original;
      return original(async (w) => {
        await commands.enqueue(w, [{ deviceId: d.id, kind: 'add_user', payload: { pin: '5000', name: 'Renamed' }, supersedeKey: 'user:5000' }]);
        return fn(w);
      });
    };
    expect(await renderer.takeBatch(d)).toBeNull();
    const [row] = await fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.id, id!));
    expect(row!.status).toBe('pending');
    expect(row!.payload).toEqual({ pin: '5000', name: 'Renamed' });
    const body = await renderer.takeBatch(d);
    expect(commandIds(body)).toEqual([id!]);
    expect(body).toContain('Name=Renamed');
  });

  test('concurrent HTTP polls: every command once, sent in the database when answered', async () => {
    const { fpa, url } = server;
    const prefix = fpa.settings.ADMS_URL_PREFIX;
    const devices = await Promise.all(Array.from({ length: 8 }, (_, i) => approved(`GC-HTTP-${i}`)));
    const queued = new Map<string, number[]>();
    for (const d of devices) queued.set(d.serialNumber, await queueUsers(d, 10));
    const received = new Map<string, number[]>(devices.map((d) => [d.serialNumber, []]));
    const poll = async (serial: string): Promise<void> => {
      for (;;) {
        const res = await fetch(`${url}${prefix}getrequest?SN=${serial}`);
        expect(res.status).toBe(200);
        const body = await res.text();
        const ids = commandIds(body);
        if (ids.length === 0) {
          expect(body.trim()).toBe('OK');
          return;
        }
        expect(await statuses(ids)).toEqual(ids.map(() => 'sent'));
        received.get(serial)!.push(...ids);
      }
    };
    // Two pollers per terminal, as a terminal that resends a poll would make.
    const { writes } = await countingWrites(fpa.db, () => Promise.all(devices.flatMap((d) => [poll(d.serialNumber), poll(d.serialNumber)])));
    for (const d of devices) expect(received.get(d.serialNumber)!.sort((a, b) => a - b)).toEqual(queued.get(d.serialNumber)!);
    const all = await fpa.db.orm
      .select({ status: deviceCommands.status })
      .from(deviceCommands)
      .where(
        inArray(
          deviceCommands.deviceId,
          devices.map((d) => d.id),
        ),
      )
      .orderBy(asc(deviceCommands.id));
    expect(all.every((r) => r.status === 'sent')).toBe(true);
    // 80 commands went out in at least 27 polls; grouped, they needed fewer commits.
    expect(writes).toBeLessThan(27);
  });
});
