/**
 * Punch completeness through the real server, the simulated terminal speaking ADMS: a terminal
 * whose firmware moved its stamp past 30 records (it holds them, never sends them) reports 100
 * records while 70 are stored; the check finds the gap, the `DATA QUERY ATTLOG` goes out on the
 * terminal's next poll, the terminal re-uploads the range, and the day is `complete` with 30
 * recovered and no duplicate. The events reach a webhook. A terminal back from a silence, and
 * every terminal after the server itself was down, are asked to re-upload the silent range.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { addDays } from '../../src/platform/time/dates';
import { SimulatedTerminal, type SimulatedTerminalOptions } from '../../src/simulator/terminal';
import { runningClock } from '../support/clock';
import { startTestServer, type TestServer, tempDir } from '../support/harness';
import { drain } from '../support/terminals';
import { receiver, waitFor } from '../support/webhook-receiver';

const SN = 'GAP00001';
// The server and its terminals on one clock, from noon: "today" stays their date for the whole run.
const clock = runningClock();
let server: TestServer;
let rx: ReturnType<typeof receiver>;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, DEVICE_OFFLINE_AFTER: 60_000 }, { clock });
  rx = receiver();
  const hook = await server.admin.post('/webhooks/', { url: `${rx.url}`, events: ['punch_gap_found', 'punch_gap_closed'] });
  expect(hook.status).toBe(201);
});
afterAll(async () => {
  rx.stop();
  await server.close();
});

const runCheck = async () => (await server.admin.post('/jobs/check-completeness/run/')).body.result;
const today = () => new Date(clock.now()).toISOString().slice(0, 10);

async function storedFrom(serial: string): Promise<{ local_time: string; device_pin: string }[]> {
  const out: { local_time: string; device_pin: string }[] = [];
  let cursor = '';
  for (;;) {
    const page = await server.admin.get(`/punches/?device=${serial}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    out.push(...page.body.results);
    if (!page.body.next_cursor) return out;
    cursor = page.body.next_cursor;
  }
}

describe('punch completeness', () => {
  test('a terminal that skipped 30 records is found, asked, re-uploads, and is complete with 30 recovered and no duplicate', async () => {
    const terminal = new SimulatedTerminal({ url: server.url, sn: SN, now: clock.now });
    await terminal.handshake();
    await terminal.postOptions();
    expect((await server.admin.post(`/devices/${SN}/approve/`, { areas: ['default'] })).status).toBe(200);
    await drain(terminal);
    // Its count (0) agrees with what is stored: complete up to now.
    expect(await runCheck()).toMatchObject({ agreed: 1, gaps: 0 });
    const before = await server.admin.get(`/devices/${SN}/completeness/?from=${today()}&to=${today()}`);
    expect(before.status).toBe(200);
    expect(before.body.days[0]).toMatchObject({ date: today(), stored: 0, status: 'complete', reported_by: 'count' });

    // 100 punches: 70 uploaded, 30 kept in its log and never sent (its stamp moved past them).
    const pins = ['11', '12', '13', '14', '15'];
    const at = (i: number) => new Date(clock.now() + 1000 + i * 2000);
    for (let i = 0; i < 100; i++) {
      const record = { pin: pins[i % pins.length]!, at: at(i) };
      if (i % 10 < 3) terminal.holdUnsent([record]);
      else expect((await terminal.punch([record])).body).toStartWith('OK');
    }
    expect(terminal.transactionCount).toBe(100);
    await drain(terminal); // INFO: TransactionCount=100
    expect((await storedFrom(SN)).length).toBe(70);

    // A count just reported may run ahead of its uploads: not a gap yet.
    expect(await runCheck()).toMatchObject({ gaps: 0 });
    clock.advance(5 * 60_000);
    expect(await runCheck()).toMatchObject({ gaps: 1 });
    const found = await server.admin.get(`/devices/${SN}/completeness/?from=${today()}&to=${today()}`);
    expect(found.body.counts).toMatchObject({ reported: 100, missing: 30 });
    expect(found.body.days[0]).toMatchObject({ stored: 70, status: 'recovering' });
    expect(found.body.recoveries[0]).toMatchObject({ reason: 'count_mismatch', status: 'queued', missing: 30 });

    // The DATA QUERY ATTLOG goes out on its next poll; it re-uploads the range.
    const ran = await drain(terminal);
    expect(ran.some((c) => c.startsWith('DATA QUERY ATTLOG StartTime='))).toBe(true);
    const stored = await storedFrom(SN);
    expect(stored.length).toBe(100);
    expect(new Set(stored.map((p) => `${p.device_pin} ${p.local_time}`)).size).toBe(100);

    const done = await server.admin.get(`/devices/${SN}/completeness/?from=${today()}&to=${today()}`);
    expect(done.body.days[0]).toMatchObject({ stored: 100, reported: 100, reported_by: 'reupload', recovered: 30, status: 'complete' });
    expect(done.body.recoveries[0]).toMatchObject({ status: 'done', recovered: 30, return_code: 0 });
    expect(done.body.counts.missing).toBeNull();
    // Nothing more to ask: the counts agree.
    expect(await runCheck()).toMatchObject({ gaps: 0, agreed: 1 });
    expect((await drain(terminal)).filter((c) => c.startsWith('DATA QUERY'))).toEqual([]);

    // The events, in the log and delivered.
    const log = (await server.admin.get('/events/?limit=1000')).body.results as { type: string; data: any }[];
    const gapFound = log.find((e) => e.type === 'punch_gap_found')!;
    const gapClosed = log.find((e) => e.type === 'punch_gap_closed')!;
    expect(gapFound.data).toMatchObject({ device: { serial_number: SN }, reason: 'count_mismatch', missing: 30, reported: 100, stored: 70 });
    expect(gapClosed.data).toMatchObject({ device: { serial_number: SN }, status: 'done', recovered: 30, remaining: 0, return_code: 0 });
    await waitFor(() => rx.calls.length >= 2, 'both gap events delivered');
    // Started in log order, but up to WEBHOOK_CONCURRENCY are in flight: arrival order may swap.
    expect(rx.calls.map((c) => JSON.parse(c.body).type).sort()).toEqual(['punch_gap_closed', 'punch_gap_found']);
  });

  test('days before a terminal was known are unknown; an unknown serial or one outside the caller’s areas answers 404', async () => {
    const long = await server.admin.get(`/devices/${SN}/completeness/`);
    expect(long.status).toBe(200);
    expect(long.body.days.length).toBe(31);
    expect(long.body.days[0].status).toBe('unknown');
    expect((await server.admin.get('/devices/NOPE0001/completeness/')).status).toBe(404);
    expect((await server.admin.get(`/devices/${SN}/completeness/?from=2026-02-01&to=2026-01-01`)).status).toBe(400);
  });

  test('a terminal back after a silence longer than DEVICE_OFFLINE_AFTER is asked to re-upload it', async () => {
    const terminal = new SimulatedTerminal({ url: server.url, sn: 'GAP00002', now: clock.now });
    await terminal.handshake();
    await terminal.postOptions();
    expect((await server.admin.post('/devices/GAP00002/approve/', { areas: ['default'] })).status).toBe(200);
    await drain(terminal);
    // While it was unplugged its firmware moved the stamp past 3 punches.
    terminal.holdUnsent([0, 1, 2].map((i) => ({ pin: '21', at: new Date(clock.now() + 60_000 + i * 1000) })));
    clock.advance(3 * 60_000);
    // Back: it first sends its backlog by itself (nothing, here); the re-upload is planned...
    expect((await drain(terminal)).some((c) => c.startsWith('DATA QUERY ATTLOG'))).toBe(false);
    const planned = await server.admin.get(`/devices/GAP00002/completeness/?from=${today()}&to=${today()}`);
    expect(planned.body.recoveries[0]).toMatchObject({ reason: 'terminal_outage', status: 'planned' });
    expect(planned.body.days[0].status).toBe('recovering');
    // ...and asked once it had time to (the check, a settling time later).
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ asked: 1 });
    const ran = await drain(terminal);
    expect(ran.some((c) => c.startsWith('DATA QUERY ATTLOG'))).toBe(true);
    expect((await storedFrom('GAP00002')).length).toBe(3);
    const report = await server.admin.get(`/devices/GAP00002/completeness/?from=${today()}&to=${today()}`);
    expect(report.body.recoveries[0]).toMatchObject({ reason: 'terminal_outage', status: 'done', recovered: 3 });
  });
});

describe('counts that tell the truth', () => {
  /** An approved terminal whose count (0) agreed with what is stored. */
  async function agreedTerminal(sn: string, options: Partial<SimulatedTerminalOptions> = {}): Promise<SimulatedTerminal> {
    const terminal = new SimulatedTerminal({ url: server.url, sn, now: clock.now, ...options });
    await terminal.handshake();
    await terminal.postOptions();
    expect((await server.admin.post(`/devices/${sn}/approve/`, { areas: ['default'] })).status).toBe(200);
    await drain(terminal);
    await runCheck();
    return terminal;
  }
  const gapEventsOf = async (sn: string) =>
    ((await server.admin.get('/events/?limit=1000')).body.results as { type: string; data: { device: { serial_number: string } } }[]).filter(
      (e) => e.type === 'punch_gap_found' && e.data.device.serial_number === sn,
    );
  /** The terminal reports its count; the check finds the gap, the terminal answers the re-upload, the check finishes it. */
  async function gapFoundAndAnswered(terminal: SimulatedTerminal): Promise<void> {
    await drain(terminal);
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ gaps: 1 });
    await drain(terminal);
    clock.advance(2 * 60_000);
    await runCheck();
  }
  const dayOf = async (sn: string) => (await server.admin.get(`/devices/${sn}/completeness/?from=${today()}&to=${today()}`)).body.days[0];

  test('a punch stored before the terminal reports its new count is no gap (the check between upload and report)', async () => {
    const terminal = await agreedTerminal('GAP00010');
    expect((await terminal.punch([{ pin: '31', at: new Date(clock.now() + 1000) }])).body).toStartWith('OK');
    // The check runs before the terminal's next poll: its count (0) is older than the punch.
    await runCheck();
    await drain(terminal); // INFO: TransactionCount=1
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ gaps: 0 });
    expect(await gapEventsOf('GAP00010')).toEqual([]);
    expect(await dayOf('GAP00010')).toMatchObject({ stored: 1, status: 'complete' });
  });

  test('a record counted a moment before its upload arrives, then a record never sent: that one is a gap', async () => {
    const terminal = await agreedTerminal('GAP00014');
    // Past the settling time while it keeps polling (not silent: no outage re-upload).
    const settle = async () => {
      for (let i = 0; i < 3; i++) {
        clock.advance(40_000);
        await drain(terminal);
      }
    };
    const [line] = terminal.holdUnsent([{ pin: '35', at: new Date(clock.now() + 1000) }]);
    await drain(terminal); // INFO: TransactionCount=1, before its upload
    expect((await terminal.sendAttlog(`${line}\n`)).body).toStartWith('OK');
    await settle();
    expect(await runCheck()).toMatchObject({ gaps: 0 });
    expect(await runCheck()).toMatchObject({ gaps: 0 });
    terminal.holdUnsent([{ pin: '35', at: new Date(clock.now() + 1000) }]);
    await drain(terminal); // INFO: TransactionCount=2; that record never comes
    await settle();
    expect(await runCheck()).toMatchObject({ gaps: 1 });
    expect((await gapEventsOf('GAP00014')).length).toBe(1);
  });

  test('a terminal whose clock runs 5 minutes ahead is asked for its records where its clock put them', async () => {
    const terminal = await agreedTerminal('GAP00011');
    // Its records carry its clock, 5 minutes ahead, and that drift was measured (devices.clock_drift_seconds).
    await server.fpa.db.client.execute({ sql: 'update fpa_devices set clock_drift_seconds = 300 where serial_number = ?', args: ['GAP00011'] });
    const ahead = (ms: number) => new Date(clock.now() + 5 * 60_000 + ms);
    expect((await terminal.punch([{ pin: '32', at: ahead(1000) }])).body).toStartWith('OK');
    terminal.holdUnsent([{ pin: '32', at: ahead(3000) }]);
    await gapFoundAndAnswered(terminal);
    expect(await dayOf('GAP00011')).toMatchObject({ stored: 2, status: 'complete' });
    const log = (await server.admin.get('/events/?limit=1000')).body.results as {
      type: string;
      data: { device: { serial_number: string }; remaining?: number };
    }[];
    expect(log.filter((e) => e.type === 'punch_gap_closed' && e.data.device.serial_number === 'GAP00011').map((e) => e.data.remaining)).toEqual([0]);
  });

  test('a re-upload that brings fewer than were missing leaves the gap open, asked once more an hour later', async () => {
    const terminal = await agreedTerminal('GAP00013');
    expect((await terminal.punch([{ pin: '34', at: new Date(clock.now() + 1000) }])).body).toStartWith('OK');
    // Kept with a stamp far outside any range asked (a clock set wrong and never measured).
    terminal.holdUnsent([{ pin: '34', at: new Date(clock.now() + 6 * 3_600_000) }]);
    await gapFoundAndAnswered(terminal);
    const report = (await server.admin.get(`/devices/GAP00013/completeness/?from=${today()}&to=${today()}`)).body;
    expect(report.recoveries[0]).toMatchObject({ status: 'done', recovered: 0, missing: 1 });
    expect(report.counts.missing).toBe(1);
    clock.advance(2 * 60_000);
    await runCheck();
    expect((await drain(terminal)).filter((c) => c.startsWith('DATA QUERY'))).toEqual([]);
    // An hour later it is asked once more; short again, the terminal has no more to give: agreed.
    clock.advance(61 * 60_000);
    await runCheck();
    expect((await drain(terminal)).filter((c) => c.startsWith('DATA QUERY'))).toHaveLength(1);
    clock.advance(2 * 60_000);
    await runCheck();
    const settled = (await server.admin.get(`/devices/GAP00013/completeness/?from=${today()}&to=${today()}`)).body;
    expect(settled.recoveries[0]).toMatchObject({ status: 'done', recovered: 0, missing: 1 });
    expect(settled.counts.missing).toBeNull();
  });

  test('a re-upload that re-sent fewer than were missing leaves its date a gap, and a clear of the log after it keeps it one', async () => {
    for (const [sn, sent] of [
      ['GAP00015', 1],
      ['GAP00016', 0],
    ] as const) {
      const terminal = await agreedTerminal(sn);
      for (let i = 0; i < sent; i++) expect((await terminal.punch([{ pin: '36', at: new Date(clock.now() + 1000) }])).body).toStartWith('OK');
      // Today, but outside the range asked (a clock set wrong and never measured): it re-sends only what is stored, or nothing.
      terminal.holdUnsent([{ pin: '36', at: new Date(clock.now() + 3 * 3_600_000) }]);
      await gapFoundAndAnswered(terminal);
      const report = (await server.admin.get(`/devices/${sn}/completeness/?from=${today()}&to=${today()}`)).body;
      expect(report.recoveries[0]).toMatchObject({ status: 'done', recovered: 0, missing: 1, return_code: 0 });
      expect(report.counts.missing).toBe(1);
      expect(report.days[0]).toMatchObject({ stored: sent, reported: sent, reported_by: 'reupload', status: 'gap' });
      // Its log cleared: the punch it never sent left with it; the counts agree from then on.
      expect((await server.admin.post(`/devices/${sn}/commands/`, { kind: 'clear_logs', confirm: sn })).status).toBe(201);
      await drain(terminal);
      await drain(terminal);
      expect(terminal.transactionCount).toBe(0);
      clock.advance(2 * 60_000);
      await runCheck();
      const cleared = (await server.admin.get(`/devices/${sn}/completeness/?from=${today()}&to=${today()}`)).body;
      expect(cleared.counts).toMatchObject({ reported: 0, missing: null });
      expect(cleared.days[0]).toMatchObject({ stored: sent, status: 'gap' });
    }
  });

  test('a date complete by the count reports what the count vouched for when it agreed, not what is stored since', async () => {
    const terminal = await agreedTerminal('GAP00017');
    const agreed = (await server.admin.get(`/devices/GAP00017/completeness/?from=${today()}&to=${today()}`)).body.counts;
    expect(agreed).toMatchObject({ reported: 0 });
    // A punch after the agreement, its count not reported yet: the date is still complete by that agreement.
    expect((await terminal.punch([{ pin: '37', at: new Date(clock.now() + 1000) }])).body).toStartWith('OK');
    await runCheck();
    expect(await dayOf('GAP00017')).toMatchObject({
      stored: 1,
      reported: 0,
      reported_at: agreed.agreed_at,
      reported_by: 'count',
      reported_from: null,
      status: 'complete',
    });
  });

  test('a re-upload of part of a date reports what it re-sent for that part, and says which part', async () => {
    const terminal = await agreedTerminal('GAP00018');
    // Three punches this morning, sent and agreed on.
    const morning = clock.now() - 2 * 3_600_000;
    expect((await terminal.punch([0, 1, 2].map((i) => ({ pin: '38', at: new Date(morning + i * 60_000) })))).body).toStartWith('OK');
    await drain(terminal);
    await runCheck();
    expect((await server.admin.get(`/devices/GAP00018/completeness/?from=${today()}&to=${today()}`)).body.counts).toMatchObject({ reported: 3, missing: null });
    // Away for three minutes; one punch of then never sent by itself.
    terminal.holdUnsent([{ pin: '38', at: new Date(clock.now() + 60_000) }]);
    clock.advance(3 * 60_000);
    await drain(terminal); // back: the re-upload of the silence is planned
    clock.advance(2 * 60_000);
    await runCheck(); // asks for it
    await drain(terminal);
    clock.advance(2 * 60_000);
    await runCheck();
    const r = (await server.admin.get(`/devices/GAP00018/completeness/?from=${today()}&to=${today()}`)).body;
    expect(r.recoveries[0]).toMatchObject({ reason: 'terminal_outage', status: 'done', recovered: 1 });
    expect(r.recoveries[0].from > `${today()} 00:00:00`).toBe(true);
    expect(r.days[0]).toMatchObject({
      stored: 4,
      reported: 1,
      reported_by: 'reupload',
      reported_from: r.recoveries[0].from,
      reported_to: r.recoveries[0].to,
      recovered: 1,
      status: 'complete',
    });
  });

  test('records held before a silence, outside the outage re-upload: its finish finds the gap instead of agreeing', async () => {
    const terminal = await agreedTerminal('GAP00019');
    expect((await terminal.punch([{ pin: '39', at: new Date(clock.now() + 1000) }])).body).toStartWith('OK');
    await drain(terminal); // INFO: TransactionCount=1
    await runCheck();
    const agreedAt = (await server.admin.get(`/devices/GAP00019/completeness/?from=${today()}&to=${today()}`)).body.counts.agreed_at;
    expect(agreedAt).not.toBeNull();
    const lastAgreed = Date.parse(agreedAt);
    // It polls on for 15 minutes (never silent), holding nothing yet.
    for (let i = 0; i < 30; i++) {
      clock.advance(30_000);
      await drain(terminal);
    }
    // Three records of minutes 1 to 3 after the agreement, in its log and never sent; then it falls silent.
    terminal.holdUnsent([0, 1, 2].map((i) => ({ pin: '39', at: new Date(lastAgreed + 60_000 + i * 60_000) })));
    clock.advance(3 * 60_000);
    await drain(terminal); // back: INFO: TransactionCount=4, the re-upload of its silence planned
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ asked: 1 });
    // The silence began 15 minutes after those records: the outage re-upload brings nothing.
    expect((await drain(terminal)).some((c) => c.startsWith('DATA QUERY ATTLOG'))).toBe(true);
    expect((await storedFrom('GAP00019')).length).toBe(1);
    clock.advance(2 * 60_000);
    // Finished, the counts still differ by 3: a gap found, and its own re-upload since the last agreement.
    expect(await runCheck()).toMatchObject({ finished: 1, gaps: 1 });
    const found = (await server.admin.get(`/devices/GAP00019/completeness/?from=${today()}&to=${today()}`)).body;
    expect(found.counts).toMatchObject({ reported: 4, agreed_at: agreedAt, missing: 3 });
    expect(found.days[0].status).not.toBe('complete');
    expect(found.recoveries.map((r: { reason: string; status: string }) => [r.reason, r.status])).toEqual([
      ['count_mismatch', 'queued'],
      ['terminal_outage', 'done'],
    ]);
    expect(found.recoveries[0].from < new Date(lastAgreed).toISOString().slice(0, 19).replace('T', ' ')).toBe(true);
    const events = await gapEventsOf('GAP00019');
    expect(events.map((e) => e.data)).toMatchObject([{ reason: 'count_mismatch', missing: 3, reported: 4, stored: 1 }]);
    // The terminal re-sends them: complete, with the 3 recovered.
    await drain(terminal);
    expect((await storedFrom('GAP00019')).length).toBe(4);
    expect(await dayOf('GAP00019')).toMatchObject({ stored: 4, recovered: 3, status: 'complete' });
  });

  test('an operator’s reupload_logs is no completeness re-upload: what it brings closes the gap by the counts', async () => {
    // Its firmware refuses the first DATA QUERY ATTLOG (the automatic one), answers the next.
    let refused = 0;
    const terminal = await agreedTerminal('GAP0001A', { respond: (c) => (c.text.startsWith('DATA QUERY ATTLOG') && refused++ === 0 ? -1002 : undefined) });
    terminal.holdUnsent([{ pin: '3A', at: new Date(clock.now() + 1000) }]);
    await drain(terminal);
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ gaps: 1 });
    await drain(terminal); // refuses it
    expect(await dayOf('GAP0001A')).toMatchObject({ status: 'gap' });
    expect((await server.admin.post('/devices/GAP0001A/commands/', { kind: 'reupload_logs', from: today() })).status).toBe(201);
    await drain(terminal);
    expect((await storedFrom('GAP0001A')).length).toBe(1);
    // Not listed among its re-uploads, nothing counted as recovered; the next check sees the counts agree.
    await runCheck();
    const r = (await server.admin.get(`/devices/GAP0001A/completeness/?from=${today()}&to=${today()}`)).body;
    expect(r.recoveries.map((x: { status: string }) => x.status)).toEqual(['failed']);
    expect(r.counts).toMatchObject({ reported: 1, missing: null });
    expect(r.days[0]).toMatchObject({ stored: 1, recovered: 0, reported_by: 'count', status: 'complete' });
  });

  test('a terminal that cannot re-send, then cleared: the gap of before the clear stays a gap, not complete', async () => {
    const terminal = await agreedTerminal('GAP00012', { respond: (c) => (c.text.startsWith('DATA QUERY ATTLOG') ? -1002 : undefined) });
    expect((await terminal.punch([{ pin: '33', at: new Date(clock.now() + 1000) }])).body).toStartWith('OK');
    terminal.holdUnsent([{ pin: '33', at: new Date(clock.now() + 2000) }]);
    await drain(terminal);
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ gaps: 1 });
    await drain(terminal); // answers the re-upload with −1002
    expect(await dayOf('GAP00012')).toMatchObject({ status: 'gap' });
    // Its log cleared: it holds nothing now.
    expect((await server.admin.post('/devices/GAP00012/commands/', { kind: 'clear_logs', confirm: 'GAP00012' })).status).toBe(201);
    await drain(terminal);
    await drain(terminal);
    clock.advance(2 * 60_000);
    await runCheck();
    expect(await dayOf('GAP00012')).toMatchObject({ stored: 1, status: 'gap' });
    expect((await server.admin.get(`/devices/GAP00012/completeness/?from=${today()}&to=${today()}`)).body.counts).toMatchObject({
      missing: null,
      missing_at_clear: 1,
    });
  });
});

describe('gaps only where records were lost', () => {
  const DAY = 86_400_000;
  const dateAt = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const refuses = { respond: (c: { text: string }) => (c.text.startsWith('DATA QUERY ATTLOG') ? -1002 : undefined) };
  /** Pre-registered today, holding records it never sends by itself, then heard from for the first time. */
  async function preRegistered(sn: string, held: Date[], options: Partial<SimulatedTerminalOptions> = {}): Promise<SimulatedTerminal> {
    expect((await server.admin.post('/devices/', { serial_number: sn, areas: ['default'] })).status).toBe(201);
    const terminal = new SimulatedTerminal({ url: server.url, sn, now: clock.now, ...options });
    terminal.holdUnsent(held.map((at, i) => ({ pin: String(41 + i), at })));
    await terminal.handshake();
    await terminal.postOptions();
    await drain(terminal);
    return terminal;
  }
  const report = async (sn: string, from: string) => (await server.admin.get(`/devices/${sn}/completeness/?from=${from}&to=${today()}`)).body;
  const statusOn = (r: { days: { date: string; status: string }[] }) => (date: string) => r.days.find((d) => d.date === date)?.status;

  test('a count that never agreed, its re-upload refused: no date before the terminal was known is a gap; today may hold them', async () => {
    const terminal = await preRegistered('GAP00020', [new Date(clock.now() - 3_600_000), new Date(clock.now() - 1_800_000)], refuses);
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ gaps: 1 });
    await drain(terminal); // answers the re-upload with −1002
    const r = await report('GAP00020', addDays(today(), -365));
    expect(r.days).toHaveLength(366);
    expect(r.counts).toMatchObject({ missing: 2, agreed_at: null });
    expect(r.recoveries[0]).toMatchObject({ status: 'failed', return_code: -1002 });
    // Which date the 2 bear the counts cannot say (a terminal may come with a history): today, the only date it was known, may hold them.
    expect(r.days.filter((d: { status: string }) => d.status !== 'unknown').map((d: { date: string; status: string }) => [d.date, d.status])).toEqual([
      [today(), 'possible_gap'],
    ]);
    expect(r.days[0]).toMatchObject({ date: addDays(today(), -365), stored: 0, status: 'unknown' });
  });

  test('a log cleared while punches were missing: the report says how many left with it', async () => {
    const terminal = await preRegistered('GAP00022', [new Date(clock.now() - 3_600_000), new Date(clock.now() - 1_800_000)], refuses);
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ gaps: 1 });
    await drain(terminal); // answers the re-upload with −1002
    expect((await report('GAP00022', today())).counts).toMatchObject({ missing: 2, cleared_at: null, missing_at_clear: null });
    // Its log cleared, then one punch more.
    expect((await server.admin.post('/devices/GAP00022/commands/', { kind: 'clear_logs', confirm: 'GAP00022' })).status).toBe(201);
    await drain(terminal);
    await drain(terminal);
    expect((await terminal.punch([{ pin: '45', at: new Date(clock.now() + 1000) }])).body).toStartWith('OK');
    await drain(terminal);
    clock.advance(2 * 60_000);
    await runCheck();
    const r = await report('GAP00022', today());
    expect(r.counts).toMatchObject({ reported: 1, missing: null, missing_at_clear: 2 });
    expect(r.counts.cleared_at).not.toBeNull();
    expect(r.days[0]).toMatchObject({ stored: 1, status: 'possible_gap' });
  });

  test('records older than the re-upload reaches: the dates it proved are complete, those before the terminal was known unknown', async () => {
    const long = clock.now() - 88 * DAY;
    const terminal = await preRegistered('GAP00021', [new Date(long), new Date(long + 3_600_000), new Date(long + DAY)]);
    expect((await terminal.punch([{ pin: '44', at: new Date(clock.now() - 60_000) }])).body).toStartWith('OK');
    await drain(terminal);
    clock.advance(2 * 60_000);
    expect(await runCheck()).toMatchObject({ gaps: 1 });
    await drain(terminal); // re-uploads the last 31 days: only today's record
    clock.advance(2 * 60_000);
    await runCheck();
    const r = await report('GAP00021', addDays(today(), -95));
    expect(r.recoveries[0]).toMatchObject({ reason: 'count_mismatch', status: 'done', missing: 3, recovered: 0 });
    expect(r.counts.missing).toBe(3);
    const on = statusOn(r);
    const asked = r.recoveries[0].from.slice(0, 10);
    // The lost records' dates, a date with nothing, the re-upload's first date (from its start time only): unknown.
    expect([on(dateAt(long)), on(dateAt(long + DAY)), on(addDays(today(), -44)), on(asked)]).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
    // Every date it covered whole: complete, today's one record re-sent and stored.
    expect(r.days.filter((d: { date: string }) => d.date > asked).every((d: { status: string }) => d.status === 'complete')).toBe(true);
    expect(r.days.at(-1)).toMatchObject({ date: today(), stored: 1, reported: 1, reported_by: 'reupload', status: 'complete' });
    const middle = addDays(today(), -10);
    expect(r.days.find((d: { date: string }) => d.date === middle)).toMatchObject({
      reported: 0,
      reported_from: `${middle} 00:00:00`,
      reported_to: `${middle} 23:59:59`,
      status: 'complete',
    });
    expect(r.days.some((d: { status: string }) => d.status === 'gap' || d.status === 'possible_gap')).toBe(false);
  });
});

describe('the server itself was down', () => {
  test('at start, every approved terminal is asked to re-upload the time the server was away', async () => {
    const { dir, cleanup } = tempDir();
    const movable = runningClock();
    try {
      let first = await startTestServer({}, { dir, clock: movable });
      const terminal = new SimulatedTerminal({ url: first.url, sn: 'DOWN0001', now: movable.now });
      await terminal.handshake();
      await terminal.postOptions();
      expect((await first.admin.post('/devices/DOWN0001/approve/', { areas: ['default'] })).status).toBe(200);
      await drain(terminal);
      await first.stop();
      movable.advance(30 * 60_000);
      first = await startTestServer({}, { dir, clock: movable });
      try {
        const report = await first.admin.get('/devices/DOWN0001/completeness/');
        expect(report.body.recoveries[0]).toMatchObject({ reason: 'server_outage', status: 'planned' });
        movable.advance(2 * 60_000);
        expect((await first.admin.post('/jobs/check-completeness/run/')).body.result).toMatchObject({ asked: 1 });
        expect((await drain(new SimulatedTerminal({ url: first.url, sn: 'DOWN0001', now: movable.now }))).some((c) => c.startsWith('DATA QUERY ATTLOG'))).toBe(
          true,
        );
      } finally {
        await first.stop();
      }
    } finally {
      cleanup();
    }
  });
});
