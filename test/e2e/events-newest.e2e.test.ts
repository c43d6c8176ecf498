/**
 * `events/?order=desc`: the newest events first, read back from the end of the log (the console's
 * "Recent events"), with more events than a page holds. Two areas' terminals upload punches; an
 * unlimited caller gets the newest first and pages back with `before` to the very first event,
 * each once; a caller limited to one area gets its area's events only, the same ones (and in the
 * reverse order) as reading the log forward gives it, its areas applied in the query; `type`
 * filters; `before` without `order=desc` is refused. Before, the log could be read only forward
 * from its start: the console walked 20 pages of 1,000 and showed the oldest.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { SimulatedTerminal } from '../../src/simulator/terminal';
import { type ApiClient, clientAs, startTestServer, type TestServer } from '../support/harness';
import { type EnrolledPerson, enrolledPerson, namedTerminal } from '../support/terminals';

interface EventBody {
  sequence: number;
  type: string;
  data: Record<string, unknown>;
}
interface EventPage {
  results: EventBody[];
  last_sequence: number;
}

let server: TestServer;
let north: SimulatedTerminal;
let south: SimulatedTerminal;
let ada: EnrolledPerson;
let bo: EnrolledPerson;
/** Punches each terminal uploads: together more events than a page of 1,000. */
const PUNCHES = 600;

/** `count` punches of one person, a minute apart from a date on (an upload of 200 at a time). */
async function upload(t: SimulatedTerminal, pin: string, count: number): Promise<void> {
  const start = Date.parse('2031-03-03T06:00:00Z');
  const stamp = (i: number) => new Date(start + i * 60_000).toISOString().slice(0, 19).replace('T', ' ');
  for (let i = 0; i < count; i += 200) {
    await t.punch(Array.from({ length: Math.min(200, count - i) }, (_, j) => ({ pin, localTime: stamp(i + j), state: (i + j) % 2 })));
  }
}

/** The whole log as a caller reads it forward (`after`), oldest first. */
async function forward(client: ApiClient): Promise<EventBody[]> {
  const all: EventBody[] = [];
  let after = 0;
  for (;;) {
    const page = await client.get<EventPage>(`/events/?after=${after}&limit=1000`);
    expect(page.status).toBe(200);
    all.push(...page.body.results);
    if (page.body.last_sequence === after) return all;
    after = page.body.last_sequence;
  }
}

/** The whole log as a caller reads it back (`order=desc`, then `before`), newest first; and each page's size. */
async function backward(client: ApiClient, params = ''): Promise<{ events: EventBody[]; pages: number[] }> {
  const events: EventBody[] = [];
  const pages: number[] = [];
  let before: number | null = null;
  for (;;) {
    const page: { status: number; body: EventPage } = await client.get<EventPage>(
      `/events/?order=desc&limit=1000${params}${before === null ? '' : `&before=${before}`}`,
    );
    expect(page.status).toBe(200);
    events.push(...page.body.results);
    pages.push(page.body.results.length);
    if (page.body.last_sequence === 0) return { events, pages };
    before = page.body.last_sequence;
  }
}

beforeAll(async () => {
  server = await startTestServer({ TIME_ZONE: 'UTC' });
  ada = await enrolledPerson(server, 'E-ADA', 'Ada North', ['north']);
  bo = await enrolledPerson(server, 'E-BO', 'Bo South', ['south']);
  north = await namedTerminal(server, 'NORTH001', 'North gate', ['north']);
  south = await namedTerminal(server, 'SOUTH001', 'South gate', ['south']);
  await upload(north, ada.device_pin, PUNCHES);
  await upload(south, bo.device_pin, PUNCHES);
  // The days and anomalies follow the log in the background, writing events of their own: read
  // (which catches them up) before the log is compared, or one lands between two reads.
  for (const path of ['/attendance-days/?limit=1', '/anomalies/?limit=1']) expect((await server.admin.get(path)).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('events/?order=desc', () => {
  test('the newest first, in one read; paging back with before reaches the first event, each once', async () => {
    const log = await forward(server.admin);
    expect(log.length).toBeGreaterThan(1000);
    const newest = await server.admin.get<EventPage>('/events/?order=desc&limit=50');
    expect(newest.status).toBe(200);
    expect(newest.body.results.map((e) => e.sequence)).toEqual(
      log
        .slice(-50)
        .reverse()
        .map((e) => e.sequence),
    );
    // The cursor back: the oldest event read.
    expect(newest.body.last_sequence).toBe(log[log.length - 50]!.sequence);
    const back = await backward(server.admin);
    expect(back.pages[0]).toBe(1000);
    expect(back.events.map((e) => e.sequence)).toEqual(log.map((e) => e.sequence).reverse());
    // Shown as the forward read shows them (a punch as its row).
    expect(back.events.find((e) => e.type === 'punch_received')!.data.punch).toMatchObject({ device: expect.any(String) });
  });

  test('a caller limited to an area gets its events only, those the forward read gives it, newest first', async () => {
    const northHr = await clientAs(server, 'hr', ['north']);
    const seen = await forward(northHr);
    const everything = await forward(server.admin);
    expect(seen.length).toBeGreaterThan(PUNCHES);
    expect(seen.length).toBeLessThan(everything.length);
    const newest = await northHr.get<EventPage>('/events/?order=desc&limit=50');
    expect(newest.body.results.map((e) => e.sequence)).toEqual(
      seen
        .slice(-50)
        .reverse()
        .map((e) => e.sequence),
    );
    const back = await backward(northHr);
    expect(back.events.map((e) => e.sequence)).toEqual(seen.map((e) => e.sequence).reverse());
    // Full pages: the area is a condition of the query, not a filter of what a page read.
    expect(back.pages.slice(0, -1).every((n) => n === 1000)).toBe(true);
    const whom = new Set(back.events.filter((e) => e.type === 'punch_received').map((e) => (e.data.punch as { enrollee: string }).enrollee));
    expect([...whom]).toEqual([ada.id]);
    expect(back.events.some((e) => JSON.stringify(e.data).includes(bo.id))).toBe(false);
  });

  test('type filters, newest first; after is the floor', async () => {
    const log = await forward(server.admin);
    const punches = log.filter((e) => e.type === 'punch_received');
    const back = await backward(server.admin, '&type=punch_received');
    expect(back.events.map((e) => e.sequence)).toEqual(punches.map((e) => e.sequence).reverse());
    const floor = punches[punches.length - 10]!.sequence;
    const since = await server.admin.get<EventPage>(`/events/?order=desc&type=punch_received&after=${floor}`);
    expect(since.body.results.map((e) => e.sequence)).toEqual(
      punches
        .slice(-9)
        .reverse()
        .map((e) => e.sequence),
    );
    // Nothing is left before these: the floor given.
    expect(since.body.last_sequence).toBe(floor);
  });

  test('a punch recorded as nobody’s and attributed since (its terminal user adopted): seen back as forward, through its person now', async () => {
    const west = await namedTerminal(server, 'WEST001', 'West gate', ['south'], { existingUsers: [{ pin: '777', name: 'Cy' }] });
    await west.punch([{ pin: '777', localTime: '2031-03-04 07:00:00', state: 0 }]);
    expect((await server.admin.post('/employees/', { id: 'E-CY', name: 'Cy North' })).status).toBe(201);
    const adopted = await server.admin.post('/devices/WEST001/users/777/adopt/', { employee: 'E-CY', areas: ['north'] });
    expect(adopted.status).toBe(201);
    const northHr = await clientAs(server, 'hr', ['north']);
    const isCy = (e: EventBody) => e.type === 'punch_received' && (e.data.punch as { enrollee: string | null }).enrollee === adopted.body.id;
    expect((await forward(northHr)).filter(isCy)).toHaveLength(1);
    expect((await backward(northHr)).events.filter(isCy)).toHaveLength(1);
    expect((await northHr.get<EventPage>('/events/?order=desc&limit=50')).body.results.filter(isCy)).toHaveLength(1);
  });

  test('before without order=desc is refused, naming it', async () => {
    const res = await server.admin.get('/events/?before=10');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.field).toBe('before');
    expect((await server.admin.get('/events/?order=sideways')).status).toBe(400);
  });
});
