/**
 * The Today board's reads of stored days (board.ts `boardDaysSql`) walk one date of the index by
 * date, which carries every column they read: today's days, and last night's (all of them while a
 * night shift runs, the open ones otherwise), never the table. The console reads the board at
 * every punch (`count=expected&limit=200`, a bench line at 10,000 people).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createFingerprintAttendance, type FingerprintAttendance } from '../../../src/app/create';
import { BOARD_DAY_COLUMNS, boardDaysSql } from '../../../src/modules/attendance/board';
import { asJsonSql } from '../../../src/platform/db/json-results';
import { silentLogger } from '../../../src/platform/log';
import { tempDir, testSettings } from '../../support/harness';
import { queryPlan } from '../../support/query-plan';

const tmp = tempDir('fpa-board-reads-');
let fpa: FingerprintAttendance;

beforeAll(async () => {
  fpa = await createFingerprintAttendance({ settings: testSettings(tmp.dir), env: {}, logger: silentLogger, startJobs: false });
});
afterAll(async () => {
  await fpa.close();
  tmp.cleanup();
});

describe('the board’s reads of a date’s days', () => {
  for (const openOnly of [false, true]) {
    test(`${openOnly ? 'the open ones' : 'all of them'}: one date of the covering index by date`, async () => {
      const plan = await queryPlan(fpa.db.filePath, asJsonSql(BOARD_DAY_COLUMNS, boardDaysSql(openOnly)), ['2026-11-28']);
      const reads = plan.filter((d) => /^(SCAN|SEARCH) /.test(d) && !/^SCAN \(subquery/.test(d));
      expect(reads).toEqual([expect.stringMatching(/^SEARCH fpa_attendance_days USING COVERING INDEX fpa_days_date_enrollee \(date=\?\)$/)]);
    });
  }
});
