/**
 * Helpers shared by the agent tests: agent clients, terminals (through the ADMS endpoints when
 * they exist, else through the device service), enrollees with consent, template bytes.
 */
import { ApiClient, type TestServer } from './harness';

export const API = '/api/fingerprint/v1';

export function agentClient(server: TestServer, key: string): ApiClient {
  return new ApiClient(`${server.url}${API}/agent`, { authorization: `Agent ${key}` });
}

export interface CreatedAgent {
  id: string;
  key: string;
  client: ApiClient;
}

export async function createAgent(server: TestServer, name: string, algorithm = '10'): Promise<CreatedAgent> {
  const res = await server.admin.post('/enrollment-agents/', { name, algorithm_version: algorithm });
  if (res.status !== 201) throw new Error(`agent creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, key: res.body.key, client: agentClient(server, res.body.key) };
}

/** Registers a terminal the way a terminal does (ADMS handshake) when that route exists. */
export async function registerTerminal(server: TestServer, serial: string): Promise<void> {
  const prefix = server.fpa.settings.ADMS_URL_PREFIX;
  const res = await fetch(`${server.url}${prefix}cdata?SN=${serial}&options=all&pushver=2.4.1`);
  await res.text();
  if (res.status === 404) await server.fpa.service.devices.registration.touch(serial);
}

/** An approved terminal in the given areas, optionally with a fingerprint algorithm. */
export async function approvedTerminal(server: TestServer, serial: string, options: { areas?: string[]; algorithm?: string } = {}): Promise<void> {
  await registerTerminal(server, serial);
  await server.fpa.service.approveDevice(serial, { by: 'admin@example.com', areas: options.areas ?? ['default'] });
  if (options.algorithm) {
    const res = await server.admin.patch(`/devices/${serial}/`, { algorithm_version: options.algorithm });
    if (res.status !== 200) throw new Error(`device update failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

/** The terminal answers the query of its users that its approval sent (it holds nobody yet). */
export async function answerInventory(server: TestServer, serial: string): Promise<void> {
  const prefix = server.fpa.settings.ADMS_URL_PREFIX;
  const polled = await (await fetch(`${server.url}${prefix}getrequest?SN=${serial}`)).text();
  const id = /C:(\d+):DATA QUERY USERINFO/.exec(polled)?.[1];
  if (!id) throw new Error(`${serial} was not asked for its users: ${polled}`);
  const answered = await fetch(`${server.url}${prefix}devicecmd?SN=${serial}`, { method: 'POST', body: `ID=${id}&Return=0&CMD=DATA\n` });
  if (answered.status !== 200) throw new Error(`devicecmd answered ${answered.status}`);
}

/** The command text a terminal's next poll receives (ADMS route when present, else the queue). */
export async function nextPoll(server: TestServer, serial: string): Promise<string> {
  const prefix = server.fpa.settings.ADMS_URL_PREFIX;
  const res = await fetch(`${server.url}${prefix}getrequest?SN=${serial}`);
  const text = await res.text();
  if (res.status !== 404) return text;
  const core = server.fpa.service;
  const device = await core.devices.registration.touch(serial);
  return (await core.terminals.renderer.takeBatch(device)) ?? '';
}

let employeeCounter = 0;

export interface Person {
  id: string;
  pin: string;
}

export async function newEnrollee(server: TestServer, options: { consent?: boolean; areas?: string[] } = {}): Promise<Person> {
  employeeCounter += 1;
  const employee = `E-${process.pid}-${employeeCounter}`;
  const e = await server.admin.post('/employees/', { id: employee, name: `Person ${employeeCounter}` });
  if (e.status !== 201) throw new Error(`employee creation failed: ${e.status}`);
  const res = await server.admin.post('/enrollees/', { employee, ...(options.areas ? { areas: options.areas } : {}) });
  if (res.status !== 201) throw new Error(`enrollee creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  if (options.consent ?? true) {
    const c = await server.admin.post(`/enrollees/${res.body.id}/consent/`, { version: 'v1', method: 'paper' });
    if (c.status !== 201) throw new Error(`consent failed: ${c.status}`);
  }
  return { id: res.body.id, pin: res.body.device_pin };
}

export async function startSession(server: TestServer, enrollee: string, agent: string, fingers: number[]) {
  const res = await server.admin.post('/enrollment-sessions/', { enrollee, agent, fingers });
  if (res.status !== 201) throw new Error(`session start failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; status: string };
}

/** Deterministic template bytes that do not look like anything else in the database. */
export function templateBytes(seed: number, size = 600): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

export const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

export function upload(finger: number, bytes: Uint8Array, algorithm = '10') {
  return { finger_index: finger, algorithm_version: algorithm, template: b64(bytes), quality: 80 };
}

/** True when `needle` occurs in `haystack` as a byte sequence. */
export function containsBytes(haystack: Uint8Array, needle: Uint8Array): boolean {
  return Buffer.from(haystack).indexOf(Buffer.from(needle)) >= 0;
}
