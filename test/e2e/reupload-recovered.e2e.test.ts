/**
 * A re-upload's `recovered` counts only the punches it added: a terminal with a gap is asked to
 * re-upload (`DATA QUERY ATTLOG`), sends some of the missing punches by itself before it polls,
 * then re-uploads the whole range; those it had sent already are duplicates, not recovered.
 * Through the real server and the simulated terminal speaking ADMS.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

const SN = 'REUP0001';
const clock = runningClock();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { clock });
});
afterAll(async () => {
  await server.close();
});

const runCheck = async () => (await server.admin.post('/jobs/check-completeness/run/')).body.result;
const today = () => new Date(clock.now()).toISOString().slice(0, 10);
const report = async () => (await server.admin.get(`/devices/${SN}/completeness/?from=${today()}&to=${today()}`)).body;

test('punches the terminal sent by itself before the re-upload arrived are not counted as recovered', async () => {
  const terminal = new SimulatedTerminal({ url: server.url, sn: SN, now: clock.now });
  await terminal.handshake();
  await terminal.postOptions();
  expect((await server.admin.post(`/devices/${SN}/approve/`, { areas: ['default'] })).status).toBe(200);
  await drain(terminal);
  expect(await runCheck()).toMatchObject({ agreed: 1, gaps: 0 });

  // Ten punches: six sent, four kept in its log and not sent.
  const held: string[] = [];
  for (let i = 0; i < 10; i++) {
    const record = { pin: String(21 + (i % 3)), at: new Date(clock.now() + 1000 + i * 2000) };
    if (i % 5 < 2) held.push(...terminal.holdUnsent([record]));
    else expect((await terminal.punch([record])).body).toStartWith('OK');
  }
  await drain(terminal); // INFO: TransactionCount=10
  clock.advance(5 * 60_000);
  expect(await runCheck()).toMatchObject({ gaps: 1 });
  expect((await report()).recoveries[0]).toMatchObject({ status: 'queued', missing: 4 });

  // Before it polls for the DATA QUERY ATTLOG, it sends two of the four by itself.
  expect(held).toHaveLength(4);
  expect((await terminal.sendAttlog(held.slice(0, 2).join('\n'))).body).toBe('OK:2');
  clock.advance(1000);

  // The re-upload carries all ten: two are new.
  const ran = await drain(terminal);
  expect(ran.some((c) => c.startsWith('DATA QUERY ATTLOG StartTime='))).toBe(true);
  const done = await report();
  expect(done.days[0]).toMatchObject({ stored: 10, reported: 10, recovered: 2, status: 'complete' });
  expect(done.recoveries[0]).toMatchObject({ status: 'done', recovered: 2, missing: 2 });
  const closed = (await server.admin.get('/events/?type=punch_gap_closed')).body.results as { data: Record<string, unknown> }[];
  expect(closed[0]!.data).toMatchObject({ status: 'done', recovered: 2, remaining: 0 });
  // Nothing more to ask: the counts agree.
  expect(await runCheck()).toMatchObject({ gaps: 0, agreed: 1 });
});
