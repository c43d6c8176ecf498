/**
 * Corrections through the real server: manual punches, imports and voids — stored in the feed
 * like terminals' punches, announced with their source, audited with who did it, deduplicated
 * sanely, and flagged `after_lock` when their date is in a locked pay period.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DeviceRow } from '../../../src/modules/devices/tables';
import { createPeople, dayOf, linesAt, type Person, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

const ZONE = 'Asia/Kolkata';
const API = '/api/fingerprint/v1';
let now = Date.parse('2026-03-20T06:00:00Z');
let server: TestServer;
let device: DeviceRow;
let people: Record<string, Person>;

async function importText(body: string, contentType: string) {
  const res = await fetch(`${server.url}${API}/punches/import/`, { method: 'POST', headers: { ...server.admin.headers, 'content-type': contentType }, body });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: ZONE, DEFAULT_SCHEDULE: '09:00-17:00/10m' }, { clock: { now: () => now } });
  people = await createPeople(server, ['M-1', 'M-2', 'M-3']);
  device = await terminal(server, 'CORR0001');
});
afterAll(async () => {
  await server.close();
});

describe('POST punches/manual/', () => {
  test('stores a device-less punch in the feed, announced with its source and who entered it', async () => {
    await upload(server, device, linesAt(ZONE, people['M-1']!.pin, '2026-03-16 09:00:00'));
    const before = (await server.admin.get('/punches/latest/?after=0')).body.last_sequence;
    const res = await server.admin.post('/punches/manual/', { enrollee: people['M-1']!.id, at: '2026-03-16 17:30', state: 1, reason: 'reader was down' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      sequence: before + 1,
      employee: 'M-1',
      enrollee: people['M-1']!.id,
      device_pin: people['M-1']!.pin,
      device: null,
      punched_at: '2026-03-16T12:00:00.000Z',
      local_time: '2026-03-16 17:30:00',
      utc_offset_minutes: 330,
      state: 1,
      source: 'manual',
      voided: false,
      flags: [],
    });
    // The feed has it, right after the terminal's punch, no gap.
    const feed = await server.admin.get(`/punches/latest/?after=${before - 1}`);
    expect(feed.body.results.map((p: { sequence: number; source: string }) => [p.sequence, p.source])).toEqual([
      [before, 'device'],
      [before + 1, 'manual'],
    ]);
    const events = await server.admin.get('/events/?type=punch_received&limit=1000');
    const last = events.body.results[events.body.results.length - 1];
    expect(last.data).toMatchObject({ punch: { id: res.body.id, source: 'manual' }, sender: null, by: 'admin@example.com' });
    expect(await dayOf(server, 'M-1', '2026-03-16')).toMatchObject({ status: 'present', flags: ['overtime', 'manual'], worked_seconds: 8.5 * 3600 });
    // Listed with the terminals' punches, and by source.
    const manual = await server.admin.get('/punches/?source=manual');
    expect(manual.body.results.map((p: { id: string }) => p.id)).toEqual([res.body.id]);
    // The in-process API does the same.
    const inProcess = await server.fpa.service.recordManualPunch(people['M-3']!.id, {
      at: '2026-03-16T03:30:00Z',
      reason: 'visitor badge',
      by: 'hr@example.com',
    });
    expect(inProcess).toMatchObject({ source: 'manual', employee: 'M-3' });
  });

  test('refuses a punch the enrollee already has at that instant, an unknown enrollee, a bad or future time', async () => {
    const again = await server.admin.post('/punches/manual/', { enrollee: people['M-1']!.pin, at: '2026-03-16T03:30:00Z', reason: 'twice' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect((await server.admin.post('/punches/manual/', { enrollee: crypto.randomUUID(), at: '2026-03-16 08:00', reason: 'x' })).status).toBe(404);
    const bad = await server.admin.post('/punches/manual/', { enrollee: people['M-1']!.id, at: '2026-03-16 25:00', reason: 'x' });
    expect(bad.body.error).toMatchObject({ code: 'validation_error', details: { field: 'at' } });
    expect((await server.admin.post('/punches/manual/', { enrollee: people['M-1']!.id, at: '2026-03-21 08:00', reason: 'x' })).status).toBe(400);
    expect((await server.admin.post('/punches/manual/', { enrollee: people['M-1']!.id, at: '2026-03-16 08:00' })).status).toBe(400);
  });

  test('a reason of spaces only says nothing: refused as an empty one is, naming the field; spaces around one are dropped', async () => {
    const manual = (reason: string) => server.admin.post('/punches/manual/', { enrollee: people['M-2']!.id, at: '2026-03-16 08:10', reason });
    for (const blank of ['   ', ' \u00a0\u3000 ']) {
      const refused = await manual(blank);
      expect({ blank, status: refused.status, error: refused.body.error }).toMatchObject({
        blank,
        status: 400,
        error: { code: 'validation_error', message: 'reason must not be blank: say why', details: { field: 'reason' } },
      });
    }
    // As before: empty, or a control character, refused by the schema (naming the field too).
    for (const bad of ['', '\t']) {
      const refused = await manual(bad);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.errors[0].path).toBe('/reason');
    }
    expect((await server.admin.get('/punches/?employee=M-2&from=2026-03-16&to=2026-03-16')).body.results).toEqual([]);
    const kept = await manual('  reader was down  ');
    expect(kept.status).toBe(201);
    expect(kept.body.correction_reason).toBe('reader was down');
    const trail = await server.admin.get('/audit-log/?action=punch.manual');
    expect(trail.body.results[0].details).toMatchObject({ employee: 'M-2', reason: 'reader was down' });
  });
});

describe('POST punches/import/', () => {
  test('JSON records: good ones stored, bad ones named by position, duplicates of any source counted', async () => {
    // M-2's terminal punch at 09:05 is already stored; the file has it too.
    await upload(server, device, linesAt(ZONE, people['M-2']!.pin, '2026-03-17 09:05:00'));
    const res = await server.admin.request('POST', '/punches/import/', [
      { employee: 'M-2', at: '2026-03-17 09:05' },
      { employee: 'M-2', at: '2026-03-17T17:10:00+05:30', state: '1' },
      { employee: 'M-2', at: '2026-03-17 17:10', state: 1 },
      { employee: 'M-2', at: 'soon' },
      { employee: 'M-2', at: '2026-03-18 09:00', extra: true },
      'M-2,2026-03-18 09:00',
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dry_run: false,
      imported: 1,
      duplicates: 2,
      errors: [
        { line: 4, message: expect.stringContaining('`at`') },
        { line: 5, message: 'unknown field extra: only employee, at and state' },
        { line: 6, message: expect.stringContaining('object') },
      ],
    });
    expect(await dayOf(server, 'M-2', '2026-03-17')).toMatchObject({ status: 'present', punch_count: 2, flags: ['manual'] });
    const stored = await server.admin.get('/punches/?source=import');
    expect(stored.body.results).toHaveLength(1);
    expect(stored.body.results[0]).toMatchObject({ source: 'import', device: null, state: 1, local_time: '2026-03-17 17:10:00' });
    const audit = await server.admin.get('/audit-log/?action=punch.imported');
    expect(audit.body.results[0]).toMatchObject({ actor: 'admin@example.com', target_id: stored.body.results[0].id });
  });

  test('a dry run answers what the import will do, and stores, announces and audits nothing', async () => {
    const csv = 'employee,at,state\nM-3,2026-03-19 09:02,0\nM-3,2026-03-19 17:01,1\nM-3,2026-03-19 17:01,1\nNOBODY,2026-03-19 09:00,0\n';
    const events = async () => (await server.admin.get('/events/?type=punch_received&limit=1000')).body.results.length;
    const audits = async () => (await server.admin.get('/audit-log/?action=punch.imported&limit=1000')).body.results.length;
    const punchesOfM3 = async () => (await server.admin.get('/punches/?employee=M-3')).body.results.length;
    const [eventsBefore, auditsBefore, punchesBefore] = [await events(), await audits(), await punchesOfM3()];
    const checked = await fetch(`${server.url}${API}/punches/import/?dry_run=true`, {
      method: 'POST',
      headers: { ...server.admin.headers, 'content-type': 'text/csv' },
      body: csv,
    });
    const predicted = await checked.json();
    expect(predicted).toEqual({ dry_run: true, imported: 2, duplicates: 1, errors: [{ line: 5, message: 'no person has this employee ID' }] });
    expect([await events(), await audits(), await punchesOfM3()]).toEqual([eventsBefore, auditsBefore, punchesBefore]);
    // The import then does what the dry run said.
    expect(await importText(csv, 'text/csv')).toEqual({ status: 200, body: { ...predicted, dry_run: false } });
    expect(await punchesOfM3()).toBe(punchesBefore + 2);
  });

  test('a dry run counts as the insert decides: two instants of one wall-clock second are one punch', async () => {
    const records = [
      { employee: 'M-1', at: '2026-03-19T03:30:00.000Z' },
      { employee: 'M-1', at: '2026-03-19T03:30:00.400Z' },
    ];
    const checked = await server.admin.request('POST', '/punches/import/?dry_run=true', records);
    expect(checked.body).toEqual({ dry_run: true, imported: 1, duplicates: 1, errors: [] });
    expect((await server.admin.request('POST', '/punches/import/', records)).body).toEqual({ dry_run: false, imported: 1, duplicates: 1, errors: [] });
  });

  test('CSV: quoted fields, any column order, extra columns ignored; a bad header or body is refused', async () => {
    const csv = 'Note,State,At,Employee\r\n"late, but ""approved""",0,2026-03-18 09:00,M-2\r\nplain,1,2026-03-18 17:00,M-2\r\n';
    expect(await importText(csv, 'text/csv; charset=utf-8')).toEqual({ status: 200, body: { dry_run: false, imported: 2, duplicates: 0, errors: [] } });
    expect(await importText('who,when\nM-2,2026-03-18 09:00\n', 'text/csv')).toEqual({
      status: 200,
      body: { dry_run: false, imported: 0, duplicates: 0, errors: [{ line: 1, message: expect.stringContaining('header') }] },
    });
    // An empty (0-byte) file: the import's own words, not a body of the wrong shape.
    expect(await importText('', 'text/csv')).toEqual({
      status: 200,
      body: { dry_run: false, imported: 0, duplicates: 0, errors: [{ line: 1, message: 'the file is empty: a header row `employee,at,state` is needed' }] },
    });
    // CSV sent as text/plain: neither of the two media types the import reads (415).
    expect((await importText('employee,at\nM-2,2026-03-18 09:00\n', 'text/plain')).status).toBe(415);
    expect((await importText('{"employee":"M-2"}', 'application/json')).status).toBe(400);
  });
});

describe('POST punches/{id}/void/', () => {
  test('the punch stays listed, voided; the day no longer counts it; a second void is refused', async () => {
    await upload(server, device, linesAt(ZONE, people['M-3']!.pin, '2026-03-18 09:00:00', '2026-03-18 13:00:00', '2026-03-18 17:00:00'));
    expect(await dayOf(server, 'M-3', '2026-03-18')).toMatchObject({ status: 'incomplete', punch_count: 3 });
    const noon = (await server.admin.get('/punches/?employee=M-3&from=2026-03-18T07:30:00Z&to=2026-03-18T07:30:00Z')).body.results[0];
    const res = await server.admin.post(`/punches/${noon.id}/void/`, { reason: 'tapped twice' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: noon.id, sequence: noon.sequence, voided: true, source: 'device' });
    expect(await dayOf(server, 'M-3', '2026-03-18')).toMatchObject({ status: 'present', punch_count: 2, worked_seconds: 8 * 3600 });
    const listed = await server.admin.get('/punches/?employee=M-3&from=2026-03-18&to=2026-03-18');
    expect(listed.body.results.map((p: { voided: boolean }) => p.voided)).toEqual([false, true, false]);
    expect((await server.admin.post(`/punches/${noon.id}/void/`, { reason: 'again' })).status).toBe(409);
    expect((await server.admin.post(`/punches/${crypto.randomUUID()}/void/`, { reason: 'x' })).status).toBe(404);
    const events = await server.admin.get('/events/?type=punch_voided');
    expect(events.body.results[0].data).toMatchObject({ punch: { id: noon.id, voided: true }, reason: 'tapped twice', by: 'admin@example.com' });
    // A reason of spaces only is refused (before the punch is even looked up), as an empty one is.
    const other = (await server.admin.get('/punches/?employee=M-3&from=2026-03-18T03:30:00Z&to=2026-03-18T03:30:00Z')).body.results[0];
    for (const blank of ['   ', '']) {
      const refused = await server.admin.post(`/punches/${other.id}/void/`, { reason: blank });
      expect({ blank, status: refused.status }).toEqual({ blank, status: 400 });
    }
    expect((await server.admin.post(`/punches/${other.id}/void/`, { reason: '   ' })).body.error.details).toEqual({ field: 'reason' });
    expect((await server.admin.get('/punches/?employee=M-3&from=2026-03-18T03:30:00Z&to=2026-03-18T03:30:00Z')).body.results[0].voided).toBe(false);
    // A terminal resending the voided punch does not bring it back.
    expect(await upload(server, device, linesAt(ZONE, people['M-3']!.pin, '2026-03-18 13:00:00'))).toMatchObject({ inserted: 0, duplicates: 1 });
  });

  test("a voided manual punch keeps the reason it was entered with; the void's reason is its own", async () => {
    const manual = await server.admin.post('/punches/manual/', { enrollee: people['M-2']!.id, at: '2026-03-19 08:00', reason: 'forgot to punch' });
    expect(manual.body).toMatchObject({ correction_reason: 'forgot to punch', void_reason: null });
    const voided = await server.admin.post(`/punches/${manual.body.id}/void/`, { reason: 'entered twice' });
    expect(voided.body).toMatchObject({ voided: true, correction_reason: 'forgot to punch', void_reason: 'entered twice' });
    const listed = (await server.admin.get('/punches/?employee=M-2&from=2026-03-19&to=2026-03-19')).body.results;
    expect(listed).toEqual([expect.objectContaining({ id: manual.body.id, correction_reason: 'forgot to punch', void_reason: 'entered twice' })]);
    // The log shows the punch as it is now: the replayed punch_received and the punch_voided alike.
    const received = (await server.admin.get('/events/?type=punch_received&limit=1000')).body.results as { data: { punch: { id: string } } }[];
    expect(received.find((e) => e.data.punch.id === manual.body.id)!.data.punch).toMatchObject({
      correction_reason: 'forgot to punch',
      void_reason: 'entered twice',
    });
    const voids = (await server.admin.get('/events/?type=punch_voided&limit=1000')).body.results as { data: { punch: { id: string }; reason: string } }[];
    expect(voids.find((e) => e.data.punch.id === manual.body.id)!.data).toMatchObject({
      punch: { correction_reason: 'forgot to punch', void_reason: 'entered twice' },
      reason: 'entered twice',
    });
    // A terminal's punch has no entry reason; voided, only the void's.
    await upload(server, device, linesAt(ZONE, people['M-2']!.pin, '2026-03-19 12:00:00'));
    const noon = (await server.admin.get('/punches/?employee=M-2&from=2026-03-19&to=2026-03-19')).body.results[0];
    expect((await server.admin.post(`/punches/${noon.id}/void/`, { reason: 'tapped twice' })).body).toMatchObject({
      source: 'device',
      correction_reason: null,
      void_reason: 'tapped twice',
    });
  });

  test('voiding the only punch of today removes the day until it is over', async () => {
    now = Date.parse('2026-03-20T06:00:00Z');
    const punch = await server.admin.post('/punches/manual/', { enrollee: people['M-3']!.id, at: '2026-03-20 09:00', reason: 'x' });
    expect(await dayOf(server, 'M-3', '2026-03-20')).toMatchObject({ status: 'incomplete' });
    await server.admin.post(`/punches/${punch.body.id}/void/`, { reason: 'wrong person' });
    expect(await dayOf(server, 'M-3', '2026-03-20')).toBeNull();
    const removed = await server.admin.get('/events/?type=attendance_day_removed');
    expect(removed.body.results[0].data).toEqual({ enrollee: people['M-3']!.id, employee: 'M-3', date: '2026-03-20' });
  });
});

describe('after a pay period is locked', () => {
  test('manual punches and voids for its dates are kept, flagged after_lock; its days do not change', async () => {
    const period = await server.admin.post('/pay-periods/', { from: '2026-03-16', to: '2026-03-17' });
    expect((await server.admin.post(`/pay-periods/${period.body.id}/lock/`)).body.locked).toBe(true);
    expect((await server.admin.post(`/pay-periods/${period.body.id}/lock/`)).status).toBe(409);
    expect((await server.admin.post('/pay-periods/', { from: '2026-03-17', to: '2026-03-19' })).status).toBe(409);
    const before = await dayOf(server, 'M-1', '2026-03-16');
    const late = await server.admin.post('/punches/manual/', { enrollee: people['M-1']!.id, at: '2026-03-16 13:00', reason: 'lunch' });
    expect(late.body.flags).toEqual(['after_lock']);
    const first = (await server.admin.get('/punches/?employee=M-1&from=2026-03-16T03:30:00Z&to=2026-03-16T03:30:00Z')).body.results[0];
    const voided = await server.admin.post(`/punches/${first.id}/void/`, { reason: 'wrong' });
    expect(voided.body).toMatchObject({ voided: true, flags: ['after_lock'] });
    expect(await dayOf(server, 'M-1', '2026-03-16')).toEqual(before);
    // Days after the period still follow.
    const next = await server.admin.post('/punches/manual/', { enrollee: people['M-1']!.id, at: '2026-03-18 09:00', reason: 'x' });
    expect(next.body.flags).toEqual([]);
    const periods = await server.admin.get('/pay-periods/?from=2026-03-17&to=2026-03-17');
    expect(periods.body.results).toEqual([expect.objectContaining({ from: '2026-03-16', to: '2026-03-17', locked: true, locked_by: 'admin@example.com' })]);
  });
});
