/**
 * Reading the log back (events/newest.ts `readBack`, `events/?order=desc`) a window of sequences
 * at a time, never more than a bound per read: the windows join without a gap or a repeat, a
 * read that looked through its bound answers where it stopped (the next read's `before`), and
 * reads that go on from there end at the first event with `last_sequence` 0. Windows and bound
 * are made small here; the server's are 20,000 and 200,000 sequences.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readBack } from '../../../src/modules/events/newest';
import type { ScopeMembers } from '../../../src/platform/scope';
import { startTestServer, type TestServer } from '../../support/harness';

let server: TestServer;
let north: ScopeMembers;
let head = 0;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { startJobs: false });
  const ids: Record<string, string> = {};
  // People of two areas, each changed a few times: events about each, interleaved.
  for (let i = 0; i < 12; i++) {
    const area = i % 3 === 0 ? 'north' : 'south';
    expect((await server.admin.post('/employees/', { id: `E-${i}`, name: `Person ${i}` })).status).toBe(201);
    const created = await server.admin.post('/enrollees/', { employee: `E-${i}`, areas: [area] });
    expect(created.status).toBe(201);
    ids[`E-${i}`] = created.body.id;
    for (const name of ['one', 'two']) expect((await server.admin.patch(`/enrollees/${created.body.id}/`, { display_name: `${name} ${i}` })).status).toBe(200);
  }
  north = { enrollees: new Set(Object.entries(ids).flatMap(([e, id]) => (Number(e.slice(2)) % 3 === 0 ? [id] : []))), devices: new Set() };
  const last = await server.admin.get('/events/?order=desc&limit=1');
  head = last.body.results[0].sequence;
  expect(head).toBeGreaterThan(30);
});
afterAll(async () => {
  await server?.close();
});

const sequences = (rows: { sequence: number }[]) => rows.map((r) => r.sequence);

describe('readBack', () => {
  test('small windows find what one window finds, for everyone and for an area', async () => {
    for (const members of [null, north]) {
      const whole = await readBack(server.fpa.db, { before: head + 1, floor: 0, limit: 1000, members });
      const windowed = await readBack(server.fpa.db, { before: head + 1, floor: 0, limit: 1000, members }, { window: 3, max: 1_000_000 });
      expect(sequences(windowed.rows)).toEqual(sequences(whole.rows));
      expect(windowed.lastSequence).toBe(0);
      // Newest first, each once.
      expect(sequences(whole.rows)).toEqual([...new Set(sequences(whole.rows))].sort((a, b) => b - a));
    }
  });

  test('a read stops after its bound, saying where; reads on from there reach the first event', async () => {
    const whole = await readBack(server.fpa.db, { before: head + 1, floor: 0, limit: 1000, members: north });
    const got: number[] = [];
    let before = head + 1;
    let reads = 0;
    for (;;) {
      const read = await readBack(server.fpa.db, { before, floor: 0, limit: 1000, members: north }, { window: 4, max: 8 });
      reads++;
      got.push(...sequences(read.rows));
      if (read.lastSequence === 0) break;
      // It looked through 8 sequences and found fewer than asked: it answers the oldest it looked at.
      expect(read.lastSequence).toBe(before - 8);
      before = read.lastSequence;
    }
    expect(got).toEqual(sequences(whole.rows));
    expect(reads).toBeGreaterThan(3);
  });

  test('a full page ends at its oldest event; a limit of the rest follows on', async () => {
    const whole = await readBack(server.fpa.db, { before: head + 1, floor: 0, limit: 1000, members: null });
    const first = await readBack(server.fpa.db, { before: head + 1, floor: 0, limit: 5, members: null }, { window: 2, max: 1_000_000 });
    expect(sequences(first.rows)).toEqual(sequences(whole.rows).slice(0, 5));
    expect(first.lastSequence).toBe(whole.rows[4]!.sequence);
  });
});
