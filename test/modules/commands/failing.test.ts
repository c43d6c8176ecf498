/** commands/open.ts failingCommands on a real database: which failures stand, and which are left to other diagnostics. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../../src/app/create';
import { deviceCommands } from '../../../src/app/schema';
import { failingCommands } from '../../../src/modules/commands';
import { silentLogger } from '../../../src/platform/log';
import { tempDir, testSettings } from '../../support/harness';

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

function failed(deviceId: string, kind: string, returnCode: number | null, reason: string) {
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
});
