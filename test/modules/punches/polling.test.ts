import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { FpaEvents } from '../../../src/app/events';
import { startTestServer, type TestServer } from '../../support/harness';
import { approvedDevice, ingest, postAttlog, punchLines } from '../../support/punch-feed';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await server.admin.post('/employees/', { id: 'E-001', name: 'Ada Obi' });
});
afterAll(async () => {
  await server.close();
});

describe('punches out: events and polling', () => {
  test('punch_received reaches an in-process listener after commit, with sender, punch and payload', async () => {
    const enrollee = await server.admin.post('/enrollees/', { employee: 'E-001' });
    const device = await approvedDevice(server, 'EVT0001');
    const received: Array<FpaEvents['punch_received']> = [];
    const off = server.fpa.events.on('punch_received', async (event) => {
      // After commit: the punch is already readable through the API.
      const seen = await server.admin.get(`/punches/latest/?after=${event.punch.sequence - 1}&limit=1`);
      expect(seen.body.results[0].id).toBe(event.punch.id);
      received.push(event);
    });
    const lines = punchLines(enrollee.body.device_pin, 2);
    const reply = await postAttlog(server, 'EVT0001', lines);
    // Listeners run after the commit, each awaiting an API call: wait for them (bounded).
    for (let i = 0; i < 100 && received.length < 2; i++) await Bun.sleep(20);
    off();
    expect(reply).toEqual({ status: 200, text: 'OK:2' });
    expect(received).toHaveLength(2);
    // The listeners ran concurrently (each awaits an API read): take them in punch order.
    received.sort((a, b) => a.punch.sequence - b.punch.sequence);
    const first = received[0]!;
    expect(first.sender).toEqual({ id: device.id, serial_number: 'EVT0001' });
    expect(first.punch.employee).toBe('E-001');
    expect(first.punch.enrollee).toBe(enrollee.body.id);
    expect(first.punch.device).toBe('EVT0001');
    expect(first.punch.punched_at).toBe('2025-01-06T08:00:00.000Z');
    expect(first.payload.raw).toBe(lines[0]!.raw);
    expect(first.payload.line.pin).toBe(enrollee.body.device_pin);
    expect(first.payload.line.localTime).toBe('2025-01-06 08:00:00');

    // A resend of the same lines is a duplicate: stored once, announced once.
    const again = await ingest(server, device, lines);
    expect(again).toEqual({ inserted: 0, duplicates: 2, pastRetention: 0, lastSequence: null });
    expect((await postAttlog(server, 'EVT0001', lines)).status).toBe(200);
    expect(received).toHaveLength(2);
  });

  test('punches/latest/ answers ascending pages with last_sequence; punches/ filters and pages', async () => {
    const device = await approvedDevice(server, 'POLL0001');
    await ingest(server, device, punchLines('9001', 5, Date.UTC(2025, 1, 3, 9, 0, 0)));
    const all = await server.admin.get('/punches/latest/?after=0&limit=1000');
    expect(all.status).toBe(200);
    const sequences = all.body.results.map((p: { sequence: number }) => p.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(all.body.last_sequence).toBe(sequences[sequences.length - 1]);
    const punch = all.body.results[all.body.results.length - 1];
    for (const field of [
      'sequence',
      'id',
      'employee',
      'enrollee',
      'device_pin',
      'device',
      'punched_at',
      'local_time',
      'state',
      'verify_type',
      'work_code',
      'received_at',
    ]) {
      expect(punch).toHaveProperty(field);
    }
    expect(punch.flags).toContain('unknown_pin');

    const tail = await server.admin.get(`/punches/latest?after=${all.body.last_sequence}`);
    expect(tail.body).toEqual({ results: [], last_sequence: all.body.last_sequence });
    const two = await server.admin.get(`/punches/latest/?after=${sequences[0]}&limit=2`);
    expect(two.body.results.map((p: { sequence: number }) => p.sequence)).toEqual(sequences.slice(1, 3));
    expect(two.body.last_sequence).toBe(sequences[2]);

    const bad = await server.admin.get('/punches/latest/?after=-1');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');

    const byDevice = await server.admin.get('/punches/?device=POLL0001&limit=2');
    expect(byDevice.body.results).toHaveLength(2);
    expect(byDevice.body.results.every((p: { device: string }) => p.device === 'POLL0001')).toBe(true);
    const rest = await server.admin.get(`/punches/?device=POLL0001&limit=10&cursor=${byDevice.body.next_cursor}`);
    expect(rest.body.results).toHaveLength(3);
    expect(rest.body.next_cursor).toBeNull();
    const window = await server.admin.get('/punches/?device=POLL0001&from=2025-02-03T09:01:00Z&to=2025-02-03T09:03:00Z');
    expect(window.body.results.map((p: { local_time: string }) => p.local_time)).toEqual(['2025-02-03 09:03:00', '2025-02-03 09:02:00', '2025-02-03 09:01:00']);
    const byEmployee = await server.admin.get('/punches/?employee=E-001');
    expect(byEmployee.body.results.every((p: { employee: string }) => p.employee === 'E-001')).toBe(true);
    expect(byEmployee.body.results.length).toBeGreaterThan(0);
    expect((await server.admin.get('/punches/?cursor=nonsense')).body.error.code).toBe('invalid_cursor');
    expect((await server.admin.get('/punches/?from=yesterday')).status).toBe(400);

    const anonymous = await fetch(`${server.url}/api/fingerprint/v1/punches/latest/?after=0`);
    expect(anonymous.status).toBe(401);
  });

  test('a poller paging with after= sees every punch exactly once, in order, while several terminals upload at once', async () => {
    const devices = await Promise.all(['CONC0001', 'CONC0002', 'CONC0003', 'CONC0004'].map((s) => approvedDevice(server, s)));
    const start = (await server.admin.get('/punches/latest/?after=0&limit=1000')).body.last_sequence as number;
    const batches = 15;
    const perBatch = 7;
    const expected = devices.length * batches * perBatch;
    let writing = true;
    const writers = devices.map(async (device, d) => {
      for (let b = 0; b < batches; b++) {
        // Each writer's batches are distinct punches (PIN per writer, time per batch).
        const reply = await postAttlog(server, device.serialNumber, punchLines(String(7000 + d), perBatch, Date.UTC(2025, 2, 1) + b * 3_600_000));
        expect(reply.text).toBe(`OK:${perBatch}`);
        await Bun.sleep(Math.random() * 3);
      }
    });
    const done = Promise.all(writers).then(() => {
      writing = false;
    });

    const seen: number[] = [];
    const ids = new Set<string>();
    let after = start;
    while (writing || seen.length < expected) {
      const page = await server.admin.get(`/punches/latest/?after=${after}&limit=13`);
      expect(page.status).toBe(200);
      for (const punch of page.body.results as Array<{ sequence: number; id: string }>) {
        seen.push(punch.sequence);
        ids.add(punch.id);
      }
      after = page.body.last_sequence;
      if (!writing && page.body.results.length === 0) break;
    }
    await done;
    expect(seen).toHaveLength(expected);
    expect(ids.size).toBe(expected);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    // Nothing was skipped: the stored punches after `start` are exactly what the poller saw.
    const stored = await server.fpa.db.client.execute({ sql: 'select sequence from fpa_punches where sequence > ? order by sequence', args: [start] });
    expect(stored.rows.map((r) => Number(r.sequence))).toEqual(seen);
  });

  test('an after beyond every sequence handed out is refused with the head (409 cursor_ahead), on punches and events; at the head it waits', async () => {
    const head = (await server.admin.get('/punches/latest/?after=0&limit=1000')).body.last_sequence as number;
    // The newest punches purged: the head is still the highest handed out, not the newest kept.
    await server.fpa.db.client.execute({ sql: 'delete from fpa_punches where sequence > ?', args: [head - 2] });
    expect((await server.admin.get(`/punches/latest/?after=${head}`)).body).toEqual({ results: [], last_sequence: head });
    const beyond = await server.admin.get('/punches/latest/?after=999999');
    expect(beyond.status).toBe(409);
    expect(beyond.body.error).toMatchObject({ code: 'cursor_ahead', details: { after: 999999, last_sequence: head } });
    expect(beyond.body.error.message).toContain('restored from an older copy');
    const events = await server.admin.get('/events/?after=999999');
    expect(events.status).toBe(409);
    expect(events.body.error.code).toBe('cursor_ahead');
    expect(events.body.error.details.last_sequence).toBeLessThan(999999);
    expect((await server.admin.get(`/events/?after=${events.body.error.details.last_sequence}`)).body.results).toEqual([]);
  });
});
