/**
 * `repeated_punch` whatever order the two punches arrive in, through the real server: backlogs,
 * recoveries and imports deliver the earlier punch last, and the repeat is still the later punch
 * of the pair (flagged, its anomaly kept and announced once). By hand (`punches/manual/`), by two
 * imports, by a terminal re-uploading a punch it held; a resend raises nothing more.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { createPeople, type Person } from '../support/attendance';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

const API = '/api/fingerprint/v1';
let server: TestServer;
let people: Record<string, Person>;
let t: SimulatedTerminal;

interface Anomaly {
  kind: string;
  punch: string;
  at: string;
  details: Record<string, unknown>;
}
interface Punch {
  id: string;
  punched_at: string;
  flags: string[];
}

beforeAll(async () => {
  const now = Date.parse('2026-03-20T12:00:00Z');
  server = await startTestServer({ DUPLICATE_WINDOW: '1m' }, { clock: { now: () => now } });
  people = await createPeople(server, ['R-man', 'R-imp', 'R-term', 'R-three', 'R-batch', 'R-far', 'R-resp']);
  t = new SimulatedTerminal({ url: server.url, sn: 'ORDER001' });
  await t.handshake();
  await t.postOptions();
  expect((await server.admin.post(`/devices/${t.sn}/approve/`, {})).status).toBe(200);
  await drain(t);
});
afterAll(async () => {
  await server.close();
});

const anomaliesOf = async (employee: string) => {
  const res = await server.admin.get(`/anomalies/?from=2026-03-01&to=2026-03-31&employee=${employee}`);
  expect(res.status).toBe(200);
  return (res.body.results as Anomaly[]).sort((a, b) => a.at.localeCompare(b.at));
};
const punchesOf = async (employee: string) => {
  const res = await server.admin.get(`/punches/?employee=${employee}&limit=100`);
  expect(res.status).toBe(200);
  return (res.body.results as Punch[]).sort((a, b) => a.punched_at.localeCompare(b.punched_at));
};
const manual = async (who: string, at: string) => {
  const res = await server.admin.post('/punches/manual/', { enrollee: people[who]!.id, at, reason: 'forgotten' });
  expect(res.status).toBe(201);
  return res.body as Punch;
};
const importCsv = async (body: string) => {
  const res = await fetch(`${server.url}${API}/punches/import/`, { method: 'POST', headers: { ...server.admin.headers, 'content-type': 'text/csv' }, body });
  expect(res.status).toBe(200);
  return (await res.json()) as { imported: number; duplicates: number };
};
const attlog = (who: string, localTime: string) => ({ pin: people[who]!.pin, localTime, verifyType: 1 });

/** The flags of each punch of the person, oldest first, and their one anomaly naming the pair. */
async function expectRepeatOnLater(employee: string, flags: string[][], pair: { earlier: string; later: string; seconds: number }) {
  const punches = await punchesOf(employee);
  expect(punches.map((p) => p.flags)).toEqual(flags);
  const byTime = new Map(punches.map((p) => [p.punched_at, p.id]));
  const found = (await anomaliesOf(employee)).filter((a) => a.punch === byTime.get(pair.later));
  expect(found.map((a) => a.kind)).toEqual(['repeated_punch']);
  expect(found[0]!.details).toEqual({
    previous_punch: byTime.get(pair.earlier),
    previous_at: pair.earlier,
    seconds_apart: pair.seconds,
    window_seconds: 60,
  });
}

describe('repeated_punch, the earlier punch arriving last', () => {
  test('by hand: 08:00:30 entered, then 08:00:00', async () => {
    await manual('R-man', '2026-03-16T08:00:30Z');
    await manual('R-man', '2026-03-16T08:00:00Z');
    await expectRepeatOnLater('R-man', [[], ['repeated_punch']], { earlier: '2026-03-16T08:00:00.000Z', later: '2026-03-16T08:00:30.000Z', seconds: 30 });
    expect((await anomaliesOf('R-man')).length).toBe(1);
  });

  test('two imports: 09:00:40, then 09:00:10; importing both files again raises nothing more', async () => {
    expect(await importCsv('employee,at,state\nR-imp,2026-03-16T09:00:40Z,0\n')).toMatchObject({ imported: 1 });
    expect(await importCsv('employee,at,state\nR-imp,2026-03-16T09:00:10Z,0\n')).toMatchObject({ imported: 1 });
    expect(await importCsv('employee,at,state\nR-imp,2026-03-16T09:00:40Z,0\nR-imp,2026-03-16T09:00:10Z,0\n')).toMatchObject({ imported: 0, duplicates: 2 });
    await expectRepeatOnLater('R-imp', [[], ['repeated_punch']], { earlier: '2026-03-16T09:00:10.000Z', later: '2026-03-16T09:00:40.000Z', seconds: 30 });
    expect((await anomaliesOf('R-imp')).length).toBe(1);
  });

  test('a terminal re-uploads the 09:00:00 it held after 09:00:30 was stored; a resend raises nothing more', async () => {
    const held = t.holdUnsent([attlog('R-term', '2026-03-16 09:00:00')]);
    expect((await t.punch([attlog('R-term', '2026-03-16 09:00:30')])).body).toStartWith('OK');
    expect((await t.sendAttlog(`${held.join('\n')}\n`)).body).toStartWith('OK');
    await expectRepeatOnLater('R-term', [[], ['repeated_punch']], { earlier: '2026-03-16T09:00:00.000Z', later: '2026-03-16T09:00:30.000Z', seconds: 30 });
    const resend = await t.sendAttlog(`${held.join('\n')}\n`);
    expect(resend.body).toStartWith('OK');
    expect((await anomaliesOf('R-term')).length).toBe(1);

    // The anomaly is announced, naming the later punch; reading the log shows that punch flagged.
    const events = (await server.admin.get('/events/?type=anomaly_detected,punch_received&limit=1000')).body.results as {
      type: string;
      data: { anomaly?: Anomaly; punch?: Punch };
    }[];
    const [later] = (await punchesOf('R-term')).slice(-1);
    expect(events.filter((e) => e.type === 'anomaly_detected' && e.data.anomaly!.punch === later!.id).length).toBe(1);
    expect(events.find((e) => e.type === 'punch_received' && e.data.punch?.id === later!.id)!.data.punch!.flags).toEqual(['repeated_punch']);
  });

  test('a punch already a repeat is not flagged again; one newly repeated is', async () => {
    // 10:00:00 and 10:00:30 in time order (the later one flagged), then 09:59:50 arrives: 10:00:00
    // is repeated now; then 10:00:15 between them: it repeats 10:00:00, and 10:00:30 stays as it was.
    await t.punch([attlog('R-three', '2026-03-16 10:00:00'), attlog('R-three', '2026-03-16 10:00:30')]);
    await manual('R-three', '2026-03-16T09:59:50Z');
    await manual('R-three', '2026-03-16T10:00:15Z');
    const punches = await punchesOf('R-three');
    expect(punches.map((p) => p.flags)).toEqual([[], ['repeated_punch'], ['repeated_punch'], ['repeated_punch']]);
    const found = await anomaliesOf('R-three');
    expect(found.map((a) => [a.at, a.details.previous_at])).toEqual([
      ['2026-03-16T10:00:00.000Z', '2026-03-16T09:59:50.000Z'],
      ['2026-03-16T10:00:15.000Z', '2026-03-16T10:00:00.000Z'],
      ['2026-03-16T10:00:30.000Z', '2026-03-16T10:00:00.000Z'],
    ]);
  });

  test('two earlier punches in one upload: the stored one names the nearer', async () => {
    await t.punch([attlog('R-batch', '2026-03-16 11:00:30')]);
    await t.punch([attlog('R-batch', '2026-03-16 11:00:00'), attlog('R-batch', '2026-03-16 11:00:20')]);
    const found = await anomaliesOf('R-batch');
    expect(found.map((a) => [a.at, a.details.previous_at, a.details.seconds_apart])).toEqual([
      ['2026-03-16T11:00:20.000Z', '2026-03-16T11:00:00.000Z', 20],
      ['2026-03-16T11:00:30.000Z', '2026-03-16T11:00:20.000Z', 10],
    ]);
    expect((await punchesOf('R-batch')).map((p) => p.flags)).toEqual([[], ['repeated_punch'], ['repeated_punch']]);
  });

  test('a whole window apart is no repeat, either way round', async () => {
    await manual('R-far', '2026-03-16T12:01:00Z');
    await manual('R-far', '2026-03-16T12:00:00Z');
    expect(await anomaliesOf('R-far')).toEqual([]);
    expect((await punchesOf('R-far')).map((p) => p.flags)).toEqual([[], []]);
  });
});

describe('POST punches/manual/ answers the punch as stored', () => {
  test('a manual punch 30 s after another carries its repeated_punch flag in the answer', async () => {
    await manual('R-resp', '2026-03-17T08:00:00Z');
    const second = await manual('R-resp', '2026-03-17T08:00:30Z');
    expect(second.flags).toEqual(['repeated_punch']);
    const listed = (await punchesOf('R-resp')).find((p) => p.id === second.id);
    expect(second).toEqual(listed!);
  });
});

describe('in-process listeners', () => {
  test('hear a repeated punch with its flag, as the stored row has it', async () => {
    const heard: string[][] = [];
    const off = server.fpa.events.on('punch_received', ({ punch }) => void heard.push([...punch.flags]));
    try {
      await manual('R-man', '2026-03-17T08:00:00Z');
      await manual('R-man', '2026-03-17T08:00:20Z');
    } finally {
      off();
    }
    expect(heard).toEqual([[], ['repeated_punch']]);
  });
});
