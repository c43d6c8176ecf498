/**
 * `datedSpan` (punches/spans.ts): the local dates of the first and last attributed punch from
 * the index's edge buckets and at most one probe each, equal to the dates of the exact instants
 * (`spanOf`, a min()/max() over the bucket) in zones ahead of and behind UTC, whichever side of
 * local midnight the edge punches fall.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { dayBounds, localDateOf } from '../../../src/platform/time/dates';
import { createPeople, type Person, terminal, upload } from '../../support/attendance';
import { startTestServer, type TestServer } from '../../support/harness';
import { punchLines } from '../../support/punch-feed';

const DAY = 86_400_000;

for (const zone of ['Asia/Kolkata', 'America/Los_Angeles', 'UTC']) {
  describe(`datedSpan in ${zone}`, () => {
    let server: TestServer;
    let people: Record<string, Person>;
    beforeAll(async () => {
      server = await startTestServer({ TIME_ZONE: zone, ATTENDANCE_TIME_ZONE: zone });
      people = await createPeople(server, ['A', 'B']);
    });
    afterAll(async () => {
      await server.close();
    });

    test('agrees with the dates of the exact first and last instants', async () => {
      const device = await terminal(server, `SPAN${zone.length}`);
      await server.fpa.service.approveDevice(`SPAN${zone.length}`, { by: 'test' });
      const punches = server.fpa.service.punches;
      const check = async () => {
        const exact = await punches.counted.spanOf(server.fpa.db.orm);
        const dated = await punches.counted.datedSpan(
          server.fpa.db.orm,
          (instant) => localDateOf(instant, zone),
          (date) => dayBounds(date, zone).start,
        );
        expect(dated).toEqual(exact && { first: localDateOf(exact.first, zone), last: localDateOf(exact.last, zone) });
      };
      await check();
      // The edge buckets filled an hour at a time: the first from the end of its UTC day back to
      // its start, the last from its start on, so each edge's punch crosses local midnight.
      const base = Date.UTC(2025, 4, 10);
      for (const hour of [0, 3, 6, 9, 12, 15, 18, 21, 23]) {
        await upload(server, device, punchLines(people.A!.pin, 1, base + (23 - hour) * 3_600_000 + 60_000));
        await check();
        await upload(server, device, punchLines(people.B!.pin, 1, base + 19 * DAY + hour * 3_600_000 + 60_000));
        await check();
      }
      // An unknown PIN's punch (no enrollee) outside the span counts for nothing.
      await upload(server, device, punchLines('424242', 1, base - 5 * DAY));
      await check();
    });
  });
}
