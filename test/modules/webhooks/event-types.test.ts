/**
 * Every event type of the log can be subscribed to. Each type is raised here by a real cause
 * (a terminal over ADMS, the administrator API, a job, the clock moving on) and must reach the
 * endpoints subscribed to it, and only those: one endpoint per type, one for all of them, one
 * for two. Every delivery is signed (verified with `standardwebhooks`), carries the event's id
 * as `webhook-id` and the event itself as its body, and an endpoint gets its events in log order.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { EVENT_CATALOG, FPA_EVENT_TYPES } from '../../../src/app/event-catalog';
import { SimulatedTerminal } from '../../../src/simulator/terminal';
import { createAgent, startSession } from '../../support/agents';
import { startTestServer, type TestServer } from '../../support/harness';
import { fetchFrom, SECOND_ADDRESS } from '../../support/source-address';
import { drain } from '../../support/terminals';
import { type ReceivedCall, receiver, waitFor } from '../../support/webhook-receiver';

const SN = 'TYPES001';
let offset = 0;
const clock = { now: () => Date.now() + offset };
let server: TestServer;
let rx: ReturnType<typeof receiver>;
const secrets = new Map<string, string>();

interface LoggedEvent {
  sequence: number;
  id: string;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

beforeAll(async () => {
  server = await startTestServer(
    // One request at a time per endpoint, so arrival order is send order (log order).
    { WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, WEBHOOK_RETRY_BACKOFF: 50, WEBHOOK_TIMEOUT: 2_000, WEBHOOK_CONCURRENCY: 1, DEVICE_OFFLINE_AFTER: 60_000 },
    { clock },
  );
  rx = receiver();
});
afterAll(async () => {
  rx.stop();
  await server.close();
});

async function subscribe(path: string, events: readonly string[]): Promise<void> {
  const created = await server.admin.post('/webhooks/', { url: `http://127.0.0.1:${rx.port}${path}`, events });
  expect(created.status).toBe(201);
  secrets.set(path, created.body.secret);
}

/** Paths of `actual`'s object fields that `example` does not have (arrays: against its first item). */
function fieldsBeyond(actual: unknown, example: unknown, at: string): string[] {
  if (Array.isArray(actual)) return Array.isArray(example) && example.length > 0 ? actual.flatMap((a) => fieldsBeyond(a, example[0], `${at}[]`)) : [];
  if (actual === null || typeof actual !== 'object') return [];
  if (example === null || typeof example !== 'object') return [at];
  const shown = example as Record<string, unknown>;
  return Object.entries(actual).flatMap(([key, value]) => (key in shown ? fieldsBeyond(value, shown[key], `${at}.${key}`) : [`${at}.${key}`]));
}

/** Every object field path of a value (arrays: of their items). */
function pathsOf(value: unknown, at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => pathsOf(v, `${at}[]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => [`${at}.${key}`, ...pathsOf(v, `${at}.${key}`)]);
}

async function logAfter(after: number): Promise<LoggedEvent[]> {
  const out: LoggedEvent[] = [];
  for (let cursor = after; ; ) {
    const page = await server.admin.get(`/events/?after=${cursor}&limit=1000`);
    const results = page.body.results as LoggedEvent[];
    if (results.length === 0) return out;
    out.push(...results);
    cursor = page.body.last_sequence;
  }
}

const callsTo = (path: string): ReceivedCall[] => rx.calls.filter((c) => c.path === path);

describe('every event type, raised by a real cause', () => {
  test('webhooks/event-types/ lists every type an endpoint can subscribe to; an unknown one is refused', async () => {
    expect((await server.admin.get('/webhooks/event-types/')).body).toEqual({ results: [...FPA_EVENT_TYPES] });
    const refused = await server.admin.post('/webhooks/', { url: `http://127.0.0.1:${rx.port}/x`, events: ['punch_recieved'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ field: 'events', unknown: ['punch_recieved'] });
  });

  test('reaches the endpoints subscribed to it, and only those, signed, in log order', async () => {
    for (const type of FPA_EVENT_TYPES) await subscribe(`/t/${type}`, [type]);
    await subscribe('/all', FPA_EVENT_TYPES);
    await subscribe('/pair', ['device_approved', 'enrollee_deleted']);
    const start = (await server.admin.get('/events/?limit=1')).body.last_sequence as number;
    const head = async () => (await logAfter(0)).at(-1)?.sequence ?? 0;
    expect(await head()).toBe(start);

    // A person exists before the terminal: Ada (renamed, with consent) and Cy (no consent yet).
    expect((await server.admin.post('/employees/', { id: 'E-TYPES-1', name: 'Ada Obi' })).status).toBe(201);
    const ada = (await server.admin.post('/enrollees/', { employee: 'E-TYPES-1' })).body as { id: string; device_pin: string };
    expect((await server.admin.patch(`/enrollees/${ada.id}/`, { display_name: 'Ada O.' })).status).toBe(200);
    expect((await server.admin.post(`/enrollees/${ada.id}/consent/`, { version: 'v1', method: 'paper' })).status).toBe(201);
    expect((await server.admin.post('/employees/', { id: 'E-TYPES-3', name: 'Cy Ode' })).status).toBe(201);
    const cy = (await server.admin.post('/enrollees/', { employee: 'E-TYPES-3' })).body as { id: string; device_pin: string };

    // A terminal that already holds users makes contact (device_registered), is approved and
    // renamed. It holds Ada's PIN for someone else (terminal_user_conflict), and PIN 7 of its own.
    const terminal = new SimulatedTerminal({
      url: server.url,
      sn: SN,
      existingUsers: [
        { pin: ada.device_pin, name: 'Not Ada', fingers: [1] },
        { pin: '7', name: 'Bo at the menu' },
      ],
    });
    await terminal.handshake();
    await terminal.postOptions();
    expect((await server.admin.post(`/devices/${SN}/approve/`, { areas: ['default'] })).status).toBe(200);
    expect((await server.admin.patch(`/devices/${SN}/`, { name: 'Front door' })).status).toBe(200);
    await drain(terminal);
    // Someone polls as this terminal from another address (device_address_changed): sent nothing.
    expect(await (await fetchFrom(SECOND_ADDRESS)(`${server.url}/iclock/getrequest?SN=${SN}`)).text()).toBe('OK');
    // The administrator removes that user: Ada is sent instead (device_command_finished).
    expect((await server.admin.delete(`/devices/${SN}/users/${ada.device_pin}/`)).status).toBe(202);
    await drain(terminal);
    // Ada badges a card at the terminal's menu: she had none, so it is hers (enrollee_card_changed).
    const adaCard = `USER PIN=${ada.device_pin}\tName=Ada O.\tPri=0\tPasswd=\tCard=4242\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\n`;
    expect((await terminal.post('cdata', { table: 'OPERLOG', Stamp: '1' }, adaCard)).body).toBe('OK:1');

    // A walk-up template of Ada (stored) and one of Cy, who has not consented (rejected).
    expect((await terminal.uploadTemplate(ada.device_pin, 6)).body).toStartWith('OK');
    expect((await terminal.uploadTemplate(cy.device_pin, 6)).body).toStartWith('OK');
    // Punches of Ada (her attendance day) and of the terminal's own user 7, adopted as an
    // enrollee: the punches the terminal kept for PIN 7 become hers (punches_attributed).
    expect(
      (
        await terminal.punch([
          { pin: ada.device_pin, localTime: '2026-03-02 08:00:00' },
          { pin: ada.device_pin, localTime: '2026-03-02 17:00:00' },
          { pin: '7', localTime: '2026-03-02 08:05:00' },
        ])
      ).body,
    ).toBe('OK:3');
    expect((await server.admin.post('/employees/', { id: 'E-TYPES-2', name: 'Bo Lin' })).status).toBe(201);
    const adopted = await server.admin.post(`/devices/${SN}/users/7/adopt/`, { employee: 'E-TYPES-2' });
    expect(adopted.status).toBeLessThan(300);
    const bo = adopted.body as { id: string; device_pin: string };
    expect(bo.device_pin).toBe('7');
    await drain(terminal);

    // A punch entered by hand for today and voided: the day loses its only punch and goes
    // (punch_voided, attendance_day_removed). A holiday declared and a pay period locked.
    // A minute ago, but never yesterday (a past day that loses its punches stays, absent): in
    // the first minute after midnight, midnight itself. The server's clock is the real one here,
    // as the receiver checks the signatures' times against it.
    const now = clock.now();
    const manual = await server.admin.post('/punches/manual/', {
      enrollee: bo.id,
      at: new Date(Math.max(now - 60_000, now - (now % 86_400_000))).toISOString(),
      reason: 'forgot the badge',
    });
    expect(manual.status).toBe(201);
    // Days follow the log after a quiet moment: reading them makes the day exist before the void.
    expect((await server.admin.get('/attendance-days/?limit=10')).status).toBe(200);
    expect((await server.admin.post(`/punches/${manual.body.id}/void/`, { reason: 'entered twice' })).status).toBe(200);
    expect((await server.admin.post('/holidays/', { date: '2026-03-09', name: 'Founders day' })).status).toBe(201);
    // A leave recorded for a day Ada punched (her punches are then on leave: anomaly_detected),
    // then removed (anomaly_removed); the anomalies follow the calendar after the commit, and
    // reading them catches them up.
    const leave = await server.admin.post('/leaves/', { enrollee: ada.id, from: '2026-03-02', to: '2026-03-02', kind: 'vacation' });
    expect(leave.status).toBe(201);
    expect((await server.admin.get('/anomalies/?from=2026-03-02&to=2026-03-02')).body.results).toHaveLength(2);
    expect((await server.admin.delete(`/leaves/${leave.body.id}/`)).status).toBe(204);
    expect((await server.admin.get('/anomalies/?from=2026-03-02&to=2026-03-02')).body.results).toEqual([]);
    const period = await server.admin.post('/pay-periods/', { from: '2026-03-01', to: '2026-03-15' });
    expect(period.status).toBe(201);
    expect((await server.admin.post(`/pay-periods/${period.body.id}/lock/`)).status).toBe(200);

    // An operator resyncs the terminal (device_resynced); its clock runs 5 minutes ahead
    // (device_clock_drifting).
    expect((await server.admin.post(`/devices/${SN}/resync/`, {})).status).toBeLessThan(300);
    await drain(terminal);
    expect((await terminal.punch([{ pin: ada.device_pin, at: new Date(clock.now() + 5 * 60_000) }])).body).toBe('OK:1');
    expect((await server.admin.get('/attendance-days/?limit=10')).status).toBe(200);

    // The terminal's firmware moves its stamp past a punch: Ada's card, where she has a
    // fingerprint. Its count runs ahead of what is stored and stays so (punch_gap_found); asked,
    // it re-uploads the range (punch_gap_closed) and the punch is a look-worthy one (anomaly_detected).
    terminal.holdUnsent([{ pin: ada.device_pin, at: new Date(clock.now() - 20_000), verifyType: 4 }]);
    await terminal.poll();
    offset = 70_000;
    expect((await server.admin.post('/jobs/check-completeness/run/')).body.result).toMatchObject({ gaps: 1 });
    await drain(terminal);

    // An enrollment session, closed when Ada withdraws her consent (templates destroyed).
    const agent = await createAgent(server, 'types desk');
    await startSession(server, ada.id, agent.id, [1, 2]);
    expect((await server.admin.delete(`/enrollees/${ada.id}/consent/`)).status).toBeLessThan(300);
    expect((await server.admin.delete(`/enrollees/${bo.id}/`)).status).toBeLessThan(300);

    // The terminal falls silent (device_offline), speaks again (device_online) and answers the
    // deletes it owes (their deletion proofs complete: deletion_proof_completed), is disabled,
    // then removed.
    offset = 160_000;
    expect((await server.admin.post('/jobs/check-devices/run/')).body.result).toMatchObject({ offline: 1 });
    await terminal.poll();
    expect((await server.admin.post(`/devices/${SN}/disable/`)).status).toBe(200);
    expect((await server.admin.delete(`/devices/${SN}/`)).status).toBeLessThan(300);
    await server.admin.get('/attendance-days/?limit=10');

    const log = await logAfter(start);
    const raised = new Set(log.map((e) => e.type));
    expect([...FPA_EVENT_TYPES].filter((t) => !raised.has(t))).toEqual([]);
    // The README's examples (app/event-catalog.ts) show every field real events carry.
    // A command's payload depends on its kind; `by` is documented for manual punches.
    const open = (path: string) =>
      path.startsWith('device_command_finished.command.payload.') || path.startsWith('anomaly_detected.anomaly.details.') || path === 'punch_received.by';
    const undocumented = log.flatMap((e) => fieldsBeyond(e.data, EVENT_CATALOG[e.type as keyof typeof EVENT_CATALOG].example, e.type));
    expect([...new Set(undocumented)].filter((path) => !open(path))).toEqual([]);
    // …and no field the log never carries: a deleted person's event keeps their id and employee
    // key only, so its example shows no name, PIN or card (it did, while the text above it said so).
    const neverCarried = FPA_EVENT_TYPES.flatMap((type) => {
      const carried = new Set(log.filter((e) => e.type === type).flatMap((e) => pathsOf(e.data, type)));
      return pathsOf(EVENT_CATALOG[type].example, type).filter((path) => !carried.has(path));
    });
    // Of these, the example shows every field one can hold (each real change holds a few).
    const optional = (path: string) =>
      path.startsWith('device_updated.changes.') || path.startsWith('enrollee_updated.changes.') || path.startsWith('anomaly_detected.anomaly.details.');
    expect(neverCarried.filter((path) => !optional(path))).toEqual([]);
    await waitFor(() => callsTo('/all').length >= log.length, 'every event at /all', 20_000);
    await waitFor(() => FPA_EVENT_TYPES.every((t) => callsTo(`/t/${t}`).length >= log.filter((e) => e.type === t).length), 'every typed endpoint', 20_000);
    await Bun.sleep(200);

    const byId = new Map(log.map((e) => [e.id, e]));
    for (const call of rx.calls) {
      // Signed with the endpoint's own secret (the clock moved 160 s: within the tolerance).
      const body = new Webhook(secrets.get(call.path)!).verify(call.body, call.headers) as { type: string; timestamp: string; sequence: number; data: unknown };
      const event = byId.get(call.id);
      expect(event).toBeDefined();
      // A punch's events show the punch as it was when sent: a later attribution or void (this
      // run adopts a PIN and voids a punch) shows in the log read now (src/modules/punches/logged.ts).
      expect(withoutLaterPunchState(body)).toEqual(
        withoutLaterPunchState({ type: event!.type, timestamp: event!.at, sequence: event!.sequence, data: event!.data }),
      );
    }
    for (const type of FPA_EVENT_TYPES) {
      const calls = callsTo(`/t/${type}`);
      expect({ type, ids: calls.map((c) => c.id) }).toEqual({ type, ids: log.filter((e) => e.type === type).map((e) => e.id) });
    }
    expect(callsTo('/all').map((c) => c.id)).toEqual(log.map((e) => e.id));
    expect(callsTo('/pair').map((c) => byId.get(c.id)!.type)).toEqual(
      log.filter((e) => e.type === 'device_approved' || e.type === 'enrollee_deleted').map((e) => e.type),
    );
    expect(rx.calls.filter((c) => !byId.has(c.id))).toEqual([]);
  }, 60_000);
});

/** A webhook body without the fields of its punch that may change after the event (attribution, void and its reason). */
function withoutLaterPunchState(body: { type: string; timestamp: string; sequence: number; data: unknown }): unknown {
  const data = body.data as { punch?: Record<string, unknown> | null };
  if (!data.punch) return body;
  const { employee, enrollee, flags, voided, void_reason, ...fixed } = data.punch;
  return { ...body, data: { ...data, punch: fixed } };
}
