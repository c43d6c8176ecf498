/**
 * Biometric templates, agent keys, webhook secrets and tokens never reach a log line, an API
 * response, a device event or the database in clear — checked end to end through every path
 * a template travels (agent upload, walk-up upload, rejection, errors), then by reading every
 * log line, every admin response and the raw bytes of the database files.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../src/platform/log';
import { answerInventory, approvedTerminal, b64, createAgent, newEnrollee, nextPoll, startSession, templateBytes, upload } from '../support/agents';
import { adminToken, startTestServer, type TestServer } from '../support/harness';

const logLines: string[] = [];
let server: TestServer;
const responses: string[] = [];

const agentTemplate = templateBytes(4242, 700);
const walkUpTemplate = templateBytes(777, 500);
const rejectedTemplate = templateBytes(99, 400);
let agentKey = '';
let webhookSecret = '';
let token = '';

async function adms(path: string, body?: string): Promise<string> {
  const res = await fetch(`${server.url}/iclock/${path}`, body === undefined ? {} : { method: 'POST', body });
  const text = await res.text();
  responses.push(text);
  return text;
}

async function adminGet(path: string): Promise<void> {
  const res = await server.admin.get(path);
  responses.push(JSON.stringify(res.body));
}

beforeAll(async () => {
  server = await startTestServer(
    { LOG_LEVEL: 'debug', DELETE_REJECTED_DEVICE_TEMPLATES: true, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true },
    { logger: createLogger('debug', (line) => logLines.push(line)) },
  );
  token = await adminToken();
});
afterAll(async () => {
  await server.close();
});

describe('secrets and templates stay secret', () => {
  test('every path a template travels', async () => {
    await approvedTerminal(server, 'PRIV0001');
    await answerInventory(server, 'PRIV0001');
    const agent = await createAgent(server, 'desk');
    agentKey = agent.key;
    const hook = await server.admin.post('/webhooks/', { url: 'http://127.0.0.1:9/hook' });
    webhookSecret = hook.body.secret;
    expect(webhookSecret).toMatch(/^whsec_/);

    // Agent path: upload, a refused upload, completion.
    const person = await newEnrollee(server);
    const session = await startSession(server, person.id, agent.id, [3]);
    const wrong = await agent.client.post(`/sessions/${session.id}/templates/`, upload(3, agentTemplate, '9'));
    responses.push(JSON.stringify(wrong.body));
    expect(wrong.status).toBe(422);
    const notAString = await agent.client.post(`/sessions/${session.id}/templates/`, { ...upload(3, agentTemplate), finger_index: b64(agentTemplate) });
    responses.push(JSON.stringify(notAString.body));
    expect(notAString.status).toBe(400);
    expect((await agent.client.post(`/sessions/${session.id}/templates/`, upload(3, agentTemplate))).status).toBe(200);
    const done = await agent.client.post(`/sessions/${session.id}/complete/`);
    responses.push(JSON.stringify(done.body));
    expect(done.status).toBe(200);
    // The terminal is the one place the template goes in clear: its own command channel.
    expect(await nextPoll(server, 'PRIV0001')).toContain(b64(agentTemplate));

    // Walk-up path: an accepted upload and a rejected one (unknown PIN).
    const walker = await newEnrollee(server);
    const accepted = await adms(
      'cdata?SN=PRIV0001&table=OPERLOG&Stamp=1',
      `FP PIN=${walker.pin}\tFID=1\tSize=${b64(walkUpTemplate).length}\tValid=1\tTMP=${b64(walkUpTemplate)}\n`,
    );
    expect(accepted).toBe('OK:1');
    const rejected = await adms(
      'cdata?SN=PRIV0001&table=OPERLOG&Stamp=2',
      `FP PIN=99999\tFID=2\tSize=${b64(rejectedTemplate).length}\tValid=1\tTMP=${b64(rejectedTemplate)}\n`,
    );
    expect(rejected).toBe('OK:1');
    // A broken template line in an attendance table.
    await adms('cdata?SN=PRIV0001&table=ATTLOG&Stamp=3', `${b64(rejectedTemplate)}\tnot a time\n`);

    // Everything an administrator can read.
    for (const path of [
      '/devices/',
      '/devices/PRIV0001/',
      '/devices/PRIV0001/commands/',
      `/enrollees/${person.id}/`,
      `/enrollees/${person.id}/templates/`,
      `/enrollees/${walker.id}/templates/`,
      '/enrollment-agents/',
      `/enrollment-sessions/${session.id}/`,
      '/webhooks/',
      '/jobs/',
      '/punches/',
    ]) {
      await adminGet(path);
    }
  });

  test('no log line, response or device event carries a template, key, secret or token', async () => {
    const secrets: Record<string, string> = {
      'agent template (base64)': b64(agentTemplate),
      'walk-up template (base64)': b64(walkUpTemplate),
      'rejected template (base64)': b64(rejectedTemplate),
      'rejected template (start)': b64(rejectedTemplate).slice(0, 24),
      'agent key': agentKey,
      'webhook secret': webhookSecret,
      'admin token': token,
      'encryption key': String(server.fpa.settings.TEMPLATE_ENCRYPTION_KEYS[0]),
    };
    const events = await server.fpa.db.client.execute('select message, details from fpa_device_events');
    const audit = await server.fpa.db.client.execute('select details from fpa_audit_log');
    const places: Record<string, string> = {
      logs: logLines.join('\n'),
      // The terminal's own poll answer legitimately carries its templates; leave it out.
      responses: responses.filter((r) => !r.includes('DATA UPDATE FINGERTMP')).join('\n'),
      'device events': events.rows.map((r) => `${r.message} ${r.details}`).join('\n'),
      audit: audit.rows.map((r) => String(r.details)).join('\n'),
    };
    expect(logLines.length).toBeGreaterThan(0);
    for (const [place, text] of Object.entries(places)) {
      for (const [what, value] of Object.entries(secrets)) {
        expect({ place, what, found: value.length > 0 && text.includes(value) }).toEqual({ place, what, found: false });
      }
    }
  });

  test('the database files never hold a template in clear, as bytes or as base64', async () => {
    await server.fpa.db.client.execute('PRAGMA wal_checkpoint(PASSIVE)');
    const files = readdirSync(server.dir).filter((f) => f.startsWith('fpa.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = readFileSync(join(server.dir, file));
      for (const template of [agentTemplate, walkUpTemplate, rejectedTemplate]) {
        // Any 32-byte window of the template, raw or base64-encoded.
        const window = Buffer.from(template.slice(100, 132));
        expect({ file, raw: bytes.indexOf(window) >= 0 }).toEqual({ file, raw: false });
        expect({ file, base64: bytes.indexOf(Buffer.from(b64(template).slice(40, 80))) >= 0 }).toEqual({ file, base64: false });
      }
      expect({ file, agentKey: bytes.indexOf(Buffer.from(agentKey)) >= 0 }).toEqual({ file, agentKey: false });
    }
  });
});
