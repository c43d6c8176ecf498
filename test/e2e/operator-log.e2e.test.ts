/**
 * The fleet's news in the server log at `info` (src/app/operator-log.ts): an operator reading
 * the log sees a terminal knocking, approved, and disabled, by its serial, with no person's data;
 * a terminal an administrator registered ahead of its arrival is said as that, once, and its
 * first contact as its first, never as a knock, an approval or a return.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../src/platform/log';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer, tempDir } from '../support/harness';
import { databaseBefore } from '../support/old-database';

const lines: string[] = [];
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({}, { logger: createLogger('info', (line) => lines.push(line)) });
});
afterAll(async () => {
  await server.close();
});

const logged = (message: string) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === message || l.message === message);

test('a terminal knocking, approved and disabled is one info line each, named by its serial', async () => {
  const terminal = new SimulatedTerminal({ url: server.url, sn: 'LOGNEWS01' });
  await terminal.handshake();
  expect((await server.admin.post('/devices/LOGNEWS01/approve/', { areas: ['hq'] })).status).toBe(200);
  expect((await server.admin.post('/devices/LOGNEWS01/disable/')).status).toBe(200);
  const knocking = logged('terminal knocking, waiting for approval');
  expect(knocking).toHaveLength(1);
  expect(knocking[0]).toMatchObject({ level: 'info', serial: 'LOGNEWS01' });
  expect(logged('terminal approved')).toEqual([expect.objectContaining({ serial: 'LOGNEWS01', by: expect.any(String) })]);
  expect(logged('terminal disabled')).toEqual([expect.objectContaining({ serial: 'LOGNEWS01' })]);
});

test('a terminal registered by an administrator is one line saying so; its first contact is its first, not a return', async () => {
  const mine = (message: string) => logged(message).filter((l) => l.serial === 'DPOT1');
  expect((await server.admin.post('/devices/', { serial_number: 'DPOT1', areas: ['north'] })).status).toBe(201);
  expect(mine('terminal registered by an administrator')).toEqual([expect.objectContaining({ level: 'info', serial: 'DPOT1', by: 'admin@example.com' })]);
  // Nothing knocked, and the approval was the registration's.
  expect(mine('terminal knocking, waiting for approval')).toEqual([]);
  expect(mine('terminal approved')).toEqual([]);
  const terminal = new SimulatedTerminal({ url: server.url, sn: 'DPOT1' });
  await terminal.handshake();
  await terminal.poll();
  expect(mine('terminal online for the first time')).toEqual([expect.objectContaining({ level: 'info', serial: 'DPOT1' })]);
  expect(mine('terminal back online')).toEqual([]);
});

// A start after a kill said nothing of the lock it took over, nor of the migrations it applied.
test('a start says which migrations it applied, and that it took over a database a killed process left locked', async () => {
  const dir = tempDir('fpa-start-news-');
  try {
    const older = await databaseBefore(dir.dir, '0037');
    await older.close();
    // The lock file a process killed while it held the database leaves behind.
    writeFileSync(
      join(dir.dir, 'fpa.db.lock'),
      JSON.stringify({ pid: 999999, apiUrl: '', consoleBase: '', token: 'x', startedAt: '2026-11-28T10:00:00.000Z', settings: {} }),
    );
    const said: string[] = [];
    const restarted = await startTestServer({}, { dir: dir.dir, logger: createLogger('info', (line) => said.push(line)) });
    await restarted.close();
    const lines = said.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => String(l.msg).startsWith('applied '))).toEqual([
      expect.objectContaining({ level: 'info', msg: expect.stringMatching(/^applied \d+ migrations: 0037_punches_to_review(, | … )\d{4}_\w+$/) }),
    ]);
    expect(lines.filter((l) => String(l.msg).includes('taken over'))).toEqual([
      expect.objectContaining({ level: 'warn', previous_pid: 999999, previous_since: '2026-11-28T10:00:00.000Z' }),
    ]);
    // A clean stop releases the lock: the next start takes nothing over and applies nothing.
    said.length = 0;
    const again = await startTestServer({}, { dir: dir.dir, logger: createLogger('info', (line) => said.push(line)) });
    await again.close();
    expect(said.filter((l) => l.includes('taken over') || l.includes('"applied '))).toEqual([]);
  } finally {
    dir.cleanup();
  }
});
