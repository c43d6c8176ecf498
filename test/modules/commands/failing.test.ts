/**
 * commands/open.ts failingCommands on a real database: which failures stand, and which are left
 * to other diagnostics; deletes refused and still retried among them; its query read by index.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../../src/app/create';
import { deviceCommands } from '../../../src/app/schema';
import { type CommandKind, failingCommands } from '../../../src/modules/commands';
import { failingSql } from '../../../src/modules/commands/open';
import { silentLogger } from '../../../src/platform/log';
import { tempDir, testSettings } from '../../support/harness';
import { queryPlan } from '../../support/query-plan';

const tmp = tempDir('fpa-failing-');
let fpa: FingerprintAttendance;
const NOW = Date.parse('2026-11-28T10:00:00Z');

beforeAll(async () => {
  fpa = await createFingerprintAttendance({ settings: testSettings(tmp.dir), env: {}, logger: silentLogger, startJobs: false });
});
afterAll(async () => {
  await fpa.close();
  tmp.cleanup();
});

function failed(deviceId: string, kind: CommandKind, returnCode: number | null, reason: string) {
  return {
    deviceId,
    kind,
    payload: { pin: '1' },
    status: 'failed' as const,
    createdAt: NOW - 60_000,
    notBefore: NOW - 60_000,
    expiresAt: NOW + 86_400_000,
    completedAt: NOW - 1_000,
    returnCode,
    result: { reason },
  };
}

describe('failing commands', () => {
  test('a template upload that got no answer stands; one refused with a code another diagnostic says is left to it', async () => {
    await fpa.db.write(({ tx }) =>
      tx
        .insert(deviceCommands)
        .values([failed('dev-mute', 'update_template', null, 'no result from the terminal'), failed('dev-full', 'update_template', -1001, 'full')]),
    );
    const found = await failingCommands(fpa.db.orm, NOW - 86_400_000, [{ kind: 'update_template', returnCodes: [-30, -1001] }]);
    expect(found.map((f) => f.deviceId)).toEqual(['dev-mute']);
  });

  test('a delete refused before the times were kept (an upgrade) stands from its latest send; one not answered yet does not', async () => {
    const owed = (returnCode: number | null, result: Record<string, unknown> | null) => ({
      ...failed('dev-old-refusal', 'delete_user', returnCode, ''),
      status: 'pending' as const,
      sentAt: NOW - 5_000,
      completedAt: null,
      result,
    });
    await fpa.db.write(({ tx }) => tx.insert(deviceCommands).values([owed(-3, { return: -3 }), owed(null, null)]));
    const found = (await failingCommands(fpa.db.orm, NOW - 86_400_000)).find((f) => f.deviceId === 'dev-old-refusal');
    expect(found).toMatchObject({ count: 1, retrying: 1, since: NOW - 5_000 });
    expect(found!.kinds).toEqual([expect.objectContaining({ kind: 'delete_user', returnCode: -3, lastAt: NOW - 5_000, retrying: 1 })]);
  });

  test('its query reads the commands by index, never the whole table', async () => {
    const query = new SQLiteSyncDialect().sqlToQuery(failingSql(NOW - 86_400_000, [{ kind: 'update_template', returnCodes: [-30, -1001] }]));
    const reads = (await queryPlan(fpa.db.filePath, query.sql, query.params as (string | number)[])).filter((d) => / (fpa_device_commands|c) /.test(`${d} `));
    expect(reads.length).toBeGreaterThanOrEqual(4);
    for (const read of reads) expect(read).toMatch(/^SEARCH (fpa_device_commands|c) USING INDEX fpa_commands_(queue|status) /);
  });
});
