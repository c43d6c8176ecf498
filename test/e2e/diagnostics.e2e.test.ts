/**
 * "Why isn't this terminal working?": each diagnostic of `diagnostics/` raised by its cause and
 * cleared by its fix, through the real server and simulated terminals (the clock moved with the
 * test clock where a cause takes time): an unknown serial knocking, a terminal waiting for
 * approval for more than a day, a silent one, commands waiting for a day, commands failing (a
 * terminal that never answers them, one that refuses to add people, one that refuses a person's
 * delete, retried and never failed), a clock five minutes ahead, a time zone never set,
 * fingerprints of an algorithm the terminal refuses, a full
 * terminal (both standing through retries that have not reached the terminal, since their first
 * refusal), a refused communication key, a terminal heard from a new address, a terminal that
 * cannot send its punches again (cleared by its USB file, imported), registrations refused
 * because too many terminals wait for approval.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { openDatabase } from '../../src/platform/db/client';
import { SimulatedTerminal, syntheticTemplate } from '../../src/simulator/terminal';
import { usbAttlogFile } from '../../src/simulator/usb-file';
import { ApiClient, adminToken, startTestServer, type TestServer, tempDir } from '../support/harness';
import { fetchFrom, SECOND_ADDRESS } from '../support/source-address';
import { drain } from '../support/terminals';

const DAY = 86_400_000;
let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;

interface Diag {
  kind: string;
  severity: string;
  device: string;
  since: string | null;
  message: string;
  fix: string;
  details: Record<string, unknown>;
}

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

async function diagnostics(): Promise<Diag[]> {
  const res = await server.admin.get('/diagnostics/');
  expect(res.status).toBe(200);
  return res.body.results;
}

async function find(kind: string, device: string): Promise<Diag | undefined> {
  return (await diagnostics()).find((d) => d.kind === kind && d.device === device);
}

/** Raised: present, with words for people. */
async function raised(kind: string, device: string): Promise<Diag> {
  const d = await find(kind, device);
  expect(d, `${kind} for ${device}`).toBeDefined();
  expect(d!.message.length).toBeGreaterThan(20);
  expect(d!.fix.length).toBeGreaterThan(20);
  return d!;
}

async function cleared(kind: string, device: string): Promise<void> {
  expect(await find(kind, device), `${kind} for ${device} cleared`).toBeUndefined();
}

async function approved(sn: string, options: Partial<ConstructorParameters<typeof SimulatedTerminal>[0]> = {}, areas?: string[]): Promise<SimulatedTerminal> {
  const t = new SimulatedTerminal({ url: server.url, sn, ...options });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${sn}/approve/`, areas ? { areas } : {})).status).toBe(200);
  await drain(t);
  return t;
}

async function person(id: string, algorithmVersion = '10', areas?: string[]): Promise<{ id: string; device_pin: string }> {
  expect((await server.admin.post('/employees/', { id, name: `Person ${id}` })).status).toBe(201);
  const e = await server.admin.post('/enrollees/', { employee: id, ...(areas ? { areas } : {}) });
  expect(e.status).toBe(201);
  expect((await server.admin.post(`/enrollees/${e.body.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  await server.fpa.service.storeTemplate(e.body.id, 6, new Uint8Array(Buffer.from(syntheticTemplate(180), 'base64')), { algorithmVersion, by: 'test' });
  return e.body;
}

/**
 * One round of a terminal that leaves its commands unanswered: past their acknowledgement
 * deadline (retry-commands puts them back, or fails them once their retries ran out), past the
 * backoff (at most 8 minutes by default), sent again.
 */
async function unansweredRound(t: SimulatedTerminal): Promise<void> {
  offset += server.fpa.settings.COMMAND_ACK_TIMEOUT + 60_000;
  expect((await server.admin.post('/jobs/retry-commands/run/')).status).toBe(200);
  offset += 10 * 60_000;
  await drain(t);
}

describe('diagnostics: each raised by its cause, cleared by its fix', () => {
  // First, while the test clock is the real one: the simulator's clock runs on it.
  test('simulator: a terminal whose clock runs five minutes ahead; set_time from the server clears it', async () => {
    const t = await approved('DRIFTER-1', { clockOffMs: 5 * 60_000 });
    await t.punch([{ pin: '1' }]);
    const d = await raised('clock_drift', 'DRIFTER-1');
    expect(Number(d.details.drift_seconds)).toBeGreaterThanOrEqual(295);
    // The installer's fix: set the clock (2.x: a CHECK, whose handshake carries the server's time).
    expect((await server.admin.post('/devices/DRIFTER-1/commands/', { kind: 'set_time' })).status).toBe(201);
    await drain(t);
    expect(t.clockOffMs).toBe(0);
    await t.punch([{ pin: '1' }]);
    await cleared('clock_drift', 'DRIFTER-1');
  });

  test('a terminal whose clock runs hours ahead (a wrong time zone) is measured too, not taken for a backlog', async () => {
    const t = await approved('DRIFTER-2', { clockOffMs: 5 * 3_600_000 });
    await t.punch([{ pin: '1' }]);
    const d = await raised('clock_drift', 'DRIFTER-2');
    expect(Number(d.details.drift_seconds)).toBeGreaterThanOrEqual(5 * 3600 - 5);
    expect(d.message).toContain('5 hours');
    expect((await server.admin.post('/devices/DRIFTER-2/commands/', { kind: 'set_time' })).status).toBe(201);
    await drain(t);
    await t.punch([{ pin: '1' }]);
    await cleared('clock_drift', 'DRIFTER-2');
  });

  test('an unknown serial knocking; approving it clears it', async () => {
    const t = new SimulatedTerminal({ url: server.url, sn: 'STRANGER-1' });
    await t.handshake();
    const d = await raised('unknown_terminal', 'STRANGER-1');
    expect(d.details.ip).toBe('127.0.0.1');
    expect((await server.admin.post('/devices/STRANGER-1/approve/', {})).status).toBe(200);
    await cleared('unknown_terminal', 'STRANGER-1');
  });

  test('a terminal pending for more than a day; removing it clears it', async () => {
    const t = new SimulatedTerminal({ url: server.url, sn: 'WAITER-1' });
    await t.handshake();
    await raised('unknown_terminal', 'WAITER-1');
    offset += DAY + 60_000;
    await t.handshake();
    await cleared('unknown_terminal', 'WAITER-1');
    const d = await raised('pending_approval', 'WAITER-1');
    expect(d.message).toContain('1 day');
    expect((await server.admin.delete('/devices/WAITER-1/')).status).toBe(204);
    await cleared('pending_approval', 'WAITER-1');
  });

  test('a removed terminal back is said as one: known, waiting for approval, and sent the deletes it owes', async () => {
    const t = await approved('GONE-1');
    const gone = await person('DIAG-GONE');
    await drain(t);
    expect((await server.admin.delete('/devices/GONE-1/')).status).toBe(204);
    // Deleted meanwhile: the terminal still holds them, and is owed their delete.
    expect((await server.admin.delete(`/enrollees/${gone.id}/`)).status).toBe(204);
    offset += 60_000;
    await t.handshake();
    const d = await raised('unknown_terminal', 'GONE-1');
    expect(d.message).toMatch(
      /^Terminal GONE-1, removed on \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\) by [^,]+, is contacting the server again \(from 127\.0\.0\.1\) and waits for approval\. Until then it is sent the deletes it owes \(the people withdrawn or deleted since\) and nothing else\.$/,
    );
    expect(d.message).not.toContain('unknown terminal');
    expect(d.message).not.toContain('sent nothing');
    expect(d.fix).toContain('approve it');
    expect(d.details).toMatchObject({ ip: '127.0.0.1', removed: true });
    expect(typeof d.details.removed_at).toBe('string');
    expect((await drain(t)).some((c) => c.startsWith(`DATA DELETE USERINFO PIN=${gone.device_pin}`))).toBe(true);
    // Waiting for more than a day: still said as what it is.
    offset += DAY + 60_000;
    await t.handshake();
    const waited = await raised('pending_approval', 'GONE-1');
    expect(waited.message).toContain('removed');
    expect(waited.message).not.toContain('it gets nobody');
    expect((await server.admin.post('/devices/GONE-1/approve/', {})).status).toBe(200);
    await cleared('pending_approval', 'GONE-1');
  });

  test('a silent terminal, and commands waiting for more than a day; its return and its polls clear them', async () => {
    const t = await approved('QUIET-1');
    await cleared('offline', 'QUIET-1');
    expect((await server.admin.post('/devices/QUIET-1/commands/', { kind: 'info' })).status).toBe(201);
    offset += DAY + 60_000;
    // Silent past DEVICE_OFFLINE_AFTER, but offline only once check-devices says so: the
    // diagnostic and the terminal's Online badge never disagree.
    await cleared('offline', 'QUIET-1');
    expect((await server.admin.get('/devices/QUIET-1/')).body.online).toBe(true);
    expect((await server.admin.post('/jobs/check-devices/run/')).status).toBe(200);
    expect((await server.admin.get('/devices/QUIET-1/')).body.online).toBe(false);
    const silent = await raised('offline', 'QUIET-1');
    expect(silent.severity).toBe('error');
    // The time as people read it (in the terminal's zone, else the service's), not ISO 8601.
    expect(silent.message).toMatch(/has not contacted the server since \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\)\.$/);
    // Back (a ping), but it takes no commands: they have waited for more than a day.
    await t.get('ping');
    await cleared('offline', 'QUIET-1');
    const waiting = await raised('commands_waiting', 'QUIET-1');
    expect(waiting.details.commands).toBe(1);
    // Counted in words, as a sentence says it (not "1 command(s) … have").
    expect(waiting.message).toContain('but 1 command for it has been waiting for more than a day');
    await drain(t);
    await cleared('commands_waiting', 'QUIET-1');
  });

  test('a terminal that takes its commands and never answers them: commands_failing once their retries ran out; its answering again clears it', async () => {
    // An area of its own, with a person in it: the terminal has people and fingerprints to take.
    expect((await server.admin.post('/areas/', { name: 'unanswered' })).status).toBe(201);
    let answers = false;
    const t = await approved('MUTE-1', { respond: () => (answers ? undefined : 'ignore') }, ['unanswered']);
    await person('DIAG-MUTE', '10', ['unanswered']);
    await drain(t);
    // Sent, unanswered, retried: nothing has failed yet.
    await cleared('commands_failing', 'MUTE-1');
    const retries = server.fpa.settings.COMMAND_MAX_RETRIES;
    for (let i = 0; i <= retries && !(await find('commands_failing', 'MUTE-1')); i++) await unansweredRound(t);
    const d = await raised('commands_failing', 'MUTE-1');
    expect(d.severity).toBe('error');
    expect(d.details).toMatchObject({ last_return_code: null, last_reason: 'no result from the terminal' });
    expect(Number(d.details.commands)).toBeGreaterThanOrEqual(1);
    expect(d.message).toStartWith('Terminal MUTE-1 is online and takes its commands but does not answer them: ');
    expect(d.message).toMatch(/failed since \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\)/);
    expect(d.message).toContain('each with no result from the terminal even after its retries, and none has worked there since');
    expect(d.fix).toContain('Restart the terminal');
    // Polling all along: not offline, and nothing waited a day, so nothing else said it.
    await cleared('offline', 'MUTE-1');
    await cleared('commands_waiting', 'MUTE-1');
    // The people it was then sent fail too (the backfill that follows a failed query of its users): still since the first.
    for (let i = 0; i <= retries; i++) await unansweredRound(t);
    const later = await raised('commands_failing', 'MUTE-1');
    expect(later.since).toBe(d.since);
    expect(Number(later.details.commands)).toBeGreaterThan(Number(d.details.commands));
    // Its fingerprint too: an unanswered template send is the terminal's silence like the rest.
    expect(later.details.kinds).toEqual(['update_template', 'add_user', 'query_users']);
    expect(later.message).toContain('listing its users, adding a person');
    // Fixed (restarted): it answers again. The hourly reconciliation sends what failed; it is taken.
    answers = true;
    expect((await server.admin.post('/jobs/reconcile-devices/run/')).status).toBe(200);
    await drain(t);
    await cleared('commands_failing', 'MUTE-1');
  });

  test('a terminal refusing to add people (Return=-1): commands_failing until one is added, whatever else works; a day without a failure clears it too', async () => {
    expect((await server.admin.post('/areas/', { name: 'refused-users' })).status).toBe(201);
    let refuses = true;
    const t = await approved('NOUSERS-1', { respond: (c) => (refuses && c.text.startsWith('DATA UPDATE USERINFO') ? -1 : undefined) }, ['refused-users']);
    await person('DIAG-NOUSER', '10', ['refused-users']);
    await drain(t);
    // A permanent refusal: failed at once, no retries to wait for.
    const d = await raised('commands_failing', 'NOUSERS-1');
    // Its fingerprint failed too (no such user there): both said, the person first, whose refusal is the cause.
    expect(d.details).toMatchObject({ commands: 2, kinds: ['update_template', 'add_user'], last_return_code: -10 });
    expect(d.details.by_kind).toEqual([
      expect.objectContaining({ kind: 'update_template', commands: 1, last_return_code: -10, last_reason: 'Return=-10 (the user is not on the terminal)' }),
      expect.objectContaining({ kind: 'add_user', commands: 1, last_return_code: -1, last_reason: 'Return=-1 (parameter error)' }),
    ]);
    expect(d.message).toMatch(
      /^Terminal NOUSERS-1 refuses its commands: 2 commands for it failed since \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\), and none of the same kind has worked there since\./,
    );
    expect(d.message).toContain(
      'Its answers: to adding a person, Return=-1 (parameter error); to sending a fingerprint, Return=-10 (the user is not on the terminal).',
    );
    expect(d.fix).toContain('a parameter error is often a PIN, a name or a card it does not take');
    // Another kind that works does not lift it: people still do not reach the terminal.
    expect((await server.admin.post('/devices/NOUSERS-1/commands/', { kind: 'info' })).status).toBe(201);
    await drain(t);
    offset += 10 * 60_000;
    expect((await server.admin.post('/devices/NOUSERS-1/resync/', {})).status).toBe(200);
    await drain(t);
    const again = await raised('commands_failing', 'NOUSERS-1');
    expect(again.since).toBe(d.since);
    expect(again.details.commands).toBe(4);
    // Fixed: the next add_user is taken, and that lifts it.
    refuses = false;
    expect((await server.admin.post('/devices/NOUSERS-1/resync/', {})).status).toBe(200);
    await drain(t);
    await cleared('commands_failing', 'NOUSERS-1');
    // Refused again later: raised anew, since then (not since the first failure before the success).
    refuses = true;
    offset += 10 * 60_000;
    expect((await server.admin.post('/devices/NOUSERS-1/resync/', {})).status).toBe(200);
    await drain(t);
    const anew = await raised('commands_failing', 'NOUSERS-1');
    expect(Date.parse(anew.since!)).toBeGreaterThan(Date.parse(d.since!));
    expect(anew.details).toMatchObject({ commands: 1, kinds: ['add_user'] });
    expect(anew.message).toContain('Its answer to adding a person: Return=-1 (parameter error). What it carried');
    // Nothing tried for a day: nothing new to say.
    offset += DAY + 60_000;
    await t.get('ping');
    await cleared('commands_failing', 'NOUSERS-1');
  });

  test('a fingerprint refused with a code ADMS lists (Return=-9, template size mismatch): commands_failing says what the code means', async () => {
    expect((await server.admin.post('/areas/', { name: 'size-mismatch' })).status).toBe(201);
    const t = await approved('SIZE-1', { respond: (c) => (c.text.startsWith('DATA UPDATE FINGERTMP') ? -9 : undefined) }, ['size-mismatch']);
    await person('DIAG-SIZE', '10', ['size-mismatch']);
    await drain(t);
    const d = await raised('commands_failing', 'SIZE-1');
    expect(d.details).toMatchObject({ kinds: ['update_template'], last_return_code: -9, last_reason: 'Return=-9 (the template size does not match its data)' });
    expect(d.message).toContain('Its answer to sending a fingerprint: Return=-9 (the template size does not match its data).');
    expect(d.message).not.toContain('unknown code');
  });

  test('a fingerprint the service cannot decrypt: commands_failing says the service failed it, never sent, not the terminal', async () => {
    expect((await server.admin.post('/areas/', { name: 'unreadable' })).status).toBe(201);
    const t = await approved('NOKEY-1', {}, ['unreadable']);
    const p = await person('DIAG-NOKEY', '10', ['unreadable']);
    // Sealed under a key this service no longer holds, as after a key ring lost in a restore.
    await server.fpa.db.client.execute({ sql: 'update fpa_templates set ciphertext = zeroblob(64) where enrollee_id = ?', args: [p.id] });
    await drain(t);
    const d = await raised('commands_failing', 'NOKEY-1');
    expect(d.details).toMatchObject({
      kinds: ['update_template'],
      last_reason: 'template cannot be decrypted',
      last_failed_by: 'service',
      last_return_code: null,
    });
    expect(d.message).toStartWith('The service could not send commands to terminal NOKEY-1: 1 command for it failed');
    expect(d.message).not.toContain('refuses');
    expect(d.fix).toContain('key ring');
    // The terminal took the person itself: its own answers are the terminal's, and worked.
    expect((d.details.by_kind as { failed_by: string }[]).map((k) => k.failed_by)).toEqual(['service']);
  });

  test('a terminal refusing deletes (Return=-3): commands_failing since the first refusal, retried, beside a failed info; another delete taken does not lift it, this one taken does', async () => {
    expect((await server.admin.post('/areas/', { name: 'refused-deletes' })).status).toBe(201);
    let refusesDelete = true;
    let refusesInfo = true;
    const refused = await person('DIAG-DELNO', '10', ['refused-deletes']);
    const other = await person('DIAG-DELOK', '10', ['refused-deletes']);
    const t = await approved(
      'DELNO-1',
      {
        respond: (c) =>
          (refusesDelete && c.text.startsWith(`DATA DELETE USERINFO PIN=${refused.device_pin}`)) || (refusesInfo && c.text.startsWith('INFO')) ? -3 : undefined,
      },
      ['refused-deletes'],
    );
    await drain(t);
    await cleared('commands_failing', 'DELNO-1');
    // The person deleted: the terminal refuses the delete. Retried for ever, so never `failed`, yet said at once.
    expect((await server.admin.delete(`/enrollees/${refused.id}/`)).status).toBe(204);
    await drain(t);
    const d = await raised('commands_failing', 'DELNO-1');
    expect(d.severity).toBe('error');
    expect(d.details).toMatchObject({
      commands: 1,
      retrying: 1,
      kinds: ['delete_user'],
      last_kind: 'delete_user',
      last_return_code: -3,
      last_failed_by: 'terminal',
    });
    expect(d.details.by_kind).toEqual([
      expect.objectContaining({ kind: 'delete_user', commands: 1, retrying: 1, last_reason: 'Return=-3 (storage error on the terminal)' }),
    ]);
    expect(d.message).toMatch(
      /^Terminal DELNO-1 refuses to delete people's data: 1 delete for it has been refused since \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\)/,
    );
    expect(d.message).toContain('Its answer to removing a person: Return=-3 (storage error on the terminal).');
    expect(d.message).toContain(
      "Until then, what it deletes (a person's user record or fingerprints) stays on the terminal, and a deletion proof that waits for it stays pending.",
    );
    expect(d.fix).toContain('retried by itself');
    // The proof shows the same: still owed, with the terminal's answer.
    const proof = await server.admin.get(`/enrollees/${refused.id}/deletion-proof/`);
    expect(proof.body.terminals).toEqual([
      expect.objectContaining({ serial_number: 'DELNO-1', status: 'pending', command: expect.objectContaining({ return_code: -3 }) }),
    ]);
    // Refused again at its retry: still since the first refusal.
    offset += 61 * 60_000;
    await drain(t);
    expect(await find('commands_failing', 'DELNO-1')).toMatchObject({ since: d.since, details: { commands: 1, retrying: 1 } });
    // An info refused until its retries ran out: both said, counted together, each with its own words.
    expect((await server.admin.post('/devices/DELNO-1/commands/', { kind: 'info' })).status).toBe(201);
    for (let i = 0; i <= server.fpa.settings.COMMAND_MAX_RETRIES; i++) {
      await drain(t);
      offset += 61 * 60_000;
    }
    const both = await raised('commands_failing', 'DELNO-1');
    expect(both.since).toBe(d.since);
    expect(both.details).toMatchObject({ commands: 2, retrying: 1 });
    expect([...(both.details.kinds as string[])].sort()).toEqual(['delete_user', 'info']);
    expect(both.message).toMatch(
      /^Terminal DELNO-1 refuses its commands: 1 command for it failed since .*, and none of the same kind has worked there since\./,
    );
    expect(both.message).toContain('Its answer to reading its information: Return=-3 (storage error on the terminal).');
    expect(both.message).toContain('It refuses deletes too: 1 delete for it has been refused since');
    expect(both.message).toContain('stays on the terminal');
    // Another person's delete taken there does not lift it: this person's data is still on the terminal.
    expect((await server.admin.delete(`/enrollees/${other.id}/`)).status).toBe(204);
    await drain(t);
    expect(await find('commands_failing', 'DELNO-1')).toMatchObject({ since: d.since, details: { retrying: 1 } });
    // Fixed: the delete taken at its next retry; the info still failed stands on its own.
    refusesDelete = false;
    offset += 61 * 60_000;
    await drain(t);
    const infoOnly = await raised('commands_failing', 'DELNO-1');
    expect(infoOnly.details).toMatchObject({ commands: 1, retrying: 0, kinds: ['info'] });
    expect(infoOnly.message).not.toContain('refuses deletes');
    expect((await server.admin.get(`/enrollees/${refused.id}/deletion-proof/`)).body.complete).toBe(true);
    refusesInfo = false;
    expect((await server.admin.post('/devices/DELNO-1/commands/', { kind: 'info' })).status).toBe(201);
    await drain(t);
    await cleared('commands_failing', 'DELNO-1');
  });

  test('a fingerprint sent once, unanswered, then found undecryptable: still the service that failed it', async () => {
    expect((await server.admin.post('/areas/', { name: 'unreadable-later' })).status).toBe(201);
    let answers = false;
    // It answers the query of its users (a person's commands wait for that answer), nothing else.
    const t = await approved('NOKEY-2', { respond: (c) => (answers || c.text.startsWith('DATA QUERY') ? undefined : 'ignore') }, ['unreadable-later']);
    const p = await person('DIAG-NOKEY2', '10', ['unreadable-later']);
    await drain(t);
    // Sent and unanswered: put back in the queue by the retry job, its first send kept.
    offset += server.fpa.settings.COMMAND_ACK_TIMEOUT + 60_000;
    expect((await server.admin.post('/jobs/retry-commands/run/')).status).toBe(200);
    offset += 10 * 60_000;
    await server.fpa.db.client.execute({ sql: 'update fpa_templates set ciphertext = zeroblob(64) where enrollee_id = ?', args: [p.id] });
    answers = true;
    await drain(t);
    // The one that went out (attempts 1) is the service's failure too, in its own result.
    const failed = await server.fpa.db.client.execute(
      "select c.sent_at, c.attempts, c.result ->> 'failed_by' as by from fpa_device_commands c join fpa_devices d on d.id = c.device_id where d.serial_number = 'NOKEY-2' and c.status = 'failed'",
    );
    expect(failed.rows.some((r) => r.sent_at !== null && Number(r.attempts) > 0)).toBe(true);
    expect(failed.rows.map((r) => r.by)).toEqual(failed.rows.map(() => 'service'));
    const d = await raised('commands_failing', 'NOKEY-2');
    expect(d.details).toMatchObject({ last_kind: 'update_template', last_reason: 'template cannot be decrypted', last_failed_by: 'service' });
    expect(d.message).toStartWith('The service could not send commands to terminal NOKEY-2');
  });

  test('a clock five minutes ahead; a right clock clears it', async () => {
    const t = await approved('CLOCK-1');
    await t.punch([{ pin: '1', at: new Date(clock.now() + 5 * 60_000) }]);
    const d = await raised('clock_drift', 'CLOCK-1');
    expect(Number(d.details.drift_seconds)).toBeGreaterThan(250);
    expect(d.message).toContain('ahead');
    await t.punch([{ pin: '1', at: new Date(clock.now()) }]);
    await cleared('clock_drift', 'CLOCK-1');
  });

  test('a time zone never set (TIME_ZONE left at UTC); setting it clears it', async () => {
    await approved('ZONE-1');
    await raised('time_zone_not_set', 'ZONE-1');
    expect((await server.admin.patch('/devices/ZONE-1/', { time_zone: 'Africa/Lagos' })).status).toBe(200);
    await cleared('time_zone_not_set', 'ZONE-1');
  });

  test('a terminal keeping another zone’s time than attendance’s: said, with what a schedule’s 09:00 is there; a zone whose clocks always agree is not', async () => {
    await approved('ZONE-2');
    expect((await server.admin.patch('/devices/ZONE-2/', { time_zone: 'Asia/Kolkata' })).status).toBe(200);
    const d = await raised('other_time_zone', 'ZONE-2');
    expect(d.severity).toBe('warning');
    expect(d.message).toContain('a schedule’s 09:00 is 09:00 in UTC, 14:30 on this terminal today');
    expect(d.fix).toContain('give its area the time zone Asia/Kolkata');
    expect(d.details).toEqual({ time_zone: 'Asia/Kolkata', attendance_time_zone: 'UTC' });
    expect((await server.admin.patch('/devices/ZONE-2/', { time_zone: 'Etc/UTC' })).status).toBe(200);
    await cleared('other_time_zone', 'ZONE-2');
  });

  test('fingerprints of an algorithm the terminal refuses; enrolling them again in its algorithm clears it', async () => {
    await approved('ALG12-1', { fpVersion: '12' });
    const p = await person('DIAG-ALG');
    const d = await raised('templates_incompatible', 'ALG12-1');
    expect(d.details).toMatchObject({ templates: 1, people: 1, algorithms: ['10'], terminal_algorithm: '12' });
    expect(d.message).toStartWith('1 fingerprint of 1 person cannot be used by terminal ALG12-1');
    await server.fpa.service.storeTemplate(p.id, 6, new Uint8Array(Buffer.from(syntheticTemplate(200), 'base64')), { algorithmVersion: '12', by: 'test' });
    await cleared('templates_incompatible', 'ALG12-1');
  });

  test('a face a terminal does not read, or reads with another algorithm: the kind is named, and the reason (kind not supported, algorithm)', async () => {
    expect((await server.admin.post('/areas/', { name: 'faces' })).status).toBe(201);
    const v5l = await approved('FACE-V5L', { biodata: true, kinds: { visible_face: '58.10' } }, ['faces']);
    await approved('FACE-FP', {}, ['faces']);
    await approved('FACE-40', { biodata: true, kinds: { visible_face: '40.0' } }, ['faces']);
    const p = await person('DIAG-FACE', '10', ['faces']);
    // A walk-up at the V5L: a visible-light face 58.10 (BIODATA Type=9), fanned out to the area.
    expect((await v5l.enrollKind(p.device_pin, 'visible_face')).body).toBe('OK:1');

    const unsupported = await raised('templates_incompatible', 'FACE-FP');
    expect(unsupported.severity).toBe('warning');
    expect(unsupported.message).toBe(
      '1 visible-light face of 1 person cannot be used by terminal FACE-FP: the terminal does not read visible-light faces (it has not said it does). Those people cannot identify there by face.',
    );
    expect(unsupported.message).not.toContain('fingerprint');
    expect(unsupported.fix).toStartWith('Nothing to fix if those people identify at this terminal another way');
    expect(unsupported.fix).not.toContain('algorithm');
    expect(unsupported.details).toMatchObject({ kind: 'visible_face', reason: 'kind_not_supported', parts: 1, templates: 1, people: 1, algorithms: ['58.10'] });

    const otherAlgorithm = await raised('templates_incompatible', 'FACE-40');
    expect(otherAlgorithm.severity).toBe('error');
    expect(otherAlgorithm.message).toBe(
      '1 visible-light face of 1 person cannot be used by terminal FACE-40: they were made with visible-light face algorithm 58.10 and the terminal takes 40. Those people cannot identify there by face.',
    );
    expect(otherAlgorithm.fix).toContain('visible-light faces again at this terminal');
    expect(otherAlgorithm.details).toMatchObject({ kind: 'visible_face', reason: 'algorithm', terminal_algorithm: '40' });
    // Fingerprints reach both: nothing said about them there.
    const all = (await diagnostics()).filter((d) => d.kind === 'templates_incompatible' && ['FACE-FP', 'FACE-40'].includes(d.device));
    expect(all).toHaveLength(2);
  });

  test('a full terminal; room made and the reconciliation clear it', async () => {
    const t = await approved('FULL-1', { capacity: { templates: 0 } });
    await person('DIAG-FULL');
    await drain(t);
    const d = await raised('terminal_full', 'FULL-1');
    expect(Number(d.details.templates)).toBeGreaterThan(0);
    // The installer made room; the hourly reconciliation sends the fingerprints again.
    t.capacity.templates = Number.POSITIVE_INFINITY;
    expect((await server.admin.post('/jobs/reconcile-devices/run/')).status).toBe(200);
    await drain(t);
    await cleared('terminal_full', 'FULL-1');
  });

  test('a refusal stands through the reconciliation’s retries, its since where it first happened; the terminal taking them clears it', async () => {
    // An area of their own: the people of the tests before are not sent to these terminals.
    expect((await server.admin.post('/areas/', { name: 'refusals' })).status).toBe(201);
    let refuses = true;
    const inc = await approved('INC-2', { respond: (c) => (refuses && c.text.startsWith('DATA UPDATE FINGERTMP') ? -30 : undefined) }, ['refusals']);
    const full = await approved('FULL-2', { capacity: { templates: 0 } }, ['refusals']);
    await person('DIAG-REFUSED', '10', ['refusals']);
    await drain(inc);
    await drain(full);
    const refused = await raised('templates_incompatible', 'INC-2');
    const wasFull = await raised('terminal_full', 'FULL-2');
    // Said once, with their own fix: the failed commands of those refusals are not commands_failing too.
    await cleared('commands_failing', 'INC-2');
    await cleared('commands_failing', 'FULL-2');
    // Refused by the terminal (Return=-30): said so, not "made with algorithm 10 and it takes 10".
    expect(refused.message).toBe(
      '1 fingerprint of 1 person cannot be used by terminal INC-2: the terminal refused them (Return=-30: their algorithm, 10, is not one it takes, though it reports algorithm 10). Those people cannot identify there by fingerprint.',
    );
    expect(refused.details).toMatchObject({ templates: 1, people: 1, refused_by_terminal: 1, return_codes: [-30] });
    offset += 10 * 60_000;
    // The reconciliation queues them again: nothing reached the terminals yet, the refusals stand.
    expect((await server.admin.post('/jobs/reconcile-devices/run/')).status).toBe(200);
    expect(await find('templates_incompatible', 'INC-2')).toMatchObject({ since: refused.since, details: { templates: 1 } });
    expect(await find('terminal_full', 'FULL-2')).toMatchObject({ since: wasFull.since });
    // The terminals stay away until those retries expire: nothing reached them, the refusals stand.
    offset += server.fpa.settings.COMMAND_EXPIRY + 60_000;
    expect((await server.admin.post('/jobs/expire-commands/run/')).status).toBe(200);
    expect(await find('templates_incompatible', 'INC-2')).toMatchObject({ since: refused.since });
    expect(await find('terminal_full', 'FULL-2')).toMatchObject({ since: wasFull.since });
    // Back, sent them again, and refused again: still the first refusal's time.
    expect((await server.admin.post('/jobs/reconcile-devices/run/')).status).toBe(200);
    await drain(inc);
    await drain(full);
    expect(await find('templates_incompatible', 'INC-2')).toMatchObject({ since: refused.since });
    expect(await find('terminal_full', 'FULL-2')).toMatchObject({ since: wasFull.since });
    // Taken at the next retry: cleared.
    refuses = false;
    full.capacity.templates = Number.POSITIVE_INFINITY;
    expect((await server.admin.post('/jobs/reconcile-devices/run/')).status).toBe(200);
    await drain(inc);
    await drain(full);
    await cleared('templates_incompatible', 'INC-2');
    await cleared('terminal_full', 'FULL-2');
  });

  test('some refused by the terminal, others not sent for their algorithm: the message tells the two apart', async () => {
    expect((await server.admin.post('/areas/', { name: 'mixed' })).status).toBe(201);
    const t = await approved('INC-3', { respond: (c) => (c.text.startsWith('DATA UPDATE FINGERTMP') ? -30 : undefined) }, ['mixed']);
    await person('DIAG-MIXED-10', '10', ['mixed']);
    await person('DIAG-MIXED-12', '12', ['mixed']);
    await drain(t);
    const d = await raised('templates_incompatible', 'INC-3');
    expect(d.message).toBe(
      '2 fingerprints of 2 people cannot be used by terminal INC-3: the terminal refused 1 of them (Return=-30: not an algorithm it takes), and 1 other was made with algorithm 12, where the terminal takes 10. Those people cannot identify there by fingerprint.',
    );
    expect(d.details).toMatchObject({ templates: 2, algorithms: ['10', '12'], refused_by_terminal: 1, return_codes: [-30] });
    // The reconciliation judges the one again and sends the other again: both still since the first time.
    offset += 10 * 60_000;
    expect((await server.admin.post('/jobs/reconcile-devices/run/')).status).toBe(200);
    expect(await find('templates_incompatible', 'INC-3')).toMatchObject({ since: d.since, details: { templates: 2, refused_by_terminal: 1 } });
    await drain(t);
    expect(await find('templates_incompatible', 'INC-3')).toMatchObject({ since: d.since, details: { templates: 2, refused_by_terminal: 1 } });
  });

  test('a refused communication key; the key entered in the terminal clears it', async () => {
    const t = await approved('KEYED-1');
    const issued = await server.admin.post('/devices/KEYED-1/keys/');
    expect(issued.status).toBe(201);
    offset += 2 * 60_000;
    expect((await t.get('getrequest')).status).toBe(403);
    const d = await raised('key_refused', 'KEYED-1');
    expect(d.severity).toBe('error');
    offset += 2 * 60_000;
    t.commKey = issued.body.key;
    expect((await t.get('getrequest')).status).toBe(200);
    await cleared('key_refused', 'KEYED-1');
  });

  test('a terminal heard from a new address; confirming the address clears it', async () => {
    await approved('MOVED-1');
    const moved = new SimulatedTerminal({ url: server.url, sn: 'MOVED-1', fetch: fetchFrom(SECOND_ADDRESS) });
    await moved.get('getrequest');
    const d = await raised('new_address', 'MOVED-1');
    expect(d.details).toMatchObject({ pinned_ip: '127.0.0.1', ip: SECOND_ADDRESS });
    expect((await server.admin.post('/devices/MOVED-1/confirm-address/', { address: SECOND_ADDRESS })).status).toBe(200);
    await cleared('new_address', 'MOVED-1');
  });

  test('a terminal that cannot send its punches again (Return=-1002): punches_not_resent, whose fix is its USB file; importing it closes the gap and clears it', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'NORESEND-1', areas: ['default'] })).status).toBe(201);
    const t = new SimulatedTerminal({
      url: server.url,
      sn: 'NORESEND-1',
      now: clock.now,
      respond: (c) => (c.text.startsWith('DATA QUERY ATTLOG') ? -1002 : undefined),
    });
    // Two punches in its log before it first calls, never sent by itself; one sent.
    t.holdUnsent([0, 1].map((i) => ({ pin: String(61 + i), at: new Date(clock.now() - (2 - i) * 1_800_000) })));
    await t.handshake();
    await t.postOptions();
    expect((await t.punch([{ pin: '63', at: new Date(clock.now() - 60_000) }])).body).toStartWith('OK');
    await drain(t);
    offset += 2 * 60_000;
    expect((await server.admin.post('/jobs/check-completeness/run/')).status).toBe(200);
    await drain(t); // answers the re-upload with −1002
    const d = await raised('punches_not_resent', 'NORESEND-1');
    expect(d.severity).toBe('error');
    expect(d.details).toMatchObject({ missing: 2, commands: 1, last_return_code: -1002 });
    expect(d.message).toMatch(/^Terminal NORESEND-1 holds 2 punches that are not stored here and does not send them again: asked once since /);
    expect(d.message).toContain('it answered Return=-1002 (the terminal does not support this command), so its firmware cannot send punches again.');
    expect(d.message).not.toContain('people, fingerprints, deletes');
    expect(d.fix).toContain('Save its punches to a USB stick at the terminal');
    expect(d.fix).toContain('POST devices/NORESEND-1/punches/import/');
    expect(d.fix).not.toContain('make room on it');
    // Said once, with its own fix: not as a failed command too.
    await cleared('commands_failing', 'NORESEND-1');

    // Its USB file imported: the two missing stored, the one sent a duplicate; the next check closes the gap.
    const imported = await fetch(`${server.admin.base}/devices/NORESEND-1/punches/import/`, {
      method: 'POST',
      headers: server.admin.headers,
      body: usbAttlogFile(t),
    });
    expect(await imported.json()).toMatchObject({ imported: 2, duplicates: 1 });
    expect((await server.admin.post('/jobs/check-completeness/run/')).status).toBe(200);
    expect((await server.admin.get('/devices/NORESEND-1/completeness/')).body.counts).toMatchObject({ missing: null });
    await cleared('punches_not_resent', 'NORESEND-1');
    await cleared('commands_failing', 'NORESEND-1');

    // Asked by hand for a day and refused: no gap to close, said as a failed request (a day, or a re-upload that works).
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    expect((await server.admin.post('/devices/NORESEND-1/commands/', { kind: 'reupload_logs', from: today, to: today })).status).toBe(201);
    await drain(t);
    const byHand = await raised('punches_not_resent', 'NORESEND-1');
    expect(byHand.details).toMatchObject({ missing: null, gap_since: null, last_return_code: -1002 });
    expect(byHand.message).toContain('Punches of the range asked may not all be stored here.');
    expect(byHand.fix).toContain('POST devices/NORESEND-1/punches/import/');
    await cleared('commands_failing', 'NORESEND-1');
  });
});

describe('registrations refused because too many terminals wait for approval', () => {
  test('two refusals within the 5 seconds one write covers: both counted, the last named, at once, and written by the end of the 5 seconds or when the server stops', async () => {
    const dir = tempDir();
    const full = await startTestServer({ ADMS_MAX_PENDING_DEVICES: 1 }, { dir: dir.dir });
    const knock = async (sn: string) => (await fetch(`${full.url}/iclock/cdata?SN=${sn}&options=all`)).status;
    let stopped = false;
    try {
      expect(await knock('JUNK10')).toBe(200);
      expect(await knock('JUNK11')).not.toBe(200);
      expect(await knock('JUNK12')).not.toBe(200);
      // The first refusal is written in the background (waited for here, well within the 5
      // seconds); the second is held for the next write, and said with it meanwhile.
      let said: Diag | undefined;
      for (let i = 0; i < 40; i++) {
        said = ((await full.admin.get('/diagnostics/')).body.results as Diag[]).find((d) => d.kind === 'registration_refused');
        if (said?.details.refused === 2) break;
        await Bun.sleep(50);
      }
      expect(said).toMatchObject({ device: 'JUNK12', details: { refused: 2, last_serial: 'JUNK12' } });
      expect(said!.message).toContain('refused 2 times in the last hour (the last: serial JUNK12 from 127.0.0.1)');
      expect(said!.message).not.toContain('once');
      // No refusal after them: the count held back is written all the same, at the end of the 5 seconds.
      const written = async () => {
        const row = (await full.fpa.db.client.execute('select refused, last_serial from fpa_registration_refusals')).rows[0]!;
        return [Number(row.refused), String(row.last_serial)];
      };
      for (let i = 0; i < 80 && (await written())[0] !== 2; i++) await Bun.sleep(100);
      expect(await written()).toEqual([2, 'JUNK12']);
      // Two more, the second held: written when the server stops.
      expect(await knock('JUNK13')).not.toBe(200);
      expect(await knock('JUNK14')).not.toBe(200);
      await full.close();
      stopped = true;
      const db = await openDatabase({ url: `file:${join(dir.dir, 'fpa.db')}`, backgroundCheckpoint: false });
      try {
        const row = (await db.client.execute('select refused, last_serial from fpa_registration_refusals')).rows[0]!;
        expect([Number(row.refused), String(row.last_serial)]).toEqual([4, 'JUNK14']);
      } finally {
        await db.close();
      }
    } finally {
      if (!stopped) await full.close();
      dir.cleanup();
    }
  });

  test('counted, the last serial named, shown to a limited caller too; a quiet hour clears it', async () => {
    let shift = 0;
    const full = await startTestServer({ ADMS_MAX_PENDING_DEVICES: 1 }, { clock: { now: () => Date.now() + shift } });
    const knock = async (sn: string) => (await fetch(`${full.url}/iclock/cdata?SN=${sn}&options=all`)).status;
    const refusal = async () => {
      const res = await full.admin.get('/diagnostics/');
      return (res.body.results as Diag[]).find((d) => d.kind === 'registration_refused');
    };
    /** The refusals are written in the background: wait for the count. */
    const refusedCount = async (n: number) => {
      for (let i = 0; i < 100 && (await refusal())?.details.refused !== n; i++) await Bun.sleep(50);
      return refusal();
    };
    try {
      expect(await knock('JUNK-1')).toBe(200);
      // The list is full: a real terminal knocking now is refused, and never appears in Terminals.
      expect(await knock('MINE-1')).not.toBe(200);
      expect((await full.admin.get('/devices/MINE-1/')).status).toBe(404);
      const first = await refusedCount(1);
      expect(first).toMatchObject({ severity: 'error', device: 'MINE-1', details: { limit: 'ADMS_MAX_PENDING_DEVICES', max: 1, refused: 1, ip: '127.0.0.1' } });
      expect(first!.message).toContain('Unknown terminals were refused once in the last hour (the last: serial MINE-1 from 127.0.0.1)');
      expect(first!.fix).toContain('approve your terminals and remove the ones that are not yours');
      // Knocks in quick succession are counted in memory and written with the next one.
      expect(await knock('MINE-1')).not.toBe(200);
      shift += 6_000;
      expect(await knock('MINE-2')).not.toBe(200);
      const later = await refusedCount(3);
      expect(later).toMatchObject({ device: 'MINE-2', details: { refused: 3 } });
      expect(later!.message).toContain('refused 3 times');
      // A caller limited to an area sees it too: the installer of a site must learn why.
      const north = new ApiClient(full.admin.base, {
        authorization: `Bearer ${await adminToken({ sub: 'i@example.com', role: 'installer', areas: ['north'] })}`,
      });
      expect(((await north.get('/diagnostics/')).body.results as Diag[]).some((d) => d.kind === 'registration_refused')).toBe(true);
      shift += 3_600_000 + 60_000;
      expect(await refusal()).toBeUndefined();
    } finally {
      await full.close();
    }
  });
});

// Under ADMS_TRUST=key an approved terminal without a key was said to be offline, "check that it
// is powered and on the network": it was, and every request it made was refused for its key.
describe('a terminal without a communication key where every terminal needs one (ADMS_TRUST=key)', () => {
  test('key_missing, not offline, with the key as its fix; a key issued and entered clears it', async () => {
    let shift = 0;
    const keyed = await startTestServer({ ADMS_TRUST: 'key', TIME_ZONE: 'Europe/Berlin' }, { clock: { now: () => Date.now() + shift } });
    try {
      const t = new SimulatedTerminal({ url: keyed.url, sn: 'NOKEY-1' });
      await t.handshake();
      expect((await keyed.admin.post('/devices/NOKEY-1/approve/', {})).status).toBe(200);
      await t.get('getrequest'); // answered, and not counted as contact: no key
      const said = async () => ((await keyed.admin.get('/diagnostics/')).body.results as Diag[]).filter((d) => d.device === 'NOKEY-1');
      const before = await said();
      expect(before.map((d) => d.kind)).toEqual(['key_missing']);
      expect(before[0]).toMatchObject({ severity: 'error' });
      expect(before[0]!.message).toContain('ADMS_TRUST=key');
      expect(before[0]!.fix).toContain('Terminals → NOKEY-1 → Keys');
      // An hour on, the check-devices job finds it silent: still said as the key, not the network.
      shift += 3_600_000;
      await t.get('getrequest');
      expect((await keyed.admin.post('/jobs/check-devices/run/')).status).toBe(200);
      expect((await keyed.admin.get('/devices/NOKEY-1/')).body.online).toBe(false);
      expect((await said()).map((d) => d.kind)).toEqual(['key_missing']);
      const issued = await keyed.admin.post('/devices/NOKEY-1/keys/');
      expect(issued.status).toBe(201);
      t.commKey = issued.body.key;
      expect((await t.get('getrequest')).status).toBe(200);
      expect((await said()).map((d) => d.kind)).toEqual([]);
    } finally {
      await keyed.close();
    }
  });
});
