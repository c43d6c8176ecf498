/**
 * The due read of polls (polls.ts `DUE_SQL`) stays an index read per terminal: the inventory
 * check by the supersede index, the commands by the queue index, whatever the queue holds; so
 * are a template's check for its user record queued behind it and a write's for a delete before it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../../src/app/create';
import { DUE_SQL } from '../../../src/modules/commands/polls';
import { silentLogger } from '../../../src/platform/log';
import { tempDir, testSettings } from '../../support/harness';
import { queryPlan } from '../../support/query-plan';

const tmp = tempDir('fpa-due-read-');
let fpa: FingerprintAttendance;

beforeAll(async () => {
  fpa = await createFingerprintAttendance({ settings: testSettings(tmp.dir), env: {}, logger: silentLogger, startJobs: false });
});
afterAll(async () => {
  await fpa.close();
  tmp.cleanup();
});

describe('the due read of polls', () => {
  test('reads each terminal’s inventory query and its commands by index, never a whole table', async () => {
    const devices = JSON.stringify([
      ['dev-a', 0],
      ['dev-b', 1],
    ]);
    const plan = await queryPlan(fpa.db.filePath, DUE_SQL, [Date.now(), 4, devices]);
    // The polls' own list (json_each, and `asked` made of it) is scanned; every table is searched.
    const reads = plan.filter((d) => /^(SCAN|SEARCH) /.test(d) && !/^SCAN (json_each|asked)\b/.test(d));
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const read of reads) expect(read).toMatch(/^SEARCH (fpa_device_commands|c|q|u|d) USING (INTEGER PRIMARY KEY|INDEX fpa_commands_(supersede|queue)) /);
    expect(plan.some((d) => /USING INDEX fpa_commands_supersede /.test(d))).toBe(true);
    expect(plan.some((d) => /USING (COVERING )?INDEX fpa_commands_queue /.test(d))).toBe(true);
    // A template's check for its user record queued behind it: the supersede index too.
    expect(plan.some((d) => /^SEARCH u USING INDEX fpa_commands_supersede /.test(d))).toBe(true);
    // A write's check for an unfinished delete queued before it (its user's, its part's): the same index.
    expect(plan.some((d) => /^SEARCH d USING INDEX fpa_commands_supersede /.test(d))).toBe(true);
  });
});
