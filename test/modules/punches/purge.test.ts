/**
 * Retention of punches (punches/purge.ts) on a real database: the table walked from its start
 * window by window, then what is left found through the enrollee index (a day uploaded late),
 * deleted in the table's order, up to a cutoff in the middle of a day, on several terminals whose
 * uploads interleave.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { asc } from 'drizzle-orm';
import { punches } from '../../../src/app/schema';
import { purgePunchesBefore } from '../../../src/modules/punches/purge';
import { createPeople, linesAt, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' }, { clock: { now: () => Date.parse('2026-03-20T12:00:00Z') } });
  const people = await createPeople(server, ['A', 'B', 'C']);
  const north = await terminal(server, 'PURGE001');
  const south = await terminal(server, 'PURGE002');
  // Day by day, the terminals uploading in turn: each day's punches are spread over uploads.
  for (const day of ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04']) {
    for (const who of ['A', 'B', 'C']) {
      await upload(server, north, linesAt('UTC', people[who]!.pin, `${day} 08:00:00`, `${day} 12:00:00`));
      await upload(server, south, linesAt('UTC', people[who]!.pin, `${day} 12:30:00`, `${day} 17:00:00`));
    }
  }
  // A terminal that was offline sends an old day last: old punches behind recent ones in the table.
  await upload(server, north, linesAt('UTC', people.A!.pin, '2026-03-01 18:00:00'));
});

afterAll(() => server.stop());

const left = async () => (await server.fpa.db.orm.select({ at: punches.punchedAt }).from(punches).orderBy(asc(punches.punchedAt))).map((r) => r.at);

describe('punch retention', () => {
  test('deletes every punch before a cutoff in the middle of a day, in pieces, and none after it', async () => {
    const all = await left();
    expect(all.length).toBe(49);
    const cutoff = Date.parse('2026-03-03T12:30:00Z');
    // Pieces of 5: several per day, the last one reaching into the cutoff's own day.
    const deleted = await purgePunchesBefore(server.fpa.db, cutoff, 5);
    const before = all.filter((at) => at < cutoff);
    expect(deleted).toBe(before.length);
    expect(await left()).toEqual(all.filter((at) => at >= cutoff));
    // A punch exactly at the cutoff stays; nothing is left to do at the same cutoff.
    expect((await left())[0]).toBe(cutoff);
    expect(await purgePunchesBefore(server.fpa.db, cutoff, 5)).toBe(0);
  });
});
