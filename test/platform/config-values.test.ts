import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  formatDuration,
  formatRate,
  type ParseResult,
  parseBoolean,
  parseDateList,
  parseDuration,
  parseInteger,
  parseIntList,
  parseJsonMap,
  parseList,
  parseRate,
  parseSchedule,
  parseWeekdays,
} from '../../src/platform/config/values';
import { isCalendarDate } from '../../src/platform/time/dates';

function value<T>(r: ParseResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got error: ${r.error}`);
  return r.value;
}

function isError<T>(r: ParseResult<T>): boolean {
  return !r.ok && typeof r.error === 'string' && r.error.length > 0;
}

describe('parseDuration / formatDuration', () => {
  test.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['7d', 604_800_000],
    ['2h', 7_200_000],
    ['500ms', 500],
    ['1h30m', 5_400_000],
    ['1d2h3m4s5ms', 93_784_005],
    ['2m500ms', 120_500],
    ['0', 0],
    ['45', 45_000],
    [' 10m \n', 600_000],
    ['0s', 0],
  ])('%p', (text, ms) => {
    expect(value(parseDuration(text))).toBe(ms);
  });

  test.each(['', ' ', '1.5h', '-5m', '+5m', 'm', '10 m', '30m1h', '1h1h', '5M', '5w', '1h 30m', 'ms', '5mss', '99999999999999999999'])('rejects %p', (text) => {
    expect(isError(parseDuration(text))).toBe(true);
  });

  test('formats canonically', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(500)).toBe('500ms');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(5_400_000)).toBe('1h30m');
    expect(formatDuration(604_800_000)).toBe('7d');
    expect(formatDuration(-1500)).toBe('-1s500ms');
    expect(formatDuration(1.6)).toBe('2ms');
  });
});

describe('parseRate / formatRate', () => {
  test.each([
    ['120/m', 120, 60_000],
    ['10/s', 10, 1_000],
    ['1000/h', 1000, 3_600_000],
    ['5/10s', 5, 10_000],
    ['3/d', 3, 86_400_000],
    [' 7 / 1h30m ', 7, 5_400_000],
  ])('%p', (text, limit, windowMs) => {
    expect(value(parseRate(text))).toEqual({ limit, windowMs });
  });

  test.each(['', '10', '/m', '10/', '0/m', '-1/m', '1.5/m', '10/10', '10/0s', '10/x', '10/m/s', 'ten/m'])('rejects %p', (text) => {
    expect(isError(parseRate(text))).toBe(true);
  });

  test('formats', () => {
    expect(formatRate({ limit: 120, windowMs: 60_000 })).toBe('120/m');
    expect(formatRate({ limit: 5, windowMs: 10_000 })).toBe('5/10s');
    expect(formatRate({ limit: 1, windowMs: 5_400_000 })).toBe('1/1h30m');
  });
});

describe('lists', () => {
  test('parseList', () => {
    expect(parseList('a, b,c')).toEqual(['a', 'b', 'c']);
    expect(parseList(' , a,, b ,')).toEqual(['a', 'b']);
    expect(parseList('')).toEqual([]);
  });

  test('parseIntList', () => {
    expect(value(parseIntList('0-9'))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(value(parseIntList('0,1,2'))).toEqual([0, 1, 2]);
    expect(value(parseIntList('0-3,6'))).toEqual([0, 1, 2, 3, 6]);
    expect(value(parseIntList('6, 2 - 3, 3'))).toEqual([2, 3, 6]);
    expect(value(parseIntList(''))).toEqual([]);
    expect(value(parseIntList('5-5'))).toEqual([5]);
    for (const bad of ['a', '1-', '-1', '3-1', '1.5', '0-99999999', '1;2']) {
      expect(isError(parseIntList(bad))).toBe(true);
    }
    expect(isError(parseIntList('0-10', { max: 9 }))).toBe(true);
    expect(isError(parseIntList('0-3', { min: 1 }))).toBe(true);
    expect(value(parseIntList('0-9', { min: 0, max: 9 }))).toHaveLength(10);
  });

  test('parseWeekdays', () => {
    expect(value(parseWeekdays('sat,sun'))).toEqual([0, 6]);
    expect(value(parseWeekdays('6,0'))).toEqual([0, 6]);
    expect(value(parseWeekdays('Mon-Fri'))).toEqual([1, 2, 3, 4, 5]);
    expect(value(parseWeekdays('1-5'))).toEqual([1, 2, 3, 4, 5]);
    expect(value(parseWeekdays('fri-mon'))).toEqual([0, 1, 5, 6]);
    expect(value(parseWeekdays('Saturday, sunday'))).toEqual([0, 6]);
    expect(value(parseWeekdays(''))).toEqual([]);
    for (const bad of ['7', 'funday', 'sa', 'mon-', '1-8', '-1']) {
      expect(isError(parseWeekdays(bad))).toBe(true);
    }
  });

  test('parseDateList', () => {
    expect(value(parseDateList('2026-12-25,2027-01-01'))).toEqual(['2026-12-25', '2027-01-01']);
    expect(value(parseDateList('2027-01-01, 2026-12-25, 2027-01-01'))).toEqual(['2026-12-25', '2027-01-01']);
    expect(value(parseDateList('2028-02-29'))).toEqual(['2028-02-29']);
    expect(value(parseDateList('2000-02-29'))).toEqual(['2000-02-29']);
    for (const bad of ['2026-02-29', '1900-02-29', '2026-13-01', '2026-04-31', '2026-00-10', '2026-1-1', '26-01-01', '2026/01/01', '2026-01-01T00:00']) {
      expect(isError(parseDateList(bad))).toBe(true);
    }
    expect(isCalendarDate('2024-02-29')).toBe(true);
  });
});

describe('scalars', () => {
  test('parseBoolean', () => {
    for (const t of ['true', 'TRUE', '1', 'yes', 'on', ' On ']) expect(value(parseBoolean(t))).toBe(true);
    for (const f of ['false', '0', 'no', 'off', 'OFF']) expect(value(parseBoolean(f))).toBe(false);
    for (const bad of ['', 'y', '2', 'truthy']) expect(isError(parseBoolean(bad))).toBe(true);
  });

  test('parseInteger', () => {
    expect(value(parseInteger('42'))).toBe(42);
    expect(value(parseInteger(' -7 '))).toBe(-7);
    expect(value(parseInteger('+3'))).toBe(3);
    expect(Object.is(value(parseInteger('-0')), 0)).toBe(true);
    for (const bad of ['', '1.0', '1e3', '0x10', 'abc', '9007199254740993']) {
      expect(isError(parseInteger(bad))).toBe(true);
    }
    expect(isError(parseInteger('5', { max: 4 }))).toBe(true);
    expect(isError(parseInteger('5', { min: 6 }))).toBe(true);
    expect(value(parseInteger('5', { min: 5, max: 5 }))).toBe(5);
  });

  test('parseJsonMap', () => {
    expect(value(parseJsonMap('{"hr":["a","b"],"ops":[]}'))).toEqual({ hr: ['a', 'b'], ops: [] });
    const proto = value(parseJsonMap('{"__proto__":["x"]}'));
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    for (const bad of ['', '[]', 'null', '"x"', '{"a":"b"}', '{"a":[1]}', '{"a":[null]}', '{', '{"a":{}}']) {
      expect(isError(parseJsonMap(bad))).toBe(true);
    }
  });

  test('parseSchedule', () => {
    expect(value(parseSchedule('09:00-17:00/10m'))).toEqual({ start: '09:00', end: '17:00', graceMs: 600_000 });
    expect(value(parseSchedule('09:00-17:00'))).toEqual({ start: '09:00', end: '17:00', graceMs: 0 });
    expect(value(parseSchedule('9:30 - 17:45 / 90s'))).toEqual({ start: '09:30', end: '17:45', graceMs: 90_000 });
    expect(value(parseSchedule('22:00-06:00/5m'))).toEqual({ start: '22:00', end: '06:00', graceMs: 300_000 });
    for (const bad of ['', '09:00', '09:00-09:00', '24:00-17:00', '09:60-17:00', '9-17', '09:00-17:00/', '09:00-17:00/x', '09:00-17:00/10m/5m']) {
      expect(isError(parseSchedule(bad))).toBe(true);
    }
  });
});

describe('properties', () => {
  const anyString = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom(...'0123456789dhmsw:/-,. []{}"trueyonf') }), fc.json());

  test('parsers never throw on arbitrary strings', () => {
    const parsers: ((s: string) => ParseResult<unknown>)[] = [
      parseDuration,
      parseRate,
      (s) => ({ ok: true, value: parseList(s) }),
      (s) => parseIntList(s),
      parseBoolean,
      parseJsonMap,
      (s) => parseInteger(s),
      parseWeekdays,
      parseDateList,
      parseSchedule,
    ];
    fc.assert(
      fc.property(anyString, (s) => {
        for (const parse of parsers) {
          const r = parse(s);
          expect(typeof r.ok).toBe('boolean');
          if (!r.ok) expect(r.error.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('durations round-trip through formatDuration', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (ms) => {
        expect(value(parseDuration(formatDuration(ms)))).toBe(ms);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 * 86_400_000 }), (ms) => {
        expect(value(parseDuration(formatDuration(ms)))).toBe(ms);
      }),
    );
  });

  test('accepted durations format back to an equivalent duration', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const r = parseDuration(s);
        if (r.ok) expect(value(parseDuration(formatDuration(r.value)))).toBe(r.value);
      }),
      { numRuns: 500 },
    );
  });

  test('rates round-trip through formatRate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 7 * 86_400_000 }), (limit, windowMs) => {
        expect(value(parseRate(formatRate({ limit, windowMs })))).toEqual({ limit, windowMs });
      }),
    );
  });

  test('int lists round-trip through join', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 30 }), (xs) => {
        const sorted = [...xs].sort((a, b) => a - b);
        expect(value(parseIntList(xs.join(',')))).toEqual(sorted);
      }),
    );
  });

  test("valid dates are accepted, matching Date's calendar", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1600-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }), (d) => {
        const iso = d.toISOString().slice(0, 10);
        expect(value(parseDateList(iso))).toEqual([iso]);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1600, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (y, m, d) => {
        const iso = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
        const viaDate = new Date(`${iso}T00:00:00Z`);
        const real = !Number.isNaN(viaDate.getTime()) && viaDate.toISOString().slice(0, 10) === iso;
        expect(isCalendarDate(iso)).toBe(real);
      }),
      { numRuns: 500 },
    );
  });
});
