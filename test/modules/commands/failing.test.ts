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
import { failingWords } from '../../../src/modules/diagnostics/failing';
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

  test('template commands say which kinds they carried, and commands_failing names them: fingerprint, face, palm, finger vein, visible-light face', async () => {
    const template = (deviceId: string, kind: CommandKind, type: string | null, returnCode: number) => ({
      ...failed(deviceId, kind, returnCode, `Return=${returnCode}`),
      sentAt: NOW - 30_000,
      payload: type === null ? { pin: '1', fingerIndex: 0 } : { pin: '1', fingerIndex: 0, type },
    });
    await fpa.db.write(({ tx }) =>
      tx.insert(deviceCommands).values([
        // A fingerprint of the first releases (no type in its payload) and one of today.
        template('dev-fingers', 'update_template', null, -12),
        template('dev-fingers', 'update_template', 'fingerprint', -12),
        template('dev-faces', 'update_template', 'face', -12),
        template('dev-faces', 'update_template', 'palm', -12),
        template('dev-faces', 'delete_template', 'visible_face', -1),
        template('dev-veins', 'update_template', 'finger_vein', -12),
        { ...failed('dev-veins', 'add_user', -1, 'Return=-1'), sentAt: NOW - 30_000 },
      ]),
    );
    const found = new Map((await failingCommands(fpa.db.orm, NOW - 86_400_000)).map((f) => [f.deviceId, f]));
    const at = (ms: number) => new Date(ms).toISOString();
    const kindsOf = (device: string) => found.get(device)!.kinds.map((k) => ({ kind: k.kind, types: k.types }));

    expect(kindsOf('dev-fingers')).toEqual([{ kind: 'update_template', types: ['fingerprint'] }]);
    expect(failingWords('FINGERS', found.get('dev-fingers')!, at).message).toContain('Its answer to sending a fingerprint: Return=-12');

    expect(kindsOf('dev-faces')).toEqual(
      expect.arrayContaining([
        { kind: 'update_template', types: ['face', 'palm'] },
        { kind: 'delete_template', types: ['visible_face'] },
      ]),
    );
    const faces = failingWords('FACES', found.get('dev-faces')!, at).message;
    expect(faces).toContain('to sending a face or palm, Return=-12');
    expect(faces).toContain('deleting a visible-light face');
    expect(faces).not.toContain('fingerprint,');

    expect(kindsOf('dev-veins')).toEqual(
      expect.arrayContaining([
        { kind: 'add_user', types: [] },
        { kind: 'update_template', types: ['finger_vein'] },
      ]),
    );
    const veins = failingWords('VEINS', found.get('dev-veins')!, at).message;
    expect(veins).toContain('to sending a finger vein, Return=-12');
    expect(veins).toContain('to adding a person, Return=-1');
  });

  test('its query reads the commands by index, never the whole table', async () => {
    const query = new SQLiteSyncDialect().sqlToQuery(failingSql(NOW - 86_400_000, [{ kind: 'update_template', returnCodes: [-30, -1001] }]));
    const reads = (await queryPlan(fpa.db.filePath, query.sql, query.params as (string | number)[])).filter((d) => / (fpa_device_commands|c) /.test(`${d} `));
    expect(reads.length).toBeGreaterThanOrEqual(4);
    for (const read of reads) expect(read).toMatch(/^SEARCH (fpa_device_commands|c) USING INDEX fpa_commands_(queue|status) /);
  });
});
