/**
 * Adopting a terminal's administrator (found by an installer on a real fleet): the user record the
 * service sends for an adopted user keeps the privilege and password the terminal reported for
 * them there, so the terminal's only menu administrator is neither demoted nor locked out. The
 * other terminals of the area get an ordinary user (no privilege, no password). The password is
 * sealed at rest, and never returned by the API nor written to a log.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, deviceCommands, deviceEvents, devices, deviceUsers, eventLog } from '../../src/app/schema';
import { openTerminalPassword } from '../../src/modules/devices/user-passwords';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
/** A password no id or time stamp holds by chance. */
const SECRET = '73052918';

async function connected(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: ['north'] })).status).toBe(200);
  await drain(t);
  return t;
}

/** The user record a command list sends for a PIN, as its fields. */
function userRecord(texts: readonly string[], pin: string): Record<string, string> | undefined {
  const text = texts.find((t) => t.startsWith(`DATA UPDATE USERINFO PIN=${pin}\t`));
  if (!text) return undefined;
  return Object.fromEntries(
    text
      .slice('DATA UPDATE USERINFO '.length)
      .split('\t')
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

async function storedUser(sn: string, pin: string) {
  const [device] = await server.fpa.db.orm.select().from(devices).where(eq(devices.serialNumber, sn));
  const [row] = await server.fpa.db.orm
    .select()
    .from(deviceUsers)
    .where(and(eq(deviceUsers.deviceId, device!.id), eq(deviceUsers.pin, pin)));
  return row;
}

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.admin.post('/areas/', { name: 'north' })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

describe("adopting a terminal's administrator", () => {
  let na1: SimulatedTerminal;
  let na2: SimulatedTerminal;
  /** The enrollee adopted from PIN 3. */
  let three: string;

  test('the next user record on its terminal keeps Pri=14 and its password; the other terminal of the area gets an ordinary user', async () => {
    na1 = await connected('NA0001', {
      existingUsers: [
        { pin: '2', name: 'Old Two', privilege: 14, password: '1234', fingers: [6] },
        { pin: '3', name: 'Old Three', privilege: 6, password: SECRET },
      ],
    });
    na2 = await connected('NA0002');
    expect((await server.admin.post('/employees/', { id: 'E-7', name: 'Old Two' })).status).toBe(201);
    const adopted = await server.admin.post('/devices/NA0001/users/2/adopt/', { employee: 'E-7' });
    expect(adopted.status).toBe(201);

    const onItsTerminal = userRecord(await drain(na1), '2');
    expect(onItsTerminal).toMatchObject({ PIN: '2', Name: 'Old Two', Pri: '14', Passwd: '1234' });
    expect(na1.users.get('2')!.fields).toMatchObject({ Pri: '14', Passwd: '1234' });

    // Decision: a menu administrator of one terminal is not made one of every terminal of the area.
    const elsewhere = userRecord(await drain(na2), '2');
    expect(elsewhere).toMatchObject({ PIN: '2', Name: 'Old Two', Pri: '0', Passwd: '' });
  });

  test('the password is sealed at rest, and neither the API nor a log shows it', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-8', name: 'Old Three' })).status).toBe(201);
    const adopted = await server.admin.post('/devices/NA0001/users/3/adopt/', { employee: 'E-8' });
    expect(adopted.status).toBe(201);
    three = adopted.body.id;
    expect(userRecord(await drain(na1), '3')).toMatchObject({ Pri: '6', Passwd: SECRET });
    await drain(na2);
    const row = await storedUser('NA0001', '3');
    expect(row!.privilege).toBe(6);
    expect(row!.password).toStartWith('sealed1:');
    expect(row!.password).not.toContain(SECRET);
    const users = await server.admin.get('/devices/NA0001/users/');
    expect(users.body.results.find((u: { pin: string }) => u.pin === '3')).toMatchObject({ privilege: 6 });
    expect(JSON.stringify(users.body)).not.toContain(SECRET);
    expect(JSON.stringify((await server.admin.get('/devices/NA0001/commands/')).body)).not.toContain(SECRET);
    expect(JSON.stringify((await server.admin.get('/devices/NA0001/')).body)).not.toContain(SECRET);
    // The device log, the command queue, the domain events and the audit log.
    for (const table of [deviceEvents, deviceCommands, eventLog, auditLog]) {
      expect(JSON.stringify(await server.fpa.db.orm.select().from(table))).not.toContain(SECRET);
    }
  });

  test('a password that cannot be opened any more: the user record is not sent (it would take the password away), and the command says why', async () => {
    const row = await storedUser('NA0001', '3');
    const stored = row!.password!;
    const tampered = stored.slice(0, 30) + (stored[30] === 'A' ? 'B' : 'A') + stored.slice(31);
    await server.fpa.db.orm
      .update(deviceUsers)
      .set({ password: tampered })
      .where(and(eq(deviceUsers.deviceId, row!.deviceId), eq(deviceUsers.pin, '3')));
    // Renamed: their record goes to both terminals again.
    expect((await server.admin.patch(`/enrollees/${three}/`, { display_name: 'Three' })).status).toBe(200);
    expect(userRecord(await drain(na1), '3')).toBeUndefined();
    expect(na1.users.get('3')!.fields).toMatchObject({ Name: 'Old Three', Pri: '6', Passwd: SECRET });
    expect(userRecord(await drain(na2), '3')).toMatchObject({ Name: 'Three', Pri: '0', Passwd: '' });
    const commands = (await server.admin.get('/devices/NA0001/commands/?status=failed')).body.results as {
      id: number;
      kind: string;
      payload: { pin: string };
      result: { reason: string; failed_by: string };
    }[];
    const failed = commands.find((c) => c.kind === 'add_user' && c.payload.pin === '3');
    expect(failed!.result).toMatchObject({ failed_by: 'service' });
    expect(failed!.result.reason).toStartWith('the password the terminal holds for this user cannot be decrypted');
    const diagnostic = ((await server.admin.get('/diagnostics/')).body.results as { kind: string; device: string; fix: string }[]).find(
      (d) => d.kind === 'commands_failing' && d.device === 'NA0001',
    );
    expect(diagnostic!.fix).toContain('put that key back in the key ring');
    expect(diagnostic!.fix).not.toContain('A fingerprint sealed');
    // The fix said: the terminal reports its users again, its password is sealed anew, and the record is retried.
    expect((await server.admin.post('/devices/NA0001/commands/', { kind: 'query_users' })).status).toBe(201);
    await drain(na1);
    expect(await openTerminalPassword(server.fpa.service.runtime.keyRing, row!.deviceId, '3', (await storedUser('NA0001', '3'))!.password!)).toBe(SECRET);
    expect((await server.admin.post(`/devices/NA0001/commands/${failed!.id}/retry/`)).status).toBe(200);
    expect(userRecord(await drain(na1), '3')).toMatchObject({ Name: 'Three', Pri: '6', Passwd: SECRET });
  });

  test('consent withdrawn while the terminal holds a biometric the service did not keep: the user deleted there is put back with its privilege and password', async () => {
    expect((await server.admin.post(`/enrollees/${three}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    await drain(na1);
    await drain(na2);
    // A legacy near-infrared face the service does not keep: only deleting the user takes it off.
    const face = Buffer.from(new Uint8Array(96).fill(7)).toString('base64');
    expect((await na1.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, `FACE PIN=3\tFID=0\tSIZE=${face.length}\tVALID=1\tTMP=${face}\n`)).body).toBe('OK:1');
    expect((await server.admin.delete(`/enrollees/${three}/consent/`)).status).toBe(200);
    const sent = await drain(na1);
    expect(sent[0]).toStartWith('DATA DELETE USERINFO PIN=3');
    expect(userRecord(sent, '3')).toMatchObject({ Pri: '6', Passwd: SECRET });
    expect(na1.users.get('3')!.fields).toMatchObject({ Pri: '6', Passwd: SECRET });
    expect((await server.admin.get(`/enrollees/${three}/deletion-proof/`)).body).toMatchObject({ complete: true });
    const users = (await server.admin.get('/devices/NA0001/users/')).body.results as {
      pin: string;
      enrollee: string | null;
      biometrics: Record<string, number>;
    }[];
    expect(users.find((u) => u.pin === '3')).toMatchObject({ enrollee: three, biometrics: {} });
    // Renamed afterwards: still as the terminal had them.
    expect((await server.admin.patch(`/enrollees/${three}/`, { display_name: 'Three Again' })).status).toBe(200);
    expect(userRecord(await drain(na1), '3')).toMatchObject({ Name: 'Three Again', Pri: '6', Passwd: SECRET });
  });

  test('what the terminal reports later wins: demoted at its menu, the next user record says so', async () => {
    // Demoted at the menu and the password removed: the terminal reports the user again.
    na1.users.get('2')!.fields.Pri = '0';
    na1.users.get('2')!.fields.Passwd = '';
    const query = await server.admin.post('/devices/NA0001/commands/', { kind: 'query_users' });
    expect(query.status).toBe(201);
    await drain(na1);
    expect((await storedUser('NA0001', '2'))!.password).toBeNull();
    const resync = await server.admin.post('/devices/NA0001/resync/', {});
    expect(resync.status).toBe(200);
    expect(userRecord(await drain(na1), '2')).toMatchObject({ Pri: '0', Passwd: '' });
  });
});
