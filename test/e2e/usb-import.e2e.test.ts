/**
 * A terminal's USB attendance file (`1_attlog.dat`) through the real server: a terminal whose
 * punches never all arrived (it hangs where the network is poor); its file is checked (dry run,
 * nothing stored), then imported. Each punch is stored once: a line the terminal already sent,
 * a line repeated in the file, the same file again, and the terminal sending the same punches
 * itself later are all duplicates. The people's punches are theirs by PIN on that terminal; a PIN
 * nobody holds is kept as the terminal's own user's. Refusals: roles, areas, a terminal waiting
 * for approval, the binary file of older terminals.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { formatUsbAttlogLine } from '../../src/protocol/adms';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { usbAttlogFile } from '../../src/simulator/usb-file';
import { type ApiClient, clientAs, startTestServer, type TestServer } from '../support/harness';
import { drain } from '../support/terminals';

const SN = 'USBFILE01';
let server: TestServer;
let terminal: SimulatedTerminal;
const pins: Record<string, string> = {};

/** POSTs a file as the console does: its bytes, as `application/octet-stream`. */
async function postFile(client: ApiClient, path: string, bytes: string | Uint8Array<ArrayBuffer>) {
  const response = await fetch(`${client.base}${path}`, {
    method: 'POST',
    headers: { ...client.headers, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const importFile = (text: string, dryRun = false, client: ApiClient = server.admin) =>
  postFile(client, `/devices/${SN}/punches/import/${dryRun ? '?dry_run=true' : ''}`, text);

async function punchesOf(serial: string): Promise<{ local_time: string; device_pin: string; employee: string | null; flags: string[]; source: string }[]> {
  const page = await server.admin.get(`/punches/?device=${serial}&limit=1000`);
  expect(page.status).toBe(200);
  return page.body.results;
}

const line = (pin: string, localTime: string, state = 0) => formatUsbAttlogLine({ pin, localTime, state, verifyType: 1, workCode: '0', extra: [] });

/** Yesterday's local date (UTC, the server's and the terminal's zone here). */
const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  server = await startTestServer({ RETENTION_PUNCHES_DAYS: 365 });
  terminal = new SimulatedTerminal({ url: server.url, sn: SN });
  await terminal.handshake();
  expect((await server.admin.post(`/devices/${SN}/approve/`, { areas: ['default'] })).status).toBe(200);
  await drain(terminal);
  for (const key of ['ada', 'ben']) {
    expect((await server.admin.post('/employees/', { id: `E-${key}`, name: key })).status).toBe(201);
    const created = await server.admin.post('/enrollees/', { employee: `E-${key}`, areas: ['default'] });
    expect(created.status).toBe(201);
    pins[key] = created.body.device_pin;
  }
  await drain(terminal);
});
afterAll(async () => {
  await server.close();
});

describe('a terminal’s USB attendance file', () => {
  test('checked, imported, imported again, then sent by the terminal itself: every punch stored once', async () => {
    // The terminal sent Ada's morning punch itself.
    expect((await terminal.punch([{ pin: pins.ada!, at: new Date(`${day}T08:00:00Z`) }])).body).toStartWith('OK');
    const sent = await punchesOf(SN);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.local_time).toBe(`${day} 08:00:00`);

    const file = [
      line(pins.ada!, `${day} 08:00:00`), // already sent by the terminal
      line(pins.ada!, `${day} 17:02:00`, 1),
      line(pins.ben!, `${day} 08:05:00`),
      line(pins.ben!, `${day} 17:00:00`, 1),
      line(pins.ben!, `${day} 17:00:00`, 1), // the same punch twice in the file
      line('999', `${day} 09:00:00`), // nobody's PIN: the terminal's own user
      line(pins.ada!, '2023-01-04 08:00:00'), // older than the retention of 365 days
      'garbage that is no punch',
    ].join('\r\n');

    const checked = await importFile(file, true);
    expect(checked.status).toBe(200);
    expect(checked.body).toEqual({
      dry_run: true,
      lines: 7,
      imported: 4,
      duplicates: 2,
      other_terminal: 0,
      too_old: 1,
      outside_areas: 0,
      unknown_pins: ['999'],
      unknown_pin_count: 1,
      from: '2023-01-04',
      to: day,
      errors: [{ line: 8, message: expect.stringContaining('TAB-separated') }],
      error_count: 1,
    });
    expect(await punchesOf(SN)).toHaveLength(1); // a dry run stores nothing

    const imported = await importFile(file);
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ dry_run: false, imported: 4, duplicates: 2, too_old: 1, unknown_pin_count: 1, error_count: 1 });
    const stored = await punchesOf(SN);
    expect(stored).toHaveLength(5);
    const ben = stored.filter((p) => p.employee === 'E-ben');
    expect(ben.map((p) => p.local_time).sort()).toEqual([`${day} 08:05:00`, `${day} 17:00:00`]);
    expect(ben.every((p) => p.source === 'device' && p.flags.includes('usb_file'))).toBe(true);
    const nobody = stored.find((p) => p.device_pin === '999')!;
    expect(nobody.employee).toBeNull();
    expect(nobody.flags).toEqual(expect.arrayContaining(['usb_file', 'unknown_pin']));
    // The one the terminal sent keeps its own record: no flag of the file.
    expect(stored.find((p) => p.local_time === `${day} 08:00:00`)!.flags).not.toContain('usb_file');

    // The same file again: nothing new.
    expect((await importFile(file)).body).toMatchObject({ imported: 0, duplicates: 6, too_old: 1 });
    // The terminal, back on the network, sends Ben's evening punch itself: a duplicate, answered OK.
    expect((await terminal.punch([{ pin: pins.ben!, at: new Date(`${day}T17:00:00Z`) }])).body).toStartWith('OK');
    expect(await punchesOf(SN)).toHaveLength(5);
  });

  test('the import names who brought the punches in: in their events and in the audit log', async () => {
    const events = await server.admin.get('/events/?type=punch_received&limit=100');
    expect(events.status).toBe(200);
    const fromFile = events.body.results.filter((e: { data: { punch: { flags: string[] } | null } }) => e.data.punch?.flags.includes('usb_file'));
    expect(fromFile.length).toBe(4);
    for (const e of fromFile) expect(e.data).toMatchObject({ sender: { serial_number: SN }, by: expect.any(String) });
    const audit = await server.admin.get('/audit-log/?action=device.punches_imported');
    expect(audit.status).toBe(200);
    // Once: importing the file again added nothing, and changed nothing.
    expect(audit.body.results).toHaveLength(1);
    expect(audit.body.results[0]).toMatchObject({ target_type: 'device', target_id: SN, details: { imported: 4, duplicates: 2, too_old: 1, unknown_pins: 1 } });
  });

  test('another terminal’s file, chosen by mistake: its people’s punches are not stored twice', async () => {
    const other = new SimulatedTerminal({ url: server.url, sn: 'USBFILE02' });
    await other.handshake();
    expect((await server.admin.post('/devices/USBFILE02/approve/', { areas: ['default'] })).status).toBe(200);
    await drain(other);
    // Ada punched at the other terminal, which sent it; its file is then imported here.
    expect((await other.punch([{ pin: pins.ada!, at: new Date(`${day}T12:30:00Z`) }])).body).toStartWith('OK');
    const file = usbAttlogFile(other);
    const checked = await importFile(file, true);
    expect(checked.body).toMatchObject({ lines: 1, imported: 0, duplicates: 0, other_terminal: 1 });
    expect((await importFile(file)).body).toMatchObject({ imported: 0, other_terminal: 1 });
    expect((await punchesOf(SN)).some((p) => p.local_time === `${day} 12:30:00`)).toBe(false);
  });

  test('HR of some areas learns nothing of the punches of people outside them: counted, not told apart', async () => {
    expect((await server.admin.post('/areas/', { name: 'north' })).status).toBe(201);
    expect((await server.admin.patch(`/devices/${SN}/`, { areas: ['default', 'north'] })).status).toBe(200);
    expect((await server.admin.post('/employees/', { id: 'E-cy', name: 'cy' })).status).toBe(201);
    const cy = (await server.admin.post('/enrollees/', { employee: 'E-cy', areas: ['north'] })).body as { device_pin: string };
    await drain(terminal);
    const northHr = await clientAs(server, 'hr', ['north'], 'hr-north@example.com');
    // Ada (default) punched at 08:00 (stored) and at 13:00 (not): to north's HR both are only "outside".
    const file = [line(pins.ada!, `${day} 08:00:00`), line(pins.ada!, `${day} 13:00:00`), line(cy.device_pin, `${day} 08:30:00`)].join('\n');
    const checked = await importFile(file, true, northHr);
    expect(checked.body).toMatchObject({ lines: 3, imported: 1, duplicates: 0, other_terminal: 0, outside_areas: 2 });
    // The whole company's HR sees them apart.
    expect((await importFile(file, true)).body).toMatchObject({ imported: 2, duplicates: 1, outside_areas: 0 });
    // Imported by north's HR, the outside lines are not stored: a caller adds no punches for people it may not see.
    expect((await importFile(file, false, northHr)).body).toMatchObject({ imported: 1, outside_areas: 2 });
    expect((await punchesOf(SN)).filter((p) => p.local_time === `${day} 13:00:00`)).toHaveLength(0);
    // The whole company's HR brings them in.
    expect((await importFile(file)).body).toMatchObject({ imported: 1, duplicates: 2 });
    expect((await punchesOf(SN)).filter((p) => p.local_time === `${day} 13:00:00`)).toHaveLength(1);
  });

  test('a file of garbage: every bad line counted, the first 100 listed, nothing stored', async () => {
    const garbage = Array.from({ length: 250 }, (_, i) => `not a punch ${i}`).join('\n');
    const answer = await importFile(garbage);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ lines: 0, imported: 0, error_count: 250 });
    expect(answer.body.errors).toHaveLength(100);
    expect(answer.body.errors[99].line).toBe(100);
  });

  test('an empty file (0 bytes, or only blank lines) is refused in words, not as a body of the wrong shape', async () => {
    for (const empty of ['', '\r\n\r\n']) {
      const answer = await importFile(empty, true);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'validation_error', details: { field: 'body' } });
      expect(answer.body.error.message).toStartWith('the file is empty');
    }
  });

  test('the cap is 10 MiB, answered with the error body; a request without any credential is refused', async () => {
    const huge = 'x'.repeat(10 * 1024 * 1024 + 10);
    const over = await postFile(server.admin, `/devices/${SN}/punches/import/?dry_run=true`, huge);
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('payload_too_large');
    // Far over it (Bun's own cap was just above it: a bare 413, no body, the connection closed).
    const far = await postFile(server.admin, `/devices/${SN}/punches/import/?dry_run=true`, 'x'.repeat(12 * 1024 * 1024));
    expect(far.status).toBe(413);
    expect(far.body.error).toMatchObject({ code: 'payload_too_large', details: { max_bytes: 10 * 1024 * 1024 } });
    const anonymous = await fetch(`${server.admin.base}/devices/${SN}/punches/import/`, { method: 'POST', body: huge });
    expect(anonymous.status).toBe(401);
  });

  test('a wrong credential, or a role that may not import, is refused before a byte of the file is read', async () => {
    // A body that never ends: only an answer given without reading it can arrive.
    const endless = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`${line(pins.ada!, `${day} 12:00:00`)}\n`));
        },
      });
    const viewer = await clientAs(server, 'viewer', undefined, 'viewer-stream@example.com');
    for (const [headers, status] of [
      [{ authorization: 'Bearer not-a-token' }, 401],
      [{ cookie: 'fpa_session=nothing' }, 401],
      [viewer.headers, 403],
    ] as const) {
      const answer = await fetch(`${server.admin.base}/devices/${SN}/punches/import/?dry_run=true`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/octet-stream' },
        body: endless(),
        signal: AbortSignal.timeout(5_000),
      });
      expect(answer.status).toBe(status);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(status === 401 ? 'unauthorized' : 'forbidden');
    }
  });

  test('refused: roles other than HR (an installer would learn who punched when), callers of other areas, a terminal not approved, the binary file', async () => {
    const text = line(pins.ada!, `${day} 12:00:00`);
    for (const role of ['viewer', 'manager', 'installer']) {
      const refused = await importFile(text, true, await clientAs(server, role));
      expect(refused.status).toBe(403);
    }
    expect((await importFile(text, true, await clientAs(server, 'hr'))).status).toBe(200);
    // HR of another area does not see the terminal.
    expect((await server.admin.post('/areas/', { name: 'south' })).status).toBe(201);
    const elsewhere = await importFile(text, true, await clientAs(server, 'hr', ['south'], 'hr-south@example.com'));
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('not_found');

    const waiting = new SimulatedTerminal({ url: server.url, sn: 'USBWAIT01' });
    await waiting.handshake();
    const pending = await postFile(server.admin, '/devices/USBWAIT01/punches/import/', text);
    expect(pending.status).toBe(409);
    expect(pending.body.error.message).toContain('approve the terminal first');

    // The binary attlog.dat of older terminals: refused as a whole, with what can be read instead.
    const binary = await postFile(server.admin, `/devices/${SN}/punches/import/`, new Uint8Array([1, 0, 0, 0, 0xd2, 0x04, 0x1f, 0x8b, 0, 0]));
    expect(binary.status).toBe(400);
    expect(binary.body.error.message).toContain('binary attendance file');
    expect((await postFile(server.admin, `/devices/${SN}/punches/import/`, line(pins.ada!, `${day} 08:00:00`))).body).toMatchObject({ imported: 0 });
  });
});
