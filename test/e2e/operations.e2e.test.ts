/**
 * Events, audit and operations through the real server: the log polled and streamed, the audit
 * log, `health/`, `/metrics` (owners and admins of every area, or METRICS_TOKEN) and `/readyz`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { admsFetch } from '../support/adms';
import { adminToken, startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
const METRICS_TOKEN = 'scraper-token-that-is-long-enough';

beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN });
  await admsFetch(server.url, '/iclock/cdata?SN=OPS1&options=all');
  await server.admin.post('/devices/OPS1/approve/');
  await server.admin.post('/employees/', { id: 'OPS-E1', name: 'Ops Person' });
  const pin = (await server.admin.post('/enrollees/', { employee: 'OPS-E1' })).body.device_pin;
  const body = `${pin}\t2026-01-05 08:00:00\t0\t1\t0\t0\t0\n${pin}\t2026-01-05 17:00:00\t1\t1\t0\t0\t0\n`;
  expect((await admsFetch(server.url, '/iclock/cdata?SN=OPS1&table=ATTLOG', { method: 'POST', body })).body).toBe('OK:2');
});
afterAll(async () => {
  await server.close();
});

describe('the event log', () => {
  test('events/ lists what happened in order, resumable after a sequence and filtered by type', async () => {
    const all = await server.admin.get('/events/?after=0&limit=1000');
    expect(all.status).toBe(200);
    const types = all.body.results.map((e: { type: string }) => e.type);
    for (const expected of ['device_registered', 'device_approved', 'enrollee_created', 'punch_received']) expect(types).toContain(expected);
    const sequences = all.body.results.map((e: { sequence: number }) => e.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(all.body.last_sequence).toBe(sequences[sequences.length - 1]);
    const punches = await server.admin.get('/events/?type=punch_received');
    expect(punches.body.results).toHaveLength(2);
    expect(punches.body.results[0]).toMatchObject({
      type: 'punch_received',
      id: expect.stringMatching(/^evt_/),
      data: { punch: { device: 'OPS1' }, sender: { serial_number: 'OPS1' } },
    });
    const after = await server.admin.get(`/events/?after=${punches.body.results[0].sequence}&type=punch_received`);
    expect(after.body.results).toHaveLength(1);
    // A mistyped type is refused, naming it, rather than answering an empty feed for ever.
    const typo = await server.admin.get('/events/?type=punch_received,punch_recieved');
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ code: 'validation_error', details: { field: 'type', unknown: ['punch_recieved'] } });
    const token = await adminToken();
    const stream = await fetch(`${server.url}/api/fingerprint/v1/events/stream/?type=punch_recieved&access_token=${token}`, {
      headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' },
    });
    expect(stream.status).toBe(400);
  });

  test('a type-filtered poll moves its cursor over what it read, matched or not', async () => {
    const head = (await server.admin.get('/events/?after=0&limit=1000')).body.last_sequence as number;
    // No event of this type: the poll read the log to its head, so the next one starts there.
    expect((await server.admin.get('/events/?after=0&type=pay_period_locked')).body).toEqual({ results: [], last_sequence: head });
    expect((await server.admin.get(`/events/?after=${head}&type=pay_period_locked`)).body).toEqual({ results: [], last_sequence: head });
    // Matches that fill the page: the cursor is the last one read (more may follow).
    const punches = (await server.admin.get('/events/?after=0&type=punch_received&limit=1')).body;
    expect(punches.results).toHaveLength(1);
    expect(punches.last_sequence).toBe(punches.results[0].sequence);
    // A short page of matches: every event up to the head was read.
    expect((await server.admin.get(`/events/?after=${punches.last_sequence}&type=punch_received&limit=10`)).body.last_sequence).toBe(head);
    // A poller walking on with last_sequence sees every match once and ends at the head.
    const seen: number[] = [];
    let after = 0;
    for (let polls = 0; polls < 100; polls++) {
      const page = (await server.admin.get(`/events/?after=${after}&type=punch_received,device_approved&limit=1`)).body;
      seen.push(...page.results.map((e: { sequence: number }) => e.sequence));
      if (page.last_sequence === after) break;
      after = page.last_sequence;
    }
    const all = (await server.admin.get('/events/?after=0&type=punch_received,device_approved&limit=1000')).body.results;
    expect(seen).toEqual(all.map((e: { sequence: number }) => e.sequence));
    expect(after).toBe(head);
  });

  test('events/stream/ replays after a sequence with a type filter, then goes live', async () => {
    const token = await adminToken();
    const ws = new WebSocket(
      `${server.url.replace('http', 'ws')}/api/fingerprint/v1/events/stream/?after=0&type=punch_received,device_disabled&access_token=${token}`,
    );
    const received: { type: string }[] = [];
    ws.onmessage = (m) => received.push(JSON.parse(String(m.data)));
    await new Promise((resolve) => (ws.onopen = resolve));
    await waitFor(() => received.length >= 2);
    expect(received.map((e) => e.type)).toEqual(['punch_received', 'punch_received']);
    await server.admin.post('/devices/OPS1/disable/');
    await waitFor(() => received.length >= 3);
    expect(received[2]!.type).toBe('device_disabled');
    ws.close();
    await server.admin.post('/devices/OPS1/approve/');
  });

  test('attendance days follow the log and announce their changes', async () => {
    const days = await server.admin.get('/attendance-days/?employee=OPS-E1');
    expect(days.body.results[0]).toMatchObject({ date: '2026-01-05', status: 'present', worked_seconds: 9 * 3600 });
    const changed = await server.admin.get('/events/?type=attendance_day_changed');
    expect(changed.body.results.at(-1).data.day).toMatchObject({ employee: 'OPS-E1', date: '2026-01-05', status: 'present' });
  });
});

describe('operations', () => {
  test('audit-log/ lists who did what, newest first, filtered by action', async () => {
    const res = await server.admin.get('/audit-log/?action=device.approved');
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ actor: 'admin@example.com', action: 'device.approved', target_type: 'device', target_id: 'OPS1' });
  });

  test('health/ shows terminals, commands, webhooks, jobs and punches today', async () => {
    const res = await server.admin.get('/health/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', terminals: { online: 1, pending: 0 }, webhooks: { backlog: 0 } });
    expect(res.body.jobs.map((j: { name: string }) => j.name)).toContain('purge-retention');
    expect((await fetch(`${server.url}/api/fingerprint/v1/health/`)).status).toBe(401);
  });

  test('/metrics answers an administrator or the scraper token, in Prometheus text', async () => {
    // Refused, the answer names the scraper's token, not only an administrator's JWT.
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong' }];
    for (const headers of attempts) {
      const refused = await fetch(`${server.url}/metrics`, { headers });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('Authorization: Bearer <METRICS_TOKEN>');
    }
    expect((await server.admin.post('/jobs/check-devices/run/')).status).toBe(200);
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    // What an operator alerts on: a job's last run, the webhook backlog's age, the file's size.
    expect(text).toContain('fpa_job_last_succeeded{job="check-devices"} 1');
    expect(text).toMatch(/fpa_job_last_finished_timestamp_seconds\{job="check-devices"\} \d/);
    expect(text).not.toContain('fpa_job_last_succeeded{job="generate-absences"}');
    expect(text).toContain('fpa_webhook_oldest_pending_age_seconds 0');
    expect(Number(/fpa_database_bytes\{file="database"\} (\d+)/.exec(text)?.[1])).toBeGreaterThan(4096);
    expect(text).toContain('fpa_punches_ingested_total 2');
    expect(text).toMatch(/fpa_devices\{status="approved"\} 1/);
    // How far attendance days are behind the event log (0 once they followed the punches).
    expect(text).toMatch(/fpa_log_follower_lag_events\{follower="attendance"\} \d+/);
    for (const name of [
      'fpa_device_commands_pending',
      'fpa_webhook_messages_pending',
      'fpa_webhook_deliveries_total',
      'fpa_http_request_duration_seconds_bucket',
    ])
      expect(text).toContain(name);
    const admin = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${await adminToken()}` } });
    expect(admin.status).toBe(200);
    // The figures are the whole fleet's: not for other roles, nor for an admin of some areas.
    for (const claims of [{ role: 'admin', areas: ['north'] }, { role: 'viewer' }, { role: 'hr' }]) {
      const refused = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${await adminToken(claims)}` } });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    }
  });

  test('/readyz is 200 once migrated', async () => {
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await Bun.sleep(20);
  }
}
