/**
 * Punch sources for the punches-out tests: an approved terminal and ATTLOG lines, uploaded
 * through the real ADMS endpoint or handed straight to the ingest call that endpoint makes.
 */
import type { DeviceRow } from '../../src/modules/devices/tables';
import type { IncomingPunch } from '../../src/modules/punches/service';
import type { TestServer } from './harness';

export async function approvedDevice(server: TestServer, serial: string): Promise<DeviceRow> {
  await server.fpa.service.devices.registration.touch(serial);
  return server.fpa.service.approveDevice(serial, { by: 'admin@example.com' });
}

/** `count` punches of one PIN, one minute apart from `start` (UTC, offset 0). */
export function punchLines(pin: string, count: number, start = Date.UTC(2025, 0, 6, 8, 0, 0)): IncomingPunch[] {
  return Array.from({ length: count }, (_, i) => {
    const at = start + i * 60_000;
    const localTime = new Date(at).toISOString().slice(0, 19).replace('T', ' ');
    return {
      pin,
      localTime,
      punchedAt: at,
      utcOffsetMinutes: 0,
      state: i % 2,
      verifyType: 1,
      workCode: '0',
      extra: [],
      raw: `${pin}\t${localTime}\t${i % 2}\t1\t0\t0\t0`,
    };
  });
}

export function ingest(server: TestServer, device: DeviceRow, lines: IncomingPunch[]) {
  return server.fpa.service.punches.ingest(device, lines);
}

/** Uploads the lines as a terminal does: `POST {adms}cdata?SN=…&table=ATTLOG`; answers its reply. */
export async function postAttlog(server: TestServer, serial: string, lines: IncomingPunch[]): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}${server.fpa.settings.ADMS_URL_PREFIX}cdata?SN=${serial}&table=ATTLOG&Stamp=9999`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: lines.map((l) => l.raw).join('\n') + '\n',
  });
  return { status: response.status, text: await response.text() };
}
