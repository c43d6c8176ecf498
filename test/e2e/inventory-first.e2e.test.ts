/**
 * Nobody is written onto a terminal before it has said who it holds: a terminal's commands about
 * a PIN (user records, templates, enroll commands, fetches, deletes) wait while the query of its
 * users sent on its approval (or at a pre-registered terminal's first contact) is unanswered,
 * then the conflict rules decide. Through the real server and simulated terminals, in the
 * rollout installer's two cases (a pre-registered terminal; a person created between an approval
 * and the terminal's answer), with the ordinary flows beside them: the person written once the
 * answer says the PIN is free, a terminal that never answers, deletes that never reach a
 * stranger, and consent that never fetches a finger the service wrote a record over.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Clock } from '../../src/platform/runtime';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

let server: TestServer;
let now = Date.parse('2026-04-14T08:00:00Z');
const clock: Clock = { now: () => now };

type Person = { id: string; device_pin: string };
type TerminalUser = { pin: string; name: string | null; card: string | null; enrollee: string | null; conflict: { enrollee: string | null } | null };
type Command = { id: number; kind: string; status: string; payload: Record<string, unknown>; result: Record<string, unknown> | null };

async function person(id: string, name: string, areas: string[]): Promise<Person> {
  expect((await server.admin.post('/employees/', { id, name })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: id, areas });
  expect(e.status).toBe(201);
  return e.body as Person;
}

function terminal(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}) {
  return new SimulatedTerminal({ url: server.url, sn, now: clock.now, ...options });
}

/** A terminal user made at the menu long ago, with a card and a finger: someone else than any enrollee. */
function carl(pin: string) {
  return { existingUsers: [{ pin, name: 'Carl Own', card: '777', fingers: [3] }] };
}

async function userOn(sn: string, pin: string): Promise<TerminalUser | undefined> {
  const res = await server.admin.get(`/devices/${sn}/users/`);
  expect(res.status).toBe(200);
  return (res.body.results as TerminalUser[]).find((u) => u.pin === pin);
}

async function commandsOf(sn: string): Promise<Command[]> {
  const res = await server.admin.get(`/devices/${sn}/commands/?limit=1000`);
  expect(res.status).toBe(200);
  return res.body.results as Command[];
}

async function conflictsOn(sn: string): Promise<{ pin: string; enrollee: string }[]> {
  const res = await server.admin.get('/events/?type=terminal_user_conflict&limit=1000');
  return (res.body.results as { data: { device: { serial_number: string }; pin: string; enrollee: string } }[])
    .filter((e) => e.data.device.serial_number === sn)
    .map((e) => ({ pin: e.data.pin, enrollee: e.data.enrollee }));
}

/** The terminal's answer to the query of its users, as the installer saw it: its user and finger, then every result. */
async function answerWithCarl(t: SimulatedTerminal, pin: string, ids: string[]) {
  const finger = syntheticTemplate();
  const body = `USER PIN=${pin}\tName=Carl Own\tPri=0\tPasswd=\tCard=777\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\nFP PIN=${pin}\tFID=3\tSize=${finger.length}\tValid=1\tTMP=${finger}\n`;
  expect((await t.post('cdata', { table: 'OPERLOG', Stamp: '1' }, body)).body).toBe('OK:2');
  expect((await t.post('devicecmd', {}, ids.map((id) => `ID=${id}&Return=0&CMD=DATA\n`).join(''))).status).toBe(200);
}

/** The `C:<id>:<text>` lines of a poll's answer. */
function lines(body: string): { id: string; text: string }[] {
  return body
    .split('\n')
    .filter((l) => l.startsWith('C:'))
    .map((l) => {
      const [, id, ...rest] = l.split(':');
      return { id: id!, text: rest.join(':') };
    });
}

/** Carl is still Carl there, linked to nobody, a conflict for the enrollee; the enrollee never went there. */
async function expectCarlKept(t: SimulatedTerminal, who: Person) {
  expect(t.users.get(who.device_pin)).toMatchObject({ name: 'Carl Own', fields: { Card: '777' } });
  expect(await userOn(t.sn, who.device_pin)).toMatchObject({ name: 'Carl Own', card: '777', enrollee: null, conflict: { enrollee: who.id } });
  expect(await conflictsOn(t.sn)).toContainEqual({ pin: who.device_pin, enrollee: who.id });
  expect(t.commands.filter((c) => c.text.includes(`PIN=${who.device_pin}`))).toEqual([]);
  const record = (await commandsOf(t.sn)).find((c) => c.kind === 'add_user' && c.payload.enrollee === who.id);
  expect(record).toMatchObject({ status: 'failed', result: { reason: 'the terminal holds this PIN for someone else (see devices/{sn}/users/)' } });
}

/** Consent given: no terminal is asked for the fingers under the PIN, nothing is stored as theirs. */
async function expectConsentTakesNothing(t: SimulatedTerminal, who: Person) {
  expect((await server.admin.post(`/enrollees/${who.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  expect((await drain(t)).filter((text) => text.includes(`PIN=${who.device_pin}`))).toEqual([]);
  expect((await commandsOf(t.sn)).filter((c) => c.kind === 'query_templates')).toEqual([]);
  expect((await server.admin.get(`/enrollees/${who.id}/templates/`)).body.results).toEqual([]);
}

beforeAll(async () => {
  server = await startTestServer({ COMMAND_MAX_RETRIES: 1 }, { clock });
});
afterAll(async () => {
  await server.close();
});

describe('a terminal whose users are not known yet is sent nobody', () => {
  test('case A: a pre-registered terminal is asked first; its own user under the new person’s PIN stays its own, and consent takes nothing of it', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'SC0003', areas: ['south'] })).status).toBe(201);
    const bo = await person('E-2', 'Bo South', ['south']);
    const t = terminal('SC0003', carl(bo.device_pin));
    await t.handshake();
    // Its first poll: the query of its users, and nothing about Bo.
    const first = lines((await t.get('getrequest')).body);
    expect(first.map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    // A poll before it answered still carries nothing about Bo.
    expect((await t.get('getrequest')).body).toBe('OK');
    await answerWithCarl(
      t,
      bo.device_pin,
      first.map((c) => c.id),
    );
    await drain(t);
    await expectCarlKept(t, bo);
    await expectConsentTakesNothing(t, bo);
  });

  test('case B: a person created between an approval and the terminal’s answer is held back too', async () => {
    const registering = terminal('SE0006');
    await registering.handshake();
    await registering.postOptions();
    expect((await server.admin.post('/devices/SE0006/approve/', { areas: ['south'] })).status).toBe(200);
    const eva = await person('E-5', 'Eva South', ['south']);
    // The terminal held a user under the PIN Eva was given before the service knew it.
    const t = terminal('SE0006', carl(eva.device_pin));
    const first = lines((await t.get('getrequest')).body);
    expect(first.map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    const waiting = (await commandsOf('SE0006')).find((c) => c.kind === 'add_user' && c.payload.enrollee === eva.id);
    expect(waiting).toMatchObject({ status: 'pending' });
    await answerWithCarl(
      t,
      eva.device_pin,
      first.map((c) => c.id),
    );
    await drain(t);
    await expectCarlKept(t, eva);
    await expectConsentTakesNothing(t, eva);
  });

  test('ordinary flow: a terminal with nobody under the PIN gets the person once it has answered', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'SC0004', areas: ['east'] })).status).toBe(201);
    const ida = await person('E-6', 'Ida East', ['east']);
    const t = terminal('SC0004', { existingUsers: [{ pin: '1', name: 'Menu One' }] });
    await t.handshake();
    expect((await t.poll()).map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    expect((await drain(t)).map((text) => text.split('\t')[0])).toContain(`DATA UPDATE USERINFO PIN=${ida.device_pin}`);
    expect(t.users.get(ida.device_pin)?.name).toBe('Ida East');
    expect(await userOn('SC0004', ida.device_pin)).toMatchObject({ enrollee: ida.id, conflict: null });
    expect(await userOn('SC0004', '1')).toMatchObject({ name: 'Menu One', enrollee: null });
  });

  test('a terminal that never answers: its query fails after its resends, and what waited goes out as the backfill does', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'SC0005', areas: ['west'] })).status).toBe(201);
    const jo = await person('E-7', 'Jo West', ['west']);
    // Old firmware: it takes the query and never answers it.
    const t = terminal('SC0005', { respond: (c) => (c.text.startsWith('DATA QUERY') ? 'ignore' : undefined) });
    await t.handshake();
    expect((await t.poll()).map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    expect(await t.poll()).toEqual([]);
    expect((await commandsOf('SC0005')).find((c) => c.kind === 'add_user')).toMatchObject({ status: 'pending' });
    // COMMAND_MAX_RETRIES (1 here) resends, each unanswered past COMMAND_ACK_TIMEOUT, then it fails.
    for (let i = 0; i < 3; i++) {
      now += server.fpa.settings.COMMAND_ACK_TIMEOUT + 2 * 3_600_000;
      expect((await server.admin.post('/jobs/retry-commands/run/')).status).toBe(200);
      await t.poll();
    }
    expect((await commandsOf('SC0005')).find((c) => c.kind === 'query_users')).toMatchObject({ status: 'failed' });
    await drain(t);
    expect(t.users.get(jo.device_pin)?.name).toBe('Jo West');
  });

  test('a terminal silent from its approval until its query expired is asked again as its inventory when it is back', async () => {
    const away = terminal('SE0009');
    await away.handshake();
    await away.postOptions();
    expect((await server.admin.post('/devices/SE0009/approve/', { areas: ['hill'] })).status).toBe(200);
    // Unplugged before it fetched the query of its users; back after COMMAND_EXPIRY.
    now += server.fpa.settings.COMMAND_EXPIRY + 3_600_000;
    expect((await server.admin.post('/jobs/expire-commands/run/')).status).toBe(200);
    const uma = await person('E-10', 'Uma Hill', ['hill']);
    const t = terminal('SE0009', carl(uma.device_pin));
    const first = lines((await t.get('getrequest')).body);
    expect(first.map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    await answerWithCarl(
      t,
      uma.device_pin,
      first.map((c) => c.id),
    );
    await drain(t);
    await expectCarlKept(t, uma);
  });
});

describe('deletes never reach a stranger', () => {
  test('a person deleted: the terminal whose own user has their PIN is sent no delete, the one they were written to is; the proof waits for that one only', async () => {
    const bo = (await server.admin.get('/enrollees/?employee=E-2')).body.results[0] as Person;
    const t = terminal('SC0003', carl(bo.device_pin));
    // SE0006 (south too) held nobody under Bo's PIN: he was written there once it had answered.
    const se = terminal('SE0006');
    expect((await userOn('SE0006', bo.device_pin))?.enrollee).toBe(bo.id);
    expect((await server.admin.delete(`/enrollees/${bo.id}/`)).status).toBe(204);
    expect((await drain(t)).filter((text) => text.includes(`PIN=${bo.device_pin}`))).toEqual([]);
    expect(t.users.get(bo.device_pin)?.name).toBe('Carl Own');
    expect(await userOn('SC0003', bo.device_pin)).toMatchObject({ name: 'Carl Own', enrollee: null });
    expect(await drain(se)).toContain(`DATA DELETE USERINFO PIN=${bo.device_pin}`);
    const proof = (await server.admin.get(`/enrollees/${bo.id}/deletion-proof/`)).body as {
      terminals: { serial_number: string; status: string }[];
      complete: boolean;
    };
    expect(proof.terminals.map((x) => [x.serial_number, x.status])).toEqual([['SE0006', 'confirmed']]);
    expect(proof.complete).toBe(true);
  });

  test('a person created and deleted before the terminal answered: nothing of theirs went there, nothing is deleted there', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'SC0007', areas: ['north'] })).status).toBe(201);
    const kim = await person('E-8', 'Kim North', ['north']);
    const t = terminal('SC0007', carl(kim.device_pin));
    await t.handshake();
    const first = lines((await t.get('getrequest')).body);
    expect(first.map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    expect((await server.admin.delete(`/enrollees/${kim.id}/`)).status).toBe(204);
    await answerWithCarl(
      t,
      kim.device_pin,
      first.map((c) => c.id),
    );
    expect(await drain(t)).toEqual([]);
    expect(t.users.get(kim.device_pin)).toMatchObject({ name: 'Carl Own', fields: { Card: '777' } });
    expect((await commandsOf('SC0007')).filter((c) => c.payload.pin === kim.device_pin && (c.status === 'pending' || c.status === 'sent'))).toEqual([]);
    expect((await server.admin.get(`/enrollees/${kim.id}/deletion-proof/`)).body.complete).toBe(true);
  });

  test('consent withdrawn: the terminal whose own user has their PIN keeps that user’s finger', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'SC0008', areas: ['lake'] })).status).toBe(201);
    const pat = await person('E-9', 'Pat Lake', ['lake']);
    await server.admin.post(`/enrollees/${pat.id}/consent/`, { version: 'v1', method: 'paper' });
    // Pat's finger 3, stored while the terminal has not answered: queued there, waiting.
    await server.fpa.service.storeTemplate(pat.id, 3, new Uint8Array(Buffer.from(syntheticTemplate(200), 'base64')), { algorithmVersion: '10', by: 'test' });
    const t = terminal('SC0008', carl(pat.device_pin));
    await t.handshake();
    const first = lines((await t.get('getrequest')).body);
    expect(first.map((c) => c.text)).toEqual(['DATA QUERY USERINFO']);
    await answerWithCarl(
      t,
      pat.device_pin,
      first.map((c) => c.id),
    );
    await drain(t);
    const carlsFinger = t.templates.get(`${pat.device_pin}:3`)!.template;
    expect((await server.admin.delete(`/enrollees/${pat.id}/consent/`)).status).toBe(200);
    expect((await drain(t)).filter((text) => text.includes(`PIN=${pat.device_pin}`))).toEqual([]);
    expect(t.templates.get(`${pat.device_pin}:3`)?.template).toBe(carlsFinger);
    expect(t.users.get(pat.device_pin)?.name).toBe('Carl Own');
    expect((await server.admin.get(`/enrollees/${pat.id}/deletion-proof/`)).body.complete).toBe(true);
  });

  test('ordinary flow: a withdrawal still deletes the person’s fingers wherever they are', async () => {
    const ida = (await server.admin.get('/enrollees/?employee=E-6')).body.results[0] as Person;
    const t = terminal('SC0004');
    await server.admin.post(`/enrollees/${ida.id}/consent/`, { version: 'v1', method: 'paper' });
    expect((await t.uploadTemplate(ida.device_pin, 2)).body).toBe('OK:1');
    expect((await server.admin.get(`/enrollees/${ida.id}/templates/`)).body.results).toHaveLength(1);
    expect((await server.admin.delete(`/enrollees/${ida.id}/consent/`)).status).toBe(200);
    expect(await drain(t)).toContain(`DATA DELETE FINGERTMP PIN=${ida.device_pin}\tFID=2`);
    expect((await server.admin.get(`/enrollees/${ida.id}/deletion-proof/`)).body.complete).toBe(true);
  });
});

describe('consent fetches only the fingers of a user that is the person', () => {
  test('the service’s record confirmed over a user the terminal reported as its own in the meantime: its fingers are not fetched', async () => {
    // Lee keeps PIN 42 from the terminal where an administrator adopted them.
    const home = terminal('ADOPT1', { existingUsers: [{ pin: '42', name: 'Lee Menu', fingers: [4] }] });
    await home.handshake();
    await home.postOptions();
    await server.admin.post('/devices/ADOPT1/approve/', { areas: ['dock'] });
    await drain(home);
    // Another terminal of that area, its users known (none).
    const other = terminal('ADOPT2');
    await other.handshake();
    await other.postOptions();
    await server.admin.post('/devices/ADOPT2/approve/', { areas: ['dock'] });
    await drain(other);
    await server.admin.post('/employees/', { id: 'E-LEE', name: 'Lee Dock' });
    const lee = (await server.admin.post('/devices/ADOPT1/users/42/adopt/', { employee: 'E-LEE' })).body as Person;
    expect(lee.device_pin).toBe('42');
    // ADOPT2 fetches Lee's record; before it answers, someone makes their own user 42 at its menu.
    const sent = lines((await other.get('getrequest')).body);
    expect(sent.map((c) => c.text.split('\t')[0])).toEqual(['DATA UPDATE USERINFO PIN=42']);
    const menu = 'USER PIN=42\tName=Someone Else\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n';
    expect((await other.post('cdata', { table: 'OPERLOG', Stamp: '2' }, menu)).body).toBe('OK:1');
    expect((await other.post('devicecmd', {}, `ID=${sent[0]!.id}&Return=0&CMD=DATA\n`)).status).toBe(200);
    expect((await server.admin.post(`/enrollees/${lee.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    // The terminal Lee was adopted from is asked for Lee's fingers; the other one is not.
    expect((await commandsOf('ADOPT1')).filter((c) => c.kind === 'query_templates').map((c) => c.payload.pin)).toEqual(['42']);
    expect((await commandsOf('ADOPT2')).filter((c) => c.kind === 'query_templates')).toEqual([]);
  });
});

describe('a template queued while the terminal had not answered, its person only after', () => {
  test('the person goes first, then the template: none is refused for a user the terminal does not hold (Return=-10)', async () => {
    const p = await person('E-INVT', 'Tia Template', ['tpl']);
    expect((await server.admin.post(`/enrollees/${p.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    const a = terminal('TPLA0001');
    await a.handshake();
    expect((await server.admin.post('/devices/TPLA0001/approve/', { areas: ['tpl'] })).status).toBe(200);
    await drain(a);
    expect((await a.uploadTemplate(p.device_pin, 1)).body).toBe('OK:1');
    // A second terminal approved; before it answers the query of its users, a finger of hers is stored.
    const b = terminal('TPLB0002');
    await b.handshake();
    expect((await server.admin.post('/devices/TPLB0002/approve/', { areas: ['tpl'] })).status).toBe(200);
    expect((await a.uploadTemplate(p.device_pin, 2)).body).toBe('OK:1');
    await drain(a);
    const ran = await drain(b);
    const hers = ran.filter((c) => c.includes(`PIN=${p.device_pin}\t`) || c.includes(`PIN=${p.device_pin} `));
    expect(hers[0]).toStartWith('DATA UPDATE USERINFO');
    const commands = await commandsOf('TPLB0002');
    expect(commands.filter((c) => c.status === 'failed')).toEqual([]);
    expect(commands.filter((c) => c.kind === 'update_template').map((c) => c.status)).toEqual(['succeeded', 'succeeded']);
  });
});
