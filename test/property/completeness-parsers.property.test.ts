/**
 * Properties of the terminal input completeness reads (the record count a terminal reports in
 * getrequest `INFO=`, in its `table=options` body and in an INFO reply) and of `TRAVEL_MINUTES`.
 * Nothing throws; a count is a whole number or nothing; what a terminal says comes back as said.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { reportFromInfo, reportFromParameters } from '../../src/modules/terminals/info-reports';
import { formatTravelMinutes, parseTravelMinutes, travelKey } from '../../src/platform/config/values';
import { formatOptionsBody, parseDeviceCmdBody, parseInfoParam, parseOptionsBody } from '../../src/protocol/adms';

const text = fc.string({ unit: 'binary', maxLength: 300 });
const count = fc.integer({ min: 0, max: 2_000_000_000 });
/** Option values as terminals write them: commas inside (`ZKTeco Co., Ltd.`), no key-like tails. */
const value = fc.stringMatching(/^[A-Za-z0-9 .:_-]{0,20}(, [A-Za-z .]{1,10})?$/);

const isCount = (n: number | null | undefined) => n === null || n === undefined || (Number.isSafeInteger(n) && n >= 0);

describe('reported record counts', () => {
  test('any INFO value, options body or devicecmd body: no throw, and a count is a whole number or nothing', () => {
    fc.assert(
      fc.property(text, (body) => {
        expect(isCount(reportFromInfo(parseInfoParam(body)).attendanceCount)).toBe(true);
        expect(isCount(reportFromParameters(parseOptionsBody(body), 'replace').attendanceCount)).toBe(true);
        for (const r of parseDeviceCmdBody(body).results) expect(isCount(reportFromParameters(r.fields, 'merge').attendanceCount)).toBe(true);
      }),
    );
  });

  test('INFO=: the fourth value is the record count, whatever the others hold', () => {
    const field = fc.stringMatching(/^[^,]{0,20}$/);
    fc.assert(
      fc.property(fc.array(field, { minLength: 9, maxLength: 9 }), count, (others, n) => {
        const values = [...others.slice(0, 3), String(n), ...others.slice(3)];
        expect(reportFromInfo(parseInfoParam(values.join(','))).attendanceCount).toBe(n);
      }),
    );
  });

  test('INFO=: a count that is not a whole number (negative, fraction, words) is no count', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -1_000_000, max: -1 }).map(String), fc.constantFrom('1.5', '1e3', 'ten', '0x10', '')), (bad) => {
        expect(parseInfoParam(`Ver 1,1,1,${bad},10.0.0.1,10,0,0,0,111`).attLogCount).toBeNull();
      }),
    );
  });

  test('table=options: TransactionCount comes back among any other parameters, commas in values included', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^~?[A-Z][A-Za-z]{1,12}$/), value, { maxKeys: 12 }), count, (others, n) => {
        const params = { ...Object.fromEntries(Object.entries(others).filter(([k]) => k !== 'TransactionCount')), TransactionCount: String(n) };
        expect(reportFromParameters(parseOptionsBody(formatOptionsBody(params)), 'replace').attendanceCount).toBe(n);
      }),
    );
  });

  test('an INFO reply: TransactionCount among its key=value lines', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999 }), count, (id, n) => {
        const body = [`ID=${id}&Return=0&CMD=INFO`, '~DeviceName=MB360/ID', `TransactionCount=${n}`, 'UserCount=143', '~OEMVendor= ZKTeco Inc.'].join('\n');
        const [result] = parseDeviceCmdBody(body).results;
        expect(result?.id).toBe(String(id));
        expect(reportFromParameters(result!.fields, 'merge').attendanceCount).toBe(n);
      }),
    );
  });
});

describe('TRAVEL_MINUTES', () => {
  const name = fc
    .stringMatching(/^[A-Za-z][A-Za-z0-9 _.-]{0,15}$/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const pairs = fc.uniqueArray(
    fc.tuple(name, name, fc.integer({ min: 1, max: 1440 })).filter(([a, b]) => a !== b),
    { selector: ([a, b]) => travelKey(a, b), maxLength: 8 },
  );

  test('any text: no throw; every entry names two different areas and 1 to 1440 minutes, each pair once', () => {
    fc.assert(
      fc.property(text, (t) => {
        const parsed = parseTravelMinutes(t);
        if (!parsed.ok) return;
        const keys = parsed.value.map((p) => travelKey(p.areas[0], p.areas[1]));
        expect(new Set(keys).size).toBe(keys.length);
        for (const p of parsed.value) {
          expect(p.areas[0]).not.toBe(p.areas[1]);
          expect(Number.isInteger(p.minutes) && p.minutes >= 1 && p.minutes <= 1440).toBe(true);
        }
      }),
    );
  });

  test('written then read: the same pairs (names with a dash use `|`)', () => {
    fc.assert(
      fc.property(pairs, (list) => {
        const value = list.map(([a, b, minutes]) => ({ areas: [a, b] as [string, string], minutes }));
        const parsed = parseTravelMinutes(formatTravelMinutes(value));
        expect(parsed).toEqual({ ok: true, value });
      }),
    );
  });

  test('a pair given twice (either way round), one name, a dash inside a name without `|`, or bad minutes is refused', () => {
    for (const bad of ['north-south=40,south-north=30', 'north=40', 'east-wing-hq=10', 'north-south=0', 'north-south=forty', 'north-north=5', 'a-b=1441']) {
      expect(parseTravelMinutes(bad).ok).toBe(false);
    }
    expect(parseTravelMinutes(' north - south = 40 , east-wing|hq=15 ,')).toEqual({
      ok: true,
      value: [
        { areas: ['north', 'south'], minutes: 40 },
        { areas: ['east-wing', 'hq'], minutes: 15 },
      ],
    });
  });
});
