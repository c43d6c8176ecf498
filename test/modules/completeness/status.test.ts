/**
 * The status of a terminal's date (completeness/status.ts) as README "Completeness" states it,
 * as a rule table: what happened (an agreement, a gap, a re-upload that closed it fully, partly,
 * not at all), each alone, with the terminal's log cleared after it, and with a clear before it.
 * A re-upload's count for a date never hides a gap the counts still know of, nor one a clear
 * took away with the log. Then where a gap may lie: only on the dates its records may bear (from
 * its agreement, or any date when the count never agreed, less what re-uploads proved), `gap`
 * when that is one date, `possible_gap` when several; never before the terminal was known.
 */
import { describe, expect, test } from 'bun:test';
import { type CountsByDate, type DayFacts, type DayStatus, dayStatus, type GapWindow } from '../../../src/modules/completeness/status';

const DATE = '2026-11-28';
const SINCE = '2026-11-01';

/** What the counts say after a history, and what is known of DATE (the re-upload range covered only it, from the agreement on). */
type Seen = { agreed: string | null; gapOpen: boolean; reuploaded: number | null; stored: number };

// The terminal agreed on DATE with 1 stored, then counted 3 while 2 are stored (1 missing).
const HISTORIES: Record<string, { seen: Seen; alone: DayStatus }> = {
  // Its count agreed with the stored punches.
  agreement: { seen: { agreed: DATE, gapOpen: false, reuploaded: null, stored: 2 }, alone: 'complete' },
  // Its count ran ahead, the re-upload failed or PUNCH_RECOVERY is off.
  gap: { seen: { agreed: DATE, gapOpen: true, reuploaded: null, stored: 2 }, alone: 'gap' },
  // It re-sent 3 records of DATE, the missing one stored: the agreement taken again.
  'a re-upload that closed it fully': { seen: { agreed: DATE, gapOpen: false, reuploaded: 3, stored: 3 }, alone: 'complete' },
  // It had 2 missing and re-sent one of them besides the 2 stored: 1 still missing, the gap open.
  'a re-upload that closed it partly': { seen: { agreed: DATE, gapOpen: true, reuploaded: 3, stored: 3 }, alone: 'gap' },
  // It re-sent its 2 stored records only: nothing new, the gap open.
  'a re-upload that closed it not at all': { seen: { agreed: DATE, gapOpen: true, reuploaded: 2, stored: 2 }, alone: 'gap' },
  // It re-sent nothing for the date at all.
  'a re-upload that re-sent nothing': { seen: { agreed: DATE, gapOpen: true, reuploaded: 0, stored: 2 }, alone: 'gap' },
};

/** DATE's facts: a re-upload's count covers the part of DATE from the agreement on, the rest vouched for by the agreement. */
const facts = (seen: Seen, date = DATE, whole = false): DayFacts => ({
  date,
  stored: seen.stored,
  recovering: false,
  reupload: seen.reuploaded === null ? null : { count: seen.reuploaded, whole },
});
/** The window of a gap open since an agreement on `from` (any date: null), a re-upload having proved `proven`. */
const windowOf = (from: string | null, to = DATE, proven: { from: string; to: string }[] = []): GapWindow => ({ from, to, proven });
/** The window of a history's gap: its re-upload, if any, covered DATE from the agreement on. */
const gapOf = (seen: Seen, to = DATE): GapWindow | null =>
  seen.gapOpen ? windowOf(seen.agreed, to, seen.reuploaded === null ? [] : [{ from: DATE, to: DATE }]) : null;
const counts = (over: Partial<CountsByDate>): CountsByDate => ({ since: SINCE, today: DATE, agreed: null, gap: null, cleared: null, ...over });

describe('the status of a date: each history alone', () => {
  for (const [name, { seen, alone }] of Object.entries(HISTORIES)) {
    test(`${name} → ${alone}`, () => {
      expect(dayStatus(facts(seen), counts({ agreed: seen.agreed, gap: gapOf(seen) })).status).toBe(alone);
    });
  }

  test('a date before the last agreement is complete by the count, even with a gap open since', () => {
    expect(
      dayStatus(facts({ agreed: null, gapOpen: false, reuploaded: null, stored: 4 }, '2026-11-27'), counts({ agreed: DATE, gap: windowOf(DATE) })),
    ).toEqual({
      status: 'complete',
      byCount: 'agreed',
    });
  });

  test('a re-upload that re-sent more than is stored is a gap, whatever the counts say', () => {
    expect(dayStatus(facts({ agreed: DATE, gapOpen: false, reuploaded: 3, stored: 2 }), counts({ agreed: DATE })).status).toBe('gap');
  });

  test('a re-upload under way: recovering; before the terminal was known or after an open gap’s today: unknown', () => {
    expect(dayStatus({ ...facts(HISTORIES.gap!.seen), recovering: true }, counts({ agreed: DATE, gap: windowOf(DATE) })).status).toBe('recovering');
    expect(dayStatus(facts(HISTORIES.agreement!.seen, '2026-10-31'), counts({ agreed: DATE })).status).toBe('unknown');
    expect(dayStatus(facts(HISTORIES.gap!.seen, '2026-11-29'), counts({ agreed: DATE, gap: windowOf(DATE) })).status).toBe('unknown');
  });
});

describe('the status of a date: the log cleared after each history', () => {
  // The count fell to 0 on DATE and agreed again: the agreement and the gap of before the clear are kept.
  for (const [name, { seen, alone }] of Object.entries(HISTORIES)) {
    test(`${name}, then a clear → ${alone}`, () => {
      const after = counts({ agreed: DATE, cleared: { date: DATE, agreed: seen.agreed, gap: gapOf(seen) } });
      expect(dayStatus(facts(seen), after).status).toBe(alone);
    });
    test(`${name}, then a clear and a later gap → gap`, () => {
      const after = counts({ agreed: DATE, gap: windowOf(DATE), cleared: { date: DATE, agreed: seen.agreed, gap: gapOf(seen) } });
      expect(dayStatus(facts(seen), after).status).toBe('gap');
    });
  }

  test('a complete by the count before the clear rests on the agreement of then', () => {
    const after = counts({ agreed: DATE, cleared: { date: DATE, agreed: DATE, gap: null } });
    expect(dayStatus(facts(HISTORIES.agreement!.seen), after)).toEqual({ status: 'complete', byCount: 'agreed_before_clear' });
  });

  test('dates of a gap open at the clear may hold its loss from the agreement of then to the clear, not before, not after', () => {
    const after = counts({ agreed: DATE, cleared: { date: '2026-11-26', agreed: '2026-11-24', gap: windowOf('2026-11-24', '2026-11-26') } });
    const on = (date: string) => dayStatus(facts({ agreed: null, gapOpen: false, reuploaded: 1, stored: 1 }, date, true), after).status;
    expect([on('2026-11-23'), on('2026-11-24'), on('2026-11-26'), on('2026-11-27')]).toEqual(['complete', 'possible_gap', 'possible_gap', 'complete']);
  });
});

describe('the status of a date: the log cleared before each history', () => {
  for (const [name, { seen, alone }] of Object.entries(HISTORIES)) {
    test(`a clear on an earlier date, then ${name} → ${alone}`, () => {
      const after = counts({ agreed: seen.agreed, gap: gapOf(seen), cleared: { date: '2026-11-20', agreed: '2026-11-19', gap: null } });
      expect(dayStatus(facts(seen), after).status).toBe(alone);
    });
    test(`a clear earlier on the same date, then ${name} → ${alone}`, () => {
      const after = counts({ agreed: seen.agreed, gap: gapOf(seen), cleared: { date: DATE, agreed: DATE, gap: null } });
      expect(dayStatus(facts(seen), after).status).toBe(alone);
    });
  }

  test('a clear that lost a gap, then a re-upload that closed the later gap fully: the lost punches still make it a gap', () => {
    const after = counts({ agreed: DATE, cleared: { date: DATE, agreed: DATE, gap: windowOf(DATE) } });
    expect(dayStatus(facts({ agreed: DATE, gapOpen: false, reuploaded: 3, stored: 3 }), after).status).toBe('gap');
  });
});

describe('where a gap may lie', () => {
  const day = (date: string, reupload: DayFacts['reupload'] = null, stored = 0): DayFacts => ({ date, stored, recovering: false, reupload });
  const statuses = (c: CountsByDate, dates: string[], reupload: (date: string) => DayFacts['reupload'] = () => null) =>
    dates.map((d) => dayStatus(day(d, reupload(d)), c).status);

  test('a count that never agreed: only the dates since the terminal was known may say it, and which one is not known', () => {
    // Pre-registered on DATE, its count ahead and its re-upload refused: the records may be of
    // DATE, or a history older than the terminal is known here.
    const c = counts({ since: DATE, gap: windowOf(null) });
    expect(statuses(c, ['2025-11-28', '2026-10-15', '2026-11-27', DATE])).toEqual(['unknown', 'unknown', 'unknown', 'possible_gap']);
  });

  test('a count that never agreed, a re-upload proving the last month: its dates complete, the loss older than them', () => {
    // Records of 09-01/02 missing; the re-upload covered 10-28 from noon to DATE, and re-sent DATE's one record.
    const c = counts({ since: DATE, gap: windowOf(null, DATE, [{ from: '2026-10-29', to: DATE }]) });
    const reupload = (d: string) => (d < '2026-10-28' ? null : { count: 0, whole: d !== '2026-10-28' });
    expect(statuses(c, ['2026-09-01', '2026-10-15', '2026-10-28', '2026-10-29', DATE], reupload)).toEqual([
      'unknown',
      'unknown',
      'unknown',
      'complete',
      'complete',
    ]);
    expect(dayStatus(day(DATE, { count: 1, whole: true }, 1), c).status).toBe('complete');
    // Known since September: the dates before the re-upload may hold them.
    const known = counts({ since: '2026-08-01', gap: c.gap });
    expect(statuses(known, ['2026-09-01', '2026-10-15', '2026-10-28', DATE], reupload)).toEqual(['possible_gap', 'possible_gap', 'possible_gap', 'complete']);
  });

  test('a gap since an agreement days ago: each date possible; a re-upload proving all but one leaves that one a gap', () => {
    const c = counts({ agreed: '2026-11-25', gap: windowOf('2026-11-25') });
    const dates = ['2026-11-24', '2026-11-25', '2026-11-27', DATE];
    expect(statuses(c, dates)).toEqual(['complete', 'possible_gap', 'possible_gap', 'possible_gap']);
    const narrowed = counts({
      agreed: '2026-11-25',
      gap: windowOf('2026-11-25', DATE, [
        { from: '2026-11-25', to: '2026-11-26' },
        { from: DATE, to: DATE },
      ]),
    });
    expect(statuses(narrowed, dates, (d) => (d === '2026-11-27' ? null : { count: 0, whole: true }))).toEqual(['complete', 'complete', 'gap', 'complete']);
  });

  test('re-uploads proving every date of the window: the records bear a time none asked for, anywhere in it again', () => {
    const c = counts({ agreed: '2026-11-27', gap: windowOf('2026-11-27', DATE, [{ from: '2026-11-27', to: DATE }]) });
    expect(statuses(c, ['2026-11-26', '2026-11-27', DATE], () => ({ count: 0, whole: true }))).toEqual(['complete', 'possible_gap', 'possible_gap']);
  });

  test('a re-upload that covered only part of a date proves nothing of the rest: not complete by itself', () => {
    expect(dayStatus(day('2026-11-20', { count: 3, whole: false }, 3), counts({})).status).toBe('unknown');
    expect(dayStatus(day('2026-11-20', { count: 3, whole: true }, 3), counts({})).status).toBe('complete');
    expect(dayStatus(day('2026-11-20', { count: 3, whole: false }, 3), counts({ agreed: DATE })).status).toBe('complete');
  });
});
