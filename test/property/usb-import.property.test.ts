/**
 * A terminal's punches arrive any way, in any order, over real HTTP: uploaded by the terminal
 * itself (ADMS), or imported from its USB file (any part of its log, a dry run first, the same
 * file again). Whatever the order, every punch it holds is stored exactly once, and a dry run
 * says what the import then adds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { formatUsbAttlogLine } from '../../src/protocol/adms';
import { SimulatedTerminal } from '../../src/simulator/terminal';
import { startTestServer, type TestServer } from '../support/harness';

let server: TestServer;
let serial = 0;

beforeAll(async () => {
  server = await startTestServer({ ADMS_AUTO_APPROVE: true });
});
afterAll(async () => {
  await server.close();
});

/** One punch of the terminal's log: a PIN and one of few seconds of yesterday (UTC, the terminal's zone here), so steps overlap. */
const punch = fc.record({ pin: fc.constantFrom('11', '12', '13'), second: fc.integer({ min: 0, max: 20 }) });
/** Sent by the terminal itself, or in a USB file (with the machine number of the terminal's own). */
const step = fc.record({ how: fc.constantFrom('upload', 'file'), punches: fc.array(punch, { minLength: 1, maxLength: 8 }) });

const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const localTime = (second: number) => `${day} 08:${String(Math.floor(second / 60)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}`;

async function importFile(sn: string, text: string, dryRun: boolean): Promise<{ imported: number }> {
  const response = await fetch(`${server.admin.base}/devices/${sn}/punches/import/${dryRun ? '?dry_run=true' : ''}`, {
    method: 'POST',
    headers: server.admin.headers,
    body: text,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { imported: number };
}

async function storedOf(sn: string): Promise<string[]> {
  const page = await server.admin.get(`/punches/?device=${sn}&limit=1000`);
  return (page.body.results as { device_pin: string; local_time: string }[]).map((p) => `${p.device_pin} ${p.local_time}`).sort();
}

describe('a terminal’s punches, uploaded or imported from its USB file in any order', () => {
  test('each is stored exactly once, and each dry run predicts its import', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        const sn = `USBPROP${String(++serial).padStart(3, '0')}`;
        const terminal = new SimulatedTerminal({ url: server.url, sn });
        await terminal.handshake();
        const sent = new Set<string>();
        for (const { how, punches } of steps) {
          if (how === 'upload') {
            expect((await terminal.punch(punches.map((p) => ({ pin: p.pin, localTime: localTime(p.second) })))).body).toStartWith('OK');
          } else {
            const file = punches
              .map((p) => formatUsbAttlogLine({ pin: p.pin, localTime: localTime(p.second), state: 0, verifyType: 1, workCode: '0', extra: [] }))
              .join('\r\n');
            const predicted = await importFile(sn, file, true);
            const done = await importFile(sn, file, false);
            expect(done.imported).toBe(predicted.imported);
          }
          for (const p of punches) sent.add(`${p.pin} ${localTime(p.second)}`);
        }
        expect(await storedOf(sn)).toEqual([...sent].sort());
      }),
      { numRuns: 25 },
    );
  });
});
