/**
 * Anomalies through the real server, terminals speaking ADMS: each kind raised by its cause
 * (a card where the terminal holds the person's fingerprint, not at a card-only reader; two terminals 40 minutes apart punched 8 minutes
 * apart, a punch on a day of leave, the same person twice within DUPLICATE_WINDOW) and none by a
 * normal day; listed with filters and within the caller's areas; the punch flagged, attendance
 * unchanged; `anomaly_detected` delivered to a webhook.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SignJWT } from 'jose';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { ApiClient, JWT_SECRET, startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';
import { receiver, waitFor } from '../support/webhook-receiver';

let server: TestServer;
let rx: ReturnType<typeof receiver>;
let north: SimulatedTerminal;
let south: SimulatedTerminal;
/** North's canteen reader: cards only (`FingerFunOn=0`), so it never holds Ada's fingerprint. */
let canteen: SimulatedTerminal;
const people: Record<string, { id: string; device_pin: string }> = {};

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, TRAVEL_MINUTES: 'north-south=40', DUPLICATE_WINDOW: '1m' });
  rx = receiver();
  expect((await server.admin.post('/webhooks/', { url: rx.url, events: ['anomaly_detected'] })).status).toBe(201);
  for (const [key, areas] of [
    ['ada', ['north', 'south']],
    ['bo', ['north']],
  ] as const) {
    expect((await server.admin.post('/employees/', { id: `E-${key}`, name: key })).status).toBe(201);
    const created = await server.admin.post('/enrollees/', { employee: `E-${key}`, areas });
    expect(created.status).toBe(201);
    people[key] = created.body;
  }
  north = new SimulatedTerminal({ url: server.url, sn: 'NORTH001' });
  south = new SimulatedTerminal({ url: server.url, sn: 'SOUTH001' });
  canteen = new SimulatedTerminal({ url: server.url, sn: 'CANTEEN1', fingers: false });
  for (const [t, area] of [
    [north, 'north'],
    [south, 'south'],
    [canteen, 'north'],
  ] as const) {
    await t.handshake();
    await t.postOptions();
    expect((await server.admin.post(`/devices/${t.sn}/approve/`, { areas: [area] })).status).toBe(200);
    await drain(t);
  }
  // Ada has a fingerprint (walk-up, with consent); Bo has none.
  expect((await server.admin.post(`/enrollees/${people.ada!.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
  expect((await north.uploadTemplate(people.ada!.device_pin, 6)).body).toStartWith('OK');
});
afterAll(async () => {
  rx.stop();
  await server.close();
});

const pin = (who: string) => people[who]!.device_pin;
const list = async (query = '', client = server.admin) => {
  const res = await client.get(`/anomalies/?from=2026-03-01&to=2026-03-31${query}`);
  expect(res.status).toBe(200);
  return res.body.results as { kind: string; employee: string; device: string | null; punch: string; at: string; details: Record<string, unknown> }[];
};

describe('anomalies', () => {
  test('a normal day raises none', async () => {
    await north.punch([
      { pin: pin('bo'), localTime: '2026-03-02 08:00:00', verifyType: 1 },
      { pin: pin('bo'), localTime: '2026-03-02 17:00:00', state: 1, verifyType: 1 },
      { pin: pin('ada'), localTime: '2026-03-03 08:00:00', verifyType: 1 },
      // Two minutes later, within one area's terminals: neither repeated (1m) nor travel.
      { pin: pin('ada'), localTime: '2026-03-03 08:02:00', verifyType: 1 },
      // A card by someone without a biometric.
      { pin: pin('bo'), localTime: '2026-03-04 08:00:00', verifyType: 4 },
    ]);
    // Ada's card at the canteen's card-only reader: it holds no fingerprint of hers to verify by.
    await drain(canteen);
    await canteen.punch([{ pin: pin('ada'), localTime: '2026-03-02 12:00:00', verifyType: 4 }]);
    await south.punch([{ pin: pin('ada'), localTime: '2026-03-03 17:00:00', state: 1, verifyType: 1 }]);
    expect(await list()).toEqual([]);
  });

  test('each kind is raised by its cause, flags the punch and leaves attendance as it was', async () => {
    // A card where Ada has a fingerprint.
    await north.punch([{ pin: pin('ada'), localTime: '2026-03-04 08:00:00', verifyType: 4 }]);
    // North then south, 8 minutes apart; TRAVEL_MINUTES says 40.
    await north.punch([{ pin: pin('ada'), localTime: '2026-03-05 08:00:00', verifyType: 1 }]);
    await south.punch([{ pin: pin('ada'), localTime: '2026-03-05 08:08:00', verifyType: 1 }]);
    // Bo on annual leave on the 6th, punching.
    expect((await server.admin.post('/leaves/', { enrollee: people.bo!.id, from: '2026-03-06', to: '2026-03-06', kind: 'annual' })).status).toBe(201);
    await north.punch([{ pin: pin('bo'), localTime: '2026-03-06 09:00:00', verifyType: 1 }]);
    // Bo twice within a minute.
    await north.punch([
      { pin: pin('bo'), localTime: '2026-03-09 08:00:00', verifyType: 1 },
      { pin: pin('bo'), localTime: '2026-03-09 08:00:30', verifyType: 1 },
    ]);

    const found = await list();
    expect(found.map((a) => `${a.kind} ${a.employee} ${a.device} ${a.at}`).sort()).toEqual(
      [
        'impossible_travel E-ada SOUTH001 2026-03-05T08:08:00.000Z',
        'repeated_punch E-bo NORTH001 2026-03-09T08:00:30.000Z',
        'verified_without_biometric E-ada NORTH001 2026-03-04T08:00:00.000Z',
        'while_on_leave E-bo NORTH001 2026-03-06T09:00:00.000Z',
      ].sort(),
    );
    const travel = found.find((a) => a.kind === 'impossible_travel')!;
    expect(travel.details).toMatchObject({ other_device: 'NORTH001', from_area: 'north', to_area: 'south', minutes_apart: 8, minutes_needed: 40 });
    expect(found.find((a) => a.kind === 'verified_without_biometric')!.details).toMatchObject({ verify_type: 4, biometrics: ['fingerprint'] });
    expect(found.find((a) => a.kind === 'while_on_leave')!.details).toEqual({ leave: 'annual' });
    expect(found.find((a) => a.kind === 'repeated_punch')!.details).toMatchObject({ seconds_apart: 30, window_seconds: 60 });

    // The punch carries the kind among its flags; it still counts.
    const punches = (await server.admin.get('/punches/?employee=E-ada&limit=100')).body.results as { id: string; flags: string[]; voided: boolean }[];
    const flagged = punches.find((p) => p.id === travel.punch)!;
    expect(flagged.flags).toContain('impossible_travel');
    expect(flagged.voided).toBe(false);
    const day = await server.admin.get('/attendance-days/?employee=E-ada&from=2026-03-05&to=2026-03-05');
    expect(day.body.results[0]).toMatchObject({ punch_count: 2, first_in: '2026-03-05T08:00:00.000Z' });

    await waitFor(() => rx.calls.length >= 4, 'the anomalies delivered');
    expect(rx.calls.map((c) => JSON.parse(c.body).data.anomaly.kind).sort()).toEqual(found.map((a) => a.kind).sort());
  });

  test('filters: kind, area, employee; the caller’s areas', async () => {
    expect((await list('&kind=repeated_punch,while_on_leave')).map((a) => a.kind).sort()).toEqual(['repeated_punch', 'while_on_leave']);
    expect((await list('&area=south')).map((a) => a.employee)).toEqual(['E-ada', 'E-ada']);
    expect((await list('&employee=E-bo')).length).toBe(2);
    const oneDay = await server.admin.get('/anomalies/?from=2026-03-06&to=2026-03-06');
    expect(oneDay.body.results.map((a: { kind: string }) => a.kind)).toEqual(['while_on_leave']);
    const paged = await server.admin.get('/anomalies/?from=2026-03-01&to=2026-03-31&limit=3');
    expect(paged.body.results.length).toBe(3);
    const rest = await server.admin.get(`/anomalies/?from=2026-03-01&to=2026-03-31&limit=3&cursor=${encodeURIComponent(paged.body.next_cursor)}`);
    expect(rest.body.results.length).toBe(1);
    expect(rest.body.next_cursor).toBeNull();
    expect((await server.admin.get('/anomalies/?kind=late')).status).toBe(400);

    const token = await new SignJWT({ scope: 'fpa:admin', fpa_role: 'viewer', fpa_areas: ['south'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('south.viewer@example.com')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const southViewer = new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${token}` });
    expect((await list('', southViewer)).map((a) => a.employee)).toEqual(['E-ada', 'E-ada']);
    // The event log agrees: their anomaly events, and only theirs.
    const events = (await southViewer.get('/events/?type=anomaly_detected&limit=100')).body.results as { data: { anomaly: { employee: string } } }[];
    expect(events.map((e) => e.data.anomaly.employee)).toEqual(['E-ada', 'E-ada']);
    expect((await southViewer.get('/devices/NORTH001/completeness/')).status).toBe(404);
    expect((await southViewer.get('/devices/SOUTH001/completeness/')).status).toBe(200);
  });

  test('the query is checked as on every other route: dates, the range, the area', async () => {
    const error = async (query: string, client = server.admin) => {
      const res = await client.get(`/anomalies/?${query}`);
      return [res.status, res.body.error?.code, res.body.error?.message, res.body.error?.details];
    };
    // A date that does not exist is named, as attendance-days/ names it.
    expect(await error('from=2026-02-30&to=2026-03-31')).toEqual([
      400,
      'validation_error',
      'from must be a date (YYYY-MM-DD)',
      { field: 'from', value: '2026-02-30' },
    ]);
    expect(await error('to=2026-04-31')).toEqual([400, 'validation_error', 'to must be a date (YYYY-MM-DD)', { field: 'to', value: '2026-04-31' }]);
    expect((await error('from=2026-13-45'))[2]).toBe('from must be a date (YYYY-MM-DD)');
    // A `from` after today without a `to` is no reversed range: nothing is listed.
    expect((await server.admin.get('/anomalies/?from=2099-01-01')).body).toEqual({ results: [], next_cursor: null });
    // An area that does not exist, or one outside the caller's areas, is 404 as on reports and the roster.
    expect(await error('area=nowhere')).toEqual([404, 'not_found', 'area not found', { name: 'nowhere' }]);
    const token = await new SignJWT({ scope: 'fpa:admin', fpa_role: 'viewer', fpa_areas: ['south'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('south.viewer@example.com')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const southViewer = new ApiClient(`${server.url}/api/fingerprint/v1`, { authorization: `Bearer ${token}` });
    expect(await error('area=north', southViewer)).toEqual([404, 'not_found', 'area not found', { name: 'north' }]);
    expect((await list('&area=south', southViewer)).length).toBe(2);
  });
});

describe('anomalies and retention', () => {
  test('an anomaly goes with its punch: RETENTION_PUNCHES_DAYS purges both', async () => {
    // The server's clock: mid-January, then two months on when the purge runs.
    let now = Date.parse('2026-01-10T12:00:00Z');
    const own = await startTestServer({ DUPLICATE_WINDOW: '1m', RETENTION_PUNCHES_DAYS: 30 }, { clock: { now: () => now } });
    try {
      expect((await own.admin.post('/employees/', { id: 'E-cy', name: 'cy' })).status).toBe(201);
      const cy = (await own.admin.post('/enrollees/', { employee: 'E-cy', areas: ['north'] })).body as { device_pin: string };
      const t = new SimulatedTerminal({ url: own.url, sn: 'RETAIN01' });
      await t.handshake();
      await t.postOptions();
      expect((await own.admin.post(`/devices/${t.sn}/approve/`, { areas: ['north'] })).status).toBe(200);
      await drain(t);
      // Twice within a minute, the day before.
      await t.punch([
        { pin: cy.device_pin, localTime: '2026-01-09 08:00:00', verifyType: 1 },
        { pin: cy.device_pin, localTime: '2026-01-09 08:00:30', verifyType: 1 },
      ]);
      const before = await own.admin.get('/anomalies/?from=2026-01-01&to=2026-01-31');
      expect(before.body.results.map((a: { kind: string }) => a.kind)).toEqual(['repeated_punch']);
      now += 60 * 86_400_000;
      const run = await own.admin.post('/jobs/purge-retention/run/');
      expect(run.body.result).toMatchObject({ punches: 2, anomalies: 1 });
      expect((await own.admin.get('/anomalies/?from=2026-01-01&to=2026-01-31')).body.results).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
