/**
 * Terminals: identity (docs/api.md), through the real server, with requests from a second
 * source address on loopback (127.0.0.2): someone on the office network who read an approved
 * terminal's serial off its label, or the terminal itself after it moved. Under the default
 * ADMS_TRUST=address they get no user, card or template, their punches are stored flagged
 * `new_address`, and an administrator's confirmation restores the flow; a key, once issued, is
 * required on every request; a confirmation names the address the administrator checked, and a
 * request from an address the terminal is not trusted at does not count as it being seen; `key`
 * and `serial` modes; junk serials neither lock out a real new
 * terminal nor a pre-registered one, and expire.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { deviceCommands, deviceKeys, devices } from '../../src/app/schema';
import type { Clock } from '../../src/platform/runtime';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { admsFetch } from '../support/adms';
import { startTestServer, type TestServer } from '../support/harness';
import { fetchFrom, SECOND_ADDRESS } from '../support/source-address';
import { deviceLog, deviceRow, drain } from '../support/terminals';

const DAY = 86_400_000;
let now = Date.parse('2026-05-04T09:00:00Z');
const clock: Clock = { now: () => now };

/** Whether a poll's command texts carry anyone's data: user records, cards, templates. */
function peopleData(texts: readonly string[]): string[] {
  return texts.filter((t) => /USERINFO|FINGERTMP|BIODATA|Card=|TMP=|Tmp=/i.test(t));
}

async function person(server: TestServer, id: string, card: string) {
  expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: id });
  expect(e.status).toBe(201);
  expect((await server.admin.patch(`/enrollees/${e.body.id}/`, { card })).status).toBe(200);
  expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBeLessThan(300);
  await server.fpa.service.storeTemplate(e.body.id, 1, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), { algorithmVersion: '10', by: 'test' });
  return e.body as { id: string; device_pin: string };
}

function terminal(server: TestServer, sn: string, from: 'first' | 'second', pushCommKey?: string) {
  return new SimulatedTerminal({ url: server.url, sn, pushCommKey, ...(from === 'second' ? { fetch: fetchFrom(SECOND_ADDRESS) } : {}) });
}

async function approved(server: TestServer, t: SimulatedTerminal) {
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${t.sn}/approve/`)).status).toBe(200);
  return t;
}

async function pendingCommands(server: TestServer, sn: string) {
  const device = await deviceRow(server.fpa, sn);
  const rows = await server.fpa.db.orm.select().from(deviceCommands).where(eq(deviceCommands.deviceId, device!.id));
  return rows.filter((c) => c.status === 'pending');
}

async function punchesOf(server: TestServer, sn: string) {
  const res = await server.admin.get(`/punches/?device=${sn}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.results as { device_pin: string; flags: string[] }[];
}

describe('ADMS_TRUST=address (the default)', () => {
  let server: TestServer;
  let ada: { id: string; device_pin: string };
  let dee: { id: string; device_pin: string };

  beforeAll(async () => {
    server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock });
    ada = await person(server, 'E-ADA', '5551234');
  });
  afterAll(async () => {
    await server.close();
  });

  test('a terminal is pinned to the address it was approved from', async () => {
    const front = await approved(server, terminal(server, 'ID-FRONT', 'first'));
    expect((await server.admin.get('/devices/ID-FRONT/')).body).toMatchObject({ pinned_address: '127.0.0.1', unconfirmed_address: null });
    expect(peopleData(await drain(front)).length).toBeGreaterThan(0);
    expect(front.users.get(ada.device_pin)?.fields.Card).toBe('5551234');
    // A new person: her record, card and template are queued for the terminal.
    dee = await person(server, 'E-DEE', '5559876');
    expect((await pendingCommands(server, 'ID-FRONT')).map((c) => c.kind)).toEqual(expect.arrayContaining(['add_user', 'update_template']));
  });

  test('from another address the same serial gets no user, card or template: the commands stay queued', async () => {
    const stranger = terminal(server, 'ID-FRONT', 'second');
    expect((await stranger.handshake()).Realtime).toBeDefined();
    const got = await drain(stranger);
    expect(got).toEqual([]);
    expect(stranger.users.size).toBe(0);
    expect(stranger.templates.size).toBe(0);
    // The raw answer too: `OK`, nothing else.
    const raw = await fetchFrom(SECOND_ADDRESS)(`${server.url}/iclock/getrequest?SN=ID-FRONT`);
    expect(await raw.text()).toBe('OK');
    const queued = await pendingCommands(server, 'ID-FRONT');
    expect(queued.map((c) => c.kind)).toEqual(expect.arrayContaining(['add_user', 'update_template']));
    expect(queued.every((c) => c.sentAt === null && c.attempts === 0)).toBe(true);
  });

  test('its punches are stored, flagged new_address; its other uploads are refused so it keeps them', async () => {
    const stranger = terminal(server, 'ID-FRONT', 'second');
    expect((await stranger.punch([{ pin: ada.device_pin, localTime: '2026-05-04 08:58:00' }])).body).toBe('OK:1');
    const [punch] = await punchesOf(server, 'ID-FRONT');
    expect(punch).toMatchObject({ device_pin: ada.device_pin });
    expect(punch!.flags).toContain('new_address');
    // A walk-up template, a user record, a command result, its parameters: refused (403), not taken.
    expect((await stranger.uploadTemplate(ada.device_pin, 3)).status).toBe(403);
    expect((await stranger.post('cdata', { table: 'OPERLOG' }, `USER PIN=${ada.device_pin}\tName=Mallory\tCard=999\n`)).status).toBe(403);
    expect((await stranger.post('devicecmd', {}, 'ID=1&Return=0&CMD=DATA\n')).status).toBe(403);
    expect((await stranger.postOptions()).status).toBe(403);
    expect((await server.admin.get(`/enrollees/${ada.id}/templates/`)).body.results).toHaveLength(1);
    expect((await server.admin.get(`/enrollees/${ada.id}/`)).body.card).toBe('5551234');
    // A made-up PIN punched from there is stored (flagged) but does not become one of the
    // terminal's users: it was not the terminal that said so.
    expect((await stranger.punch([{ pin: '880011', localTime: '2026-05-04 09:01:00' }])).body).toBe('OK:1');
    expect((await punchesOf(server, 'ID-FRONT')).some((p) => p.device_pin === '880011')).toBe(true);
    const users = (await server.admin.get('/devices/ID-FRONT/users/')).body.results as Array<{ pin: string }>;
    expect(users.map((u) => u.pin)).not.toContain('880011');
  });

  test('the device view shows the unconfirmed address; an event and a device log entry record it once', async () => {
    const view = (await server.admin.get('/devices/ID-FRONT/')).body;
    expect(view).toMatchObject({ pinned_address: '127.0.0.1', unconfirmed_address: SECOND_ADDRESS });
    expect(Date.parse(view.unconfirmed_address_at)).toBe(now);
    const events = (await server.admin.get('/events/?type=device_address_changed')).body.results;
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ device: { serial_number: 'ID-FRONT' }, pinned_ip: '127.0.0.1', ip: SECOND_ADDRESS });
    expect(await deviceLog(server.fpa, 'ID-FRONT', 'address_changed')).toHaveLength(1);
  });

  test('the terminal at its pinned address is served as before', async () => {
    const front = terminal(server, 'ID-FRONT', 'first');
    const got = await drain(front);
    expect(peopleData(got).length).toBeGreaterThan(0);
    expect(front.users.get(dee.device_pin)?.fields.Card).toBe('5559876');
    expect(front.templates.has(`${dee.device_pin}:1`)).toBe(true);
    expect(await pendingCommands(server, 'ID-FRONT')).toHaveLength(0);
  });

  test('confirm-address (admin, audited) pins the new address: data flows there, and no longer to the old one', async () => {
    expect((await server.admin.post('/devices/ID-FRONT/confirm-address/', { address: SECOND_ADDRESS })).status).toBe(200);
    const view = (await server.admin.get('/devices/ID-FRONT/')).body;
    expect(view).toMatchObject({ pinned_address: SECOND_ADDRESS, unconfirmed_address: null });
    const audit = (await server.admin.get('/audit-log/?limit=100')).body.results as { action: string; target_id: string }[];
    expect(audit.filter((a) => a.action === 'device.address_confirmed' && a.target_id === 'ID-FRONT')).toHaveLength(1);
    // Nothing left to confirm: 409.
    expect((await server.admin.post('/devices/ID-FRONT/confirm-address/', { address: SECOND_ADDRESS })).status).toBe(409);

    expect((await server.admin.post('/devices/ID-FRONT/resync/', {})).status).toBeLessThan(300);
    const moved = terminal(server, 'ID-FRONT', 'second');
    expect(await drain(terminal(server, 'ID-FRONT', 'first'))).toEqual([]);
    const got = await drain(moved);
    expect(peopleData(got).length).toBeGreaterThan(0);
    expect(moved.templates.has(`${ada.device_pin}:1`)).toBe(true);
    expect((await moved.punch([{ pin: ada.device_pin, localTime: '2026-05-04 09:00:00' }])).body).toBe('OK:1');
    const flagged = (await punchesOf(server, 'ID-FRONT')).filter((p) => p.flags.includes('new_address') && p.device_pin === ada.device_pin);
    expect(flagged).toHaveLength(1);
  });

  test('a pre-registered terminal is pinned to the first address it connects from', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'ID-PRE' })).status).toBe(201);
    expect((await server.admin.get('/devices/ID-PRE/')).body.pinned_address).toBeNull();
    const pre = terminal(server, 'ID-PRE', 'second');
    await pre.handshake();
    expect((await server.admin.get('/devices/ID-PRE/')).body.pinned_address).toBe(SECOND_ADDRESS);
    expect(peopleData(await drain(pre)).length).toBeGreaterThan(0);
    expect(await deviceLog(server.fpa, 'ID-PRE', 'address_pinned')).toHaveLength(1);
    await server.admin.post('/devices/ID-PRE/resync/', {});
    expect(await drain(terminal(server, 'ID-PRE', 'first'))).toEqual([]);
  });

  test('a key, once issued, is required on every request, from any address, also from one that presented it before', async () => {
    const back = await approved(server, terminal(server, 'ID-BACK', 'first'));
    await drain(back);
    const issued = await server.admin.post('/devices/ID-BACK/keys/');
    expect(issued.status).toBe(201);
    // Its pinned address no longer suffices.
    expect((await back.get('getrequest')).status).toBe(403);
    expect((await back.punch([{ pin: ada.device_pin, localTime: '2026-05-04 09:01:00' }])).status).toBe(403);
    // With the key, from any address: trusted (its punches are not flagged).
    const keyed = terminal(server, 'ID-BACK', 'second', issued.body.key);
    await server.admin.post('/devices/ID-BACK/resync/', {});
    expect(peopleData(await drain(keyed)).length).toBeGreaterThan(0);
    expect((await keyed.punch([{ pin: ada.device_pin, localTime: '2026-05-04 09:02:00' }])).body).toBe('OK:1');
    expect((await punchesOf(server, 'ID-BACK')).every((p) => !p.flags.includes('new_address'))).toBe(true);
    // A keyless request from the address that just presented the key: refused (behind NAT that is everyone).
    for (const path of ['getrequest?SN=ID-BACK', 'cdata?SN=ID-BACK&options=all', 'ping?SN=ID-BACK']) {
      expect((await fetchFrom(SECOND_ADDRESS)(`${server.url}/iclock/${path}`)).status).toBe(403);
    }
    // A wrong key, and the right one as the 3.x `token` cookie.
    expect((await admsFetch(server.url, '/iclock/getrequest?SN=ID-BACK&pushcommkey=123456789012')).status).toBe(403);
    expect((await admsFetch(server.url, '/iclock/getrequest?SN=ID-BACK', { headers: { cookie: `token=${issued.body.key}` } })).status).toBe(200);
    // Revoked: refused again.
    expect((await server.admin.delete(`/devices/ID-BACK/keys/${issued.body.id}/`)).status).toBe(204);
    expect((await keyed.get('getrequest')).status).toBe(403);
  });

  test('keys are stored as HMAC digests with no digit of the key; a legacy SHA-256 digest still works, shown legacy', async () => {
    const issued = (await server.admin.post('/devices/ID-FRONT/keys/')).body as { id: string; key: string; legacy: boolean };
    expect(issued.legacy).toBe(false);
    const [row] = await server.fpa.db.orm.select().from(deviceKeys).where(eq(deviceKeys.id, issued.id));
    expect(row!.hint).toBe('');
    expect(row!.digest).toMatch(/^hmac1:[0-9a-f]{8}:[0-9a-f]{64}$/);
    expect(row!.digest).not.toContain(new Bun.CryptoHasher('sha256').update(issued.key).digest('hex'));
    const listed = (await server.admin.get('/devices/ID-FRONT/keys/')).body.results;
    expect(JSON.stringify(listed)).not.toContain(issued.key.slice(0, 4));
    expect(listed[0]).not.toHaveProperty('hint');

    // A key an earlier release stored (plain SHA-256 of the digits, with a hint).
    const front = await deviceRow(server.fpa, 'ID-FRONT');
    const legacyKey = '424242424242';
    await server.fpa.db.write(({ tx }) =>
      tx.insert(deviceKeys).values({
        id: 'legacy-key',
        deviceId: front!.id,
        digest: new Bun.CryptoHasher('sha256').update(legacyKey).digest('hex'),
        hint: '',
        createdBy: 'old release',
        createdAt: now,
        revokedAt: null,
      }),
    );
    now += 61_000;
    const keys = (await server.admin.get('/devices/ID-FRONT/keys/')).body.results as { id: string; legacy: boolean }[];
    expect(keys.find((k) => k.id === 'legacy-key')?.legacy).toBe(true);
    expect((await admsFetch(server.url, `/iclock/getrequest?SN=ID-FRONT&pushcommkey=${legacyKey}`)).status).toBe(200);
    expect((await admsFetch(server.url, `/iclock/getrequest?SN=ID-FRONT&pushcommkey=${issued.key}`)).status).toBe(200);
    expect((await admsFetch(server.url, '/iclock/getrequest?SN=ID-FRONT&pushcommkey=424242424243')).status).toBe(403);
  });
});

describe('a moved terminal, and someone with its serial (ADMS_TRUST=address)', () => {
  /** Where the terminal moved to (a new DHCP lease), and where a stranger who read its label sends from. */
  const MOVED = '127.0.0.5';
  const STRANGER = '127.0.0.9';
  let server: TestServer;
  let eve: { id: string; device_pin: string };

  beforeAll(async () => {
    server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock });
    eve = await person(server, 'E-EVE', '4441234');
  });
  afterAll(async () => {
    await server.close();
  });

  const at = (sn: string, address: string) => new SimulatedTerminal({ url: server.url, sn, fetch: fetchFrom(address) });
  const view = async (sn: string) => (await server.admin.get(`/devices/${sn}/`)).body;
  /** A validation_error that names the field `address`: the schema's (`/address`) or the service's (`field`). */
  const namesAddress = (answer: { status: number; body: { error: { code: string; details: { field?: string; errors?: { path: string }[] } } } }) =>
    answer.status === 400 &&
    answer.body.error.code === 'validation_error' &&
    (answer.body.error.details.field === 'address' || (answer.body.error.details.errors ?? []).some((e) => e.path === '/address'));

  test('the confirmation names the address checked: a request from a stranger in between is not confirmed (409, nothing changed) and gets nothing', async () => {
    await drain(await approved(server, terminal(server, 'MV-1', 'first')));
    // The terminal moves; the administrator sees its new address and checks it.
    const moved = at('MV-1', MOVED);
    await moved.get('getrequest');
    expect((await view('MV-1')).unconfirmed_address).toBe(MOVED);
    // Meanwhile, one request for its serial from elsewhere.
    expect((await fetchFrom(STRANGER)(`${server.url}/iclock/ping?SN=MV-1`)).status).toBe(200);
    expect((await view('MV-1')).unconfirmed_address).toBe(STRANGER);

    const refused = await server.admin.post('/devices/MV-1/confirm-address/', { address: MOVED });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { address: MOVED, unconfirmed_address: STRANGER } });
    expect(await view('MV-1')).toMatchObject({ pinned_address: '127.0.0.1', unconfirmed_address: STRANGER });
    expect(await deviceLog(server.fpa, 'MV-1', 'address_confirmed')).toHaveLength(0);
    // The terminal's people are queued; the stranger is sent none of them.
    expect((await server.admin.post('/devices/MV-1/resync/', {})).status).toBeLessThan(300);
    const stranger = at('MV-1', STRANGER);
    expect(await drain(stranger)).toEqual([]);
    expect((await pendingCommands(server, 'MV-1')).map((c) => c.kind)).toEqual(expect.arrayContaining(['add_user', 'update_template']));

    // The terminal polls again from where it is: checked again, that address is confirmed.
    await moved.get('getrequest');
    const confirmed = await server.admin.post('/devices/MV-1/confirm-address/', { address: MOVED });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ pinned_address: MOVED, unconfirmed_address: null });
    expect(peopleData(await drain(moved)).length).toBeGreaterThan(0);
    expect(moved.users.get(eve.device_pin)?.fields.Card).toBe('4441234');
    expect(await drain(stranger)).toEqual([]);
  });

  test('the address is required and must be an IP address (400 naming it); an IPv4-mapped form of the unconfirmed one is the same address', async () => {
    await drain(await approved(server, terminal(server, 'MV-3', 'first')));
    await at('MV-3', MOVED).get('getrequest');
    expect(namesAddress(await server.admin.post('/devices/MV-3/confirm-address/', {}))).toBe(true);
    expect(namesAddress(await server.admin.post('/devices/MV-3/confirm-address/'))).toBe(true);
    for (const address of ['terminal.example.com', '127.0.0.256', '127.0.0.0/24', '']) {
      expect(namesAddress(await server.admin.post('/devices/MV-3/confirm-address/', { address }))).toBe(true);
    }
    expect((await view('MV-3')).pinned_address).toBe('127.0.0.1');
    expect((await server.admin.post('/devices/MV-3/confirm-address/', { address: `::ffff:${MOVED}` })).body.pinned_address).toBe(MOVED);
  });

  test('requests from an address it is not trusted at change neither its shown address nor when it was seen: it goes offline; its address confirmed, it is back online and served', async () => {
    await drain(await approved(server, terminal(server, 'MV-2', 'first')));
    const before = await view('MV-2');
    expect(before).toMatchObject({ pinned_address: '127.0.0.1', online: true });
    expect(before.ip_address).not.toBe(MOVED);

    // It moves. Past the moment a contact would be written (every 30 s at most).
    now += 60_000;
    const moved = at('MV-2', MOVED);
    expect((await moved.get('ping')).status).toBe(200);
    expect(await moved.get('getrequest')).toEqual({ status: 200, body: 'OK' });
    await moved.handshake();
    expect((await moved.post('registry', {}, 'DeviceType=acc,~DeviceName=Elsewhere,PushVersion=3.1.2')).status).toBe(200);
    const unseen = await view('MV-2');
    expect(unseen).toMatchObject({ ip_address: before.ip_address, last_seen_at: before.last_seen_at, unconfirmed_address: MOVED });

    // Still polling from there, it is offline for everyone once DEVICE_OFFLINE_AFTER has passed.
    now += 6 * 60_000;
    await moved.get('getrequest');
    expect((await server.admin.post('/jobs/check-devices/run/')).status).toBe(200);
    expect(await view('MV-2')).toMatchObject({ online: false, last_seen_at: before.last_seen_at, ip_address: before.ip_address });
    const diagnostics = (await server.admin.get('/diagnostics/')).body.results as { kind: string; device: string; fix: string }[];
    const kinds = diagnostics.filter((d) => d.device === 'MV-2').map((d) => d.kind);
    expect(kinds).toEqual(expect.arrayContaining(['offline', 'new_address']));
    expect(diagnostics.find((d) => d.device === 'MV-2' && d.kind === 'new_address')?.fix).toContain(`Confirm address ${MOVED}`);
    // A person added meanwhile waits for it.
    const flo = await person(server, 'E-FLO', '4449876');
    expect(await drain(moved)).toEqual([]);

    expect((await server.admin.post('/devices/MV-2/confirm-address/', { address: MOVED })).status).toBe(200);
    expect(peopleData(await drain(moved)).length).toBeGreaterThan(0);
    expect(moved.users.get(flo.device_pin)?.fields.Card).toBe('4449876');
    expect(await view('MV-2')).toMatchObject({ online: true, last_seen_at: new Date(now).toISOString(), pinned_address: MOVED });
    const online = (await server.admin.get('/events/?type=device_online')).body.results as {
      data: { device: { serial_number: string }; away_seconds: number };
    }[];
    expect(online.filter((e) => e.data.device.serial_number === 'MV-2').at(-1)?.data.away_seconds).toBeGreaterThanOrEqual(7 * 60 - 1);
  });

  // A sender alternating two addresses (or a terminal behind a NAT with two public addresses)
  // wrote a device log entry, an event and a warning on every request.
  test('a terminal’s unconfirmed address alternating between two: each said once an hour, the view shows the latest', async () => {
    await drain(await approved(server, terminal(server, 'MV-4', 'first')));
    const [first, second] = [at('MV-4', MOVED), at('MV-4', STRANGER)];
    for (let i = 0; i < 4; i++) {
      await first.get('getrequest');
      await second.get('getrequest');
    }
    expect((await view('MV-4')).unconfirmed_address).toBe(STRANGER);
    const said = async () => {
      const events = (await server.admin.get('/events/?type=device_address_changed&limit=100')).body.results as {
        data: { device: { serial_number: string }; ip: string };
      }[];
      return events.filter((e) => e.data.device.serial_number === 'MV-4').map((e) => e.data.ip);
    };
    expect(await said()).toEqual([MOVED, STRANGER]);
    expect((await deviceLog(server.fpa, 'MV-4', 'address_changed')).length).toBe(2);
    now += 3_600_000;
    await first.get('getrequest');
    await second.get('getrequest');
    expect(await said()).toEqual([MOVED, STRANGER, MOVED, STRANGER]);
  });

  // ip_address alternated between the TCP peer (each contact) and the address the terminal
  // reports for itself in INFO (each INFO), beside the pinned and unconfirmed addresses.
  test('ip_address is the address the service sees, always; the address the terminal reports for itself is reported_address', async () => {
    const t = terminal(server, 'MV-5', 'first');
    await drain(await approved(server, t));
    // Its first poll after the handshake carried INFO with the simulator's 192.168.1.201.
    expect(await view('MV-5')).toMatchObject({ ip_address: '127.0.0.1', reported_address: '192.168.1.201', pinned_address: '127.0.0.1' });
    // Behind NAT: every poll says 10.9.9.9, past the moment a contact is written again.
    const info = (ip: string) => ({ INFO: `Ver 8.0.4.2-I113-02,1,1,0,${ip},10,0,0,0,10000` });
    for (let i = 0; i < 3; i++) {
      expect((await t.get('getrequest', info('10.9.9.9'))).body).toBe('OK');
      expect(await view('MV-5')).toMatchObject({ ip_address: '127.0.0.1', reported_address: '10.9.9.9' });
      now += 60_000;
    }
    // From an address it is not trusted at, neither changes.
    const moved = at('MV-5', MOVED);
    await moved.get('getrequest', info('10.7.7.7'));
    expect(await view('MV-5')).toMatchObject({ ip_address: '127.0.0.1', reported_address: '10.9.9.9', unconfirmed_address: MOVED });
    // Confirmed there, it is seen there (without a handshake: its next contact write, as for
    // last_seen_at, at most 30 s on); what it reports is still only what it reports.
    expect((await server.admin.post('/devices/MV-5/confirm-address/', { address: MOVED })).status).toBe(200);
    await moved.get('getrequest', info('10.7.7.7'));
    expect(await view('MV-5')).toMatchObject({ ip_address: MOVED, reported_address: '10.7.7.7', pinned_address: MOVED });
    const listed = (await server.admin.get('/devices/')).body.results.find((d: { serial_number: string }) => d.serial_number === 'MV-5');
    expect(listed).toMatchObject({ ip_address: MOVED, reported_address: '10.7.7.7' });
    // A garbled INFO's address is no address: the last one it reported stays.
    await moved.get('getrequest', info('999.1.1.1'));
    expect(await view('MV-5')).toMatchObject({ reported_address: '10.7.7.7' });
  });
});

describe('ADMS_TRUST=key', () => {
  let server: TestServer;
  let bo: { id: string; device_pin: string };

  beforeAll(async () => {
    server = await startTestServer({ TIME_ZONE: 'UTC', ADMS_TRUST: 'key' }, { clock });
    bo = await person(server, 'E-BO', '777');
  });
  afterAll(async () => {
    await server.close();
  });

  test('a terminal without a key gets no people data and its punches are refused (403), so it keeps them; with a key both flow', async () => {
    const t = await approved(server, terminal(server, 'KEY-1', 'first'));
    expect(await drain(t)).toEqual([]);
    const punched = await t.punch([{ pin: bo.device_pin, localTime: '2026-05-04 08:00:00' }]);
    expect(punched.status).toBe(403);
    expect(t.pendingPunches).toBe(1);
    expect(await punchesOf(server, 'KEY-1')).toHaveLength(0);
    expect((await pendingCommands(server, 'KEY-1')).length).toBeGreaterThan(0);

    const issued = await server.admin.post('/devices/KEY-1/keys/');
    t.commKey = issued.body.key;
    expect(peopleData(await drain(t)).length).toBeGreaterThan(0);
    expect((await t.flushPunches()).body).toBe('OK:1');
    expect(await punchesOf(server, 'KEY-1')).toHaveLength(1);
  });

  test('a request without a key does not count as the terminal being seen; one with its key does', async () => {
    const t = await approved(server, terminal(server, 'KEY-2', 'first'));
    const before = (await server.admin.get('/devices/KEY-2/')).body;
    now += 60_000;
    expect((await t.get('ping')).status).toBe(200);
    await drain(t);
    expect((await server.admin.get('/devices/KEY-2/')).body.last_seen_at).toBe(before.last_seen_at);
    t.commKey = (await server.admin.post('/devices/KEY-2/keys/')).body.key;
    expect((await t.get('ping')).status).toBe(200);
    expect((await server.admin.get('/devices/KEY-2/')).body.last_seen_at).toBe(new Date(now).toISOString());
  });
});

describe('ADMS_TRUST=serial (the first releases)', () => {
  let server: TestServer;
  let cy: { id: string; device_pin: string };

  beforeAll(async () => {
    server = await startTestServer({ TIME_ZONE: 'UTC', ADMS_TRUST: 'serial' }, { clock });
    cy = await person(server, 'E-CY', '888');
  });
  afterAll(async () => {
    await server.close();
  });

  test('the serial alone is trusted: another address gets the data, its punches are not flagged', async () => {
    await approved(server, terminal(server, 'SER-1', 'first'));
    const other = terminal(server, 'SER-1', 'second');
    expect(peopleData(await drain(other)).length).toBeGreaterThan(0);
    expect(other.templates.has(`${cy.device_pin}:1`)).toBe(true);
    expect((await other.punch([{ pin: cy.device_pin, localTime: '2026-05-04 08:00:00' }])).body).toBe('OK:1');
    expect((await punchesOf(server, 'SER-1'))[0]!.flags).not.toContain('new_address');
    expect((await server.admin.get('/devices/SER-1/')).body.unconfirmed_address).toBeNull();
  });

  test('a key once issued is still required on every request', async () => {
    const issued = await server.admin.post('/devices/SER-1/keys/');
    expect((await terminal(server, 'SER-1', 'first').get('getrequest')).status).toBe(403);
    expect((await terminal(server, 'SER-1', 'second', issued.body.key).get('getrequest')).status).toBe(200);
  });
});

describe('junk serials', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ TIME_ZONE: 'UTC', ADMS_MAX_PENDING_PER_ADDRESS: 3, ADMS_MAX_PENDING_DEVICES: 100 }, { clock });
    expect((await server.admin.post('/devices/', { serial_number: 'REAL-PRE' })).status).toBe(201);
  });
  afterAll(async () => {
    await server.close();
  });

  test('105 junk serials from one address: 3 are kept, the rest refused; a real new terminal elsewhere and a pre-registered one are served', async () => {
    const junk = fetchFrom(SECOND_ADDRESS);
    const statuses: number[] = [];
    for (let i = 1; i <= 105; i++) statuses.push((await junk(`${server.url}/iclock/cdata?SN=JUNK${i}&options=all`)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.slice(3).every((s) => s === 403)).toBe(true);
    expect((await server.admin.get('/devices/?status=pending_approval')).body.results).toHaveLength(3);

    // A real new terminal on another address registers and waits for approval.
    const real = terminal(server, 'REAL-NEW', 'first');
    await real.handshake();
    expect((await deviceRow(server.fpa, 'REAL-NEW'))?.status).toBe('pending_approval');
    // A pre-registered terminal is served even from the junk address (it does not register).
    const pre = terminal(server, 'REAL-PRE', 'second');
    expect((await pre.handshake()).Realtime).toBeDefined();
    expect((await pre.punch([{ pin: '1', localTime: '2026-05-04 08:00:00' }])).body).toBe('OK:1');
  });

  test('unapproved strangers expire after ADMS_PENDING_EXPIRY (job expire-pending-devices), and the address may register again', async () => {
    expect((await server.admin.post('/devices/REAL-NEW/approve/')).status).toBe(200);
    now += 6 * DAY;
    expect((await server.admin.post('/jobs/expire-pending-devices/run/')).body.result).toMatchObject({ expired: 0 });
    now += DAY + 1000;
    expect((await server.admin.post('/jobs/expire-pending-devices/run/')).body.result).toMatchObject({ expired: 3 });
    expect(await deviceRow(server.fpa, 'JUNK1')).toBeNull();
    expect((await server.fpa.db.orm.select().from(devices).where(eq(devices.status, 'pending_approval'))).length).toBe(0);
    // Approved and pre-registered terminals stay.
    expect((await deviceRow(server.fpa, 'REAL-NEW'))?.status).toBe('approved');
    expect((await deviceRow(server.fpa, 'REAL-PRE'))?.status).toBe('approved');
    const audit = (await server.admin.get('/audit-log/?limit=100')).body.results as { action: string }[];
    expect(audit.filter((a) => a.action === 'device.pending_expired')).toHaveLength(3);
    expect((await fetchFrom(SECOND_ADDRESS)(`${server.url}/iclock/cdata?SN=JUNK200&options=all`)).status).toBe(200);
  });
});
