/**
 * The simulator's completeness and anomaly scenarios (`npm run fpa:simulate-device -- --scenario
 * …`) against the real server: each plays its case and the server sees what the README says it
 * will (a gap found and re-uploaded; a silence re-uploaded; a card where a fingerprint is
 * enrolled; a clock running ahead).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { runScenario, SCENARIOS, type ScenarioPlan } from '../../src/simulator/scenarios';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { usbAttlogFile } from '../../src/simulator/usb-file';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';
import { waitFor } from '../support/webhook-receiver';

let server: TestServer;
// The server and its terminals on one clock, at noon: "today" is their date for the whole run.
const clock = runningClock();
/** The same time, never moved on: a terminal's own clock while the server's jumps ahead. */
const unmoved = runningClock();

beforeAll(async () => {
  server = await startTestServer({ DEVICE_OFFLINE_AFTER: 60_000 }, { clock });
});
afterAll(async () => {
  await server.close();
});

const plan = (over: Partial<ScenarioPlan>): ScenarioPlan => ({
  ms: 3000,
  pins: ['1', '2'],
  punches: 12,
  pollIntervalMs: 100,
  awayMs: 0,
  driftMs: 0,
  log: () => undefined,
  ...over,
});
const today = () => new Date(clock.now()).toISOString().slice(0, 10);

/** The terminal's completeness report for today. */
async function completenessOf(sn: string) {
  return (await server.admin.get(`/devices/${sn}/completeness/?from=${today()}&to=${today()}`)).body;
}

async function preRegistered(sn: string, now: () => number = clock.now): Promise<SimulatedTerminal> {
  expect((await server.admin.post('/devices/', { serial_number: sn, areas: ['default'] })).status).toBe(201);
  return new SimulatedTerminal({ url: server.url, sn, now });
}

describe('simulator scenarios', () => {
  test('lost-records: a third never sent; the gap is found, asked for and re-uploaded', async () => {
    const t = await preRegistered('SCEN0001');
    const run = runScenario(t, 'lost-records', plan({ ms: 6000 }));
    // Every punch made (the first half of the run): 8 stored, and the terminal's count says 12.
    // (It runs in real time: later on a busy machine, hence waited for, not slept.)
    await waitFor(
      async () => {
        const report = await completenessOf('SCEN0001');
        return report.counts.reported === 12 && report.days[0]?.stored === 8;
      },
      'the terminal to report 12 records, 8 of them stored',
      20_000,
    );
    clock.advance(5 * 60_000);
    expect((await server.admin.post('/jobs/check-completeness/run/')).body.result).toMatchObject({ gaps: 1 });
    const played = await run;
    expect(played).toMatchObject({ punchesSent: 8, punchesHeld: 4, errors: 0 });
    const report = await server.admin.get(`/devices/SCEN0001/completeness/?from=${today()}&to=${today()}`);
    expect(report.body.recoveries[0]).toMatchObject({ reason: 'count_mismatch', status: 'done', missing: 4, recovered: 4 });
    expect(report.body.days[0]).toMatchObject({ stored: 12, recovered: 4, status: 'complete' });
  });

  test('old-firmware: the gap stays (it cannot re-send); its USB file, imported, closes it', async () => {
    expect((await server.admin.post('/devices/', { serial_number: 'SCEN0005', areas: ['default'] })).status).toBe(201);
    const t = new SimulatedTerminal({ url: server.url, sn: 'SCEN0005', respond: SCENARIOS['old-firmware']!.respond, now: clock.now });
    const run = runScenario(t, 'old-firmware', plan({ ms: 6000 }));
    await waitFor(
      async () => {
        const report = await completenessOf('SCEN0005');
        return report.counts.reported === 12 && report.days[0]?.stored === 8;
      },
      'the terminal to report 12 records, 8 of them stored',
      20_000,
    );
    clock.advance(5 * 60_000);
    expect((await server.admin.post('/jobs/check-completeness/run/')).body.result).toMatchObject({ gaps: 1 });
    expect(await run).toMatchObject({ punchesSent: 8, punchesHeld: 4, errors: 0 });
    const refused = await completenessOf('SCEN0005');
    expect(refused.recoveries[0]).toMatchObject({ status: 'failed', return_code: -1002 });
    // Its count never agreed before it lost them (pre-registered, checked only now): which date they
    // bear is not known, today is one it may be.
    expect(refused.days[0]).toMatchObject({ stored: 8, status: 'possible_gap' });

    const file = usbAttlogFile(t);
    const imported = await fetch(`${server.admin.base}/devices/SCEN0005/punches/import/`, { method: 'POST', headers: server.admin.headers, body: file });
    expect(await imported.json()).toMatchObject({ imported: 4, duplicates: 8, error_count: 0 });
    expect((await server.admin.post('/jobs/check-completeness/run/')).status).toBe(200);
    expect((await completenessOf('SCEN0005')).days[0]).toMatchObject({ stored: 12, status: 'complete' });
  });

  test('moved-stamp: punches made while away are never sent; back, the silence is re-uploaded', async () => {
    // The server's clock moves on while the terminal is away; the terminal's does not.
    const t = await preRegistered('SCEN0002', unmoved.now);
    const run = runScenario(t, 'moved-stamp', plan({ ms: 4000, awayMs: 1500, punches: 10 }));
    await Bun.sleep(800);
    clock.advance(2 * 60_000); // the server sees it silent for longer than DEVICE_OFFLINE_AFTER
    await Bun.sleep(1700);
    clock.advance(2 * 60_000);
    expect((await server.admin.post('/jobs/check-completeness/run/')).body.result).toMatchObject({ asked: 1 });
    const played = await run;
    expect(played.punchesHeld).toBeGreaterThan(0);
    const report = await server.admin.get(`/devices/SCEN0002/completeness/?from=${today()}&to=${today()}`);
    expect(report.body.recoveries[0]).toMatchObject({ reason: 'terminal_outage', status: 'done', recovered: played.punchesHeld });
    expect(report.body.days[0].stored).toBe(10);
  });

  test('card-only: a card where the person has a fingerprint is an anomaly', async () => {
    expect((await server.admin.post('/employees/', { id: 'E-CARD', name: 'Card Holder' })).status).toBe(201);
    const person = (await server.admin.post('/enrollees/', { employee: 'E-CARD' })).body as { id: string; device_pin: string };
    expect((await server.admin.post(`/enrollees/${person.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    const t = await preRegistered('SCEN0003');
    await t.handshake();
    // Its first poll answers the query of its users (templates wait for that answer, walk-up.ts).
    await drain(t);
    expect((await t.uploadTemplate(person.device_pin, 6)).body).toStartWith('OK');
    await runScenario(t, 'card-only', plan({ ms: 1000, pins: [person.device_pin], punches: 2 }));
    const found = (await server.admin.get('/anomalies/?kind=verified_without_biometric&employee=E-CARD')).body.results as { device: string }[];
    expect(found.length).toBe(2);
    expect(found.every((a) => a.device === 'SCEN0003')).toBe(true);
  });

  test('drifting-clock: its punches carry a clock five minutes ahead, and the server sees it drift', async () => {
    const t = await preRegistered('SCEN0004');
    await runScenario(t, 'drifting-clock', plan({ ms: 1000, punches: 2, driftMs: 5 * 60_000 }));
    const punches = (await server.admin.get('/punches/?device=SCEN0004')).body.results as { punched_at: string }[];
    expect(punches.length).toBe(2);
    // Ahead of the terminal's (and the server's) time.
    for (const p of punches) expect(Date.parse(p.punched_at) - clock.now()).toBeGreaterThan(4 * 60_000);
    expect((await server.admin.get('/devices/SCEN0004/')).body).toMatchObject({ clock_drifting: true });
  });
});
