/**
 * The status of a terminal's date (completeness/status.ts) as README "Completeness" states it,
 * as a rule table: what happened (an agreement, a gap, a re-upload that closed it fully, partly,
 * not at all), each alone, with the terminal's log cleared after it, and with a clear before it.
 * A re-upload's count for a date never hides a gap the counts still know of, nor one a clear
 * took away with the log.
 */
import { describe, expect, test } from 'bun:test';
import { type CountsByDate, type DayFacts, type DayStatus, dayStatus } from '../../../src/modules/completeness/status';

const DATE = '2026-11-28';
const SINCE = '2026-11-01';

/** What the counts say after a history, and what is known of DATE (the re-upload range covered only it). */
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

const facts = (seen: Seen, date = DATE): DayFacts => ({ date, stored: seen.stored, recovering: false, reuploaded: seen.reuploaded });
const counts = (over: Partial<CountsByDate>): CountsByDate => ({ since: SINCE, today: DATE, agreed: null, gapOpen: false, cleared: null, ...over });

describe('the status of a date: each history alone', () => {
  for (const [name, { seen, alone }] of Object.entries(HISTORIES)) {
    test(`${name} → ${alone}`, () => {
      expect(dayStatus(facts(seen), counts({ agreed: seen.agreed, gapOpen: seen.gapOpen })).status).toBe(alone);
    });
  }

  test('a date before the last agreement is complete by the count, even with a gap open since', () => {
    expect(dayStatus(facts({ agreed: null, gapOpen: false, reuploaded: null, stored: 4 }, '2026-11-27'), counts({ agreed: DATE, gapOpen: true }))).toEqual({
      status: 'complete',
      byCount: 'agreed',
    });
  });

  test('a re-upload that re-sent more than is stored is a gap, whatever the counts say', () => {
    expect(dayStatus(facts({ agreed: DATE, gapOpen: false, reuploaded: 3, stored: 2 }), counts({ agreed: DATE })).status).toBe('gap');
  });

  test('a re-upload under way: recovering; before the terminal was known or after an open gap’s today: unknown', () => {
    expect(dayStatus({ ...facts(HISTORIES.gap!.seen), recovering: true }, counts({ agreed: DATE, gapOpen: true })).status).toBe('recovering');
    expect(dayStatus(facts(HISTORIES.agreement!.seen, '2026-10-31'), counts({ agreed: DATE })).status).toBe('unknown');
    expect(dayStatus(facts(HISTORIES.gap!.seen, '2026-11-29'), counts({ agreed: DATE, gapOpen: true })).status).toBe('unknown');
  });
});

describe('the status of a date: the log cleared after each history', () => {
  // The count fell to 0 on DATE and agreed again: the agreement and the gap of before the clear are kept.
  for (const [name, { seen, alone }] of Object.entries(HISTORIES)) {
    test(`${name}, then a clear → ${alone}`, () => {
      const after = counts({ agreed: DATE, gapOpen: false, cleared: { date: DATE, agreed: seen.agreed, gapOpen: seen.gapOpen } });
      expect(dayStatus(facts(seen), after).status).toBe(alone);
    });
    test(`${name}, then a clear and a later gap → gap`, () => {
      const after = counts({ agreed: DATE, gapOpen: true, cleared: { date: DATE, agreed: seen.agreed, gapOpen: seen.gapOpen } });
      expect(dayStatus(facts(seen), after).status).toBe('gap');
    });
  }

  test('a complete by the count before the clear rests on the agreement of then', () => {
    const after = counts({ agreed: DATE, cleared: { date: DATE, agreed: DATE, gapOpen: false } });
    expect(dayStatus(facts(HISTORIES.agreement!.seen), after)).toEqual({ status: 'complete', byCount: 'agreed_before_clear' });
  });

  test('dates of a gap open at the clear stay a gap from the agreement of then to the clear, not before, not after', () => {
    const after = counts({ agreed: DATE, cleared: { date: '2026-11-26', agreed: '2026-11-24', gapOpen: true } });
    const on = (date: string) => dayStatus(facts({ agreed: null, gapOpen: false, reuploaded: 1, stored: 1 }, date), after).status;
    expect([on('2026-11-23'), on('2026-11-24'), on('2026-11-26'), on('2026-11-27')]).toEqual(['complete', 'gap', 'gap', 'complete']);
  });
});

describe('the status of a date: the log cleared before each history', () => {
  for (const [name, { seen, alone }] of Object.entries(HISTORIES)) {
    test(`a clear on an earlier date, then ${name} → ${alone}`, () => {
      const after = counts({ agreed: seen.agreed, gapOpen: seen.gapOpen, cleared: { date: '2026-11-20', agreed: '2026-11-19', gapOpen: false } });
      expect(dayStatus(facts(seen), after).status).toBe(alone);
    });
    test(`a clear earlier on the same date, then ${name} → ${alone}`, () => {
      const after = counts({ agreed: seen.agreed, gapOpen: seen.gapOpen, cleared: { date: DATE, agreed: DATE, gapOpen: false } });
      expect(dayStatus(facts(seen), after).status).toBe(alone);
    });
  }

  test('a clear that lost a gap, then a re-upload that closed the later gap fully: the lost punches still make it a gap', () => {
    const after = counts({ agreed: DATE, gapOpen: false, cleared: { date: DATE, agreed: '2026-11-27', gapOpen: true } });
    expect(dayStatus(facts({ agreed: DATE, gapOpen: false, reuploaded: 3, stored: 3 }), after).status).toBe('gap');
  });
});
