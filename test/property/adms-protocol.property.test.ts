import { describe, expect, test } from 'bun:test';
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { formatLocalDateTime } from '../../src/platform/time/local-time';
import { formatLocalWallTime, localWallTimeToUtc } from '../../src/platform/time/zone';
import {
  decodeBody,
  decodePush3DateTime,
  encodePush3DateTime,
  firstParams,
  formatAttlogLine,
  formatDeviceCmdResult,
  formatOptionsBody,
  formatUsbAttlogLine,
  legacyEncodingOf,
  type ParseResult,
  parseAttlog,
  parseAttPhoto,
  parseBiodata,
  parseDeviceCmdBody,
  parseInfoParam,
  parseOperlog,
  parseOptionsBody,
  parseQuery,
  parseRegistryBody,
  parseRtlog,
  parseTabledata,
  parseUsbAttlog,
  splitRecords,
} from '../../src/protocol/adms';
import { localPartsFrom } from '../support/arbitraries';

const RUNS = { numRuns: 1000 };

/** Languages a terminal announces (ADMS.md §6.4), none, and one not in the table. */
const anyLanguage = fc.constantFrom(undefined, '83', '84', '69', '71', '82', '74', '66', '999');

/** A line of any UTF-8 text (no line end in it). */
const utf8Line = fc.string({ unit: 'binary', maxLength: 60 }).map((s) => s.replace(/[\r\n]/g, ' '));

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** GB2312's level-1 hanzi (rows 16 to 55: lead bytes B0 to D7, trail bytes A1 to FE), each with its two bytes. */
const GB2312_HANZI = (() => {
  const gb = new TextDecoder('gb18030');
  const out: { char: string; bytes: Uint8Array }[] = [];
  for (let lead = 0xb0; lead <= 0xd7; lead++) {
    for (let trail = 0xa1; trail <= 0xfe; trail++) {
      const bytes = Uint8Array.of(lead, trail);
      const char = gb.decode(bytes);
      if (/^\p{Script=Han}$/u.test(char)) out.push({ char, bytes });
    }
  }
  return out;
})();
const hanzi = fc.constantFrom(...GB2312_HANZI);

/** Characters that matter to the parsers, so random input reaches the interesting branches. */
const protocolChar = fc.constantFrom(...'\t\n\r =&,:;[]~-./_ 0123456789ABCDEFabcdefPINTMPSizeIDReturnCMDOPLOGUSERFPBIODATAtimepinZé张\u0000\uFEFF');
const protocolText = fc.string({ unit: protocolChar, maxLength: 200 });
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), protocolText);

/** Line-shaped input built from plausible fragments. */
const lineFragment = fc.constantFrom(
  '1001',
  '2024-03-11 08:59:12',
  '2024-02-30 08:59:12',
  '0',
  '15',
  'x',
  '',
  'USER PIN=1',
  'FP PIN=1',
  'BIODATA Pin=1',
  'OPLOG 4',
  'Type=1',
  'FID=6',
  'TMP=abcd',
  'Tmp=ab=c',
  'time=2024-03-11 08:59:12',
  'pin=7',
  'user uid=1',
  ' ',
);
const linesText = fc
  .array(
    fc.array(lineFragment, { maxLength: 8 }).map((f) => f.join('\t')),
    { maxLength: 10 },
  )
  .chain((lines) => fc.constantFrom('\n', '\r\n', '\r').map((sep) => lines.join(sep)));
const bodyText = fc.oneof(anyText, linesText);

function linesAccountedFor<T>(parse: (text: string) => ParseResult<T>): void {
  fc.assert(
    fc.property(bodyText, (text) => {
      const { records, errors } = parse(text);
      expect(records.length + errors.length).toBe(splitRecords(text).length);
      for (const e of errors) expect(e.reason.length).toBeGreaterThan(0);
    }),
    RUNS,
  );
}

describe('line parsers never throw and account for every line', () => {
  test('ATTLOG', () => linesAccountedFor(parseAttlog));
  test('OPERLOG', () => linesAccountedFor(parseOperlog));
  test('BIODATA', () => linesAccountedFor(parseBiodata));
  test('rtlog', () => linesAccountedFor(parseRtlog));
  test('tabledata', () => linesAccountedFor(parseTabledata));
  test('USB attendance file', () => linesAccountedFor(parseUsbAttlog));
});

describe('other parsers never throw', () => {
  test('options, registry, INFO, devicecmd, query', () => {
    fc.assert(
      fc.property(bodyText, (text) => {
        parseOptionsBody(text);
        parseRegistryBody(text);
        parseInfoParam(text);
        parseQuery(text);
        parseQuery(`/iclock/cdata?${text}`);
        const { results } = parseDeviceCmdBody(text);
        const starts = text.split('\n').filter((l) => /^ID=/i.test(l)).length;
        expect(results.length).toBeLessThanOrEqual(starts);
      }),
      RUNS,
    );
  });

  test('decodeBody on arbitrary bytes: UTF-8, or the legacy encoding of the language', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.constantFrom(undefined, '69', '83', '82', '999'), (bytes, language) => {
        const { text, encoding } = decodeBody(bytes, language === undefined ? {} : { language });
        expect(typeof text).toBe('string');
        expect(['utf-8', legacyEncodingOf(language)]).toContain(encoding);
      }),
      RUNS,
    );
  });

  test('decodeBody: any UTF-8 text decodes to itself, whatever the terminal’s language', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), anyLanguage, (s, language) => {
        // A leading BOM is the body's byte-order mark, dropped.
        const text = s.replace(/^\uFEFF/, '');
        expect(decodeBody(new TextEncoder().encode(text), { language })).toEqual({ text, encoding: 'utf-8' });
      }),
      RUNS,
    );
  });

  test('decodeBody: a GB18030 line of Chinese decodes under language 83, next to a UTF-8 line', () => {
    fc.assert(
      fc.property(fc.array(hanzi, { minLength: 1, maxLength: 4 }), utf8Line, fc.boolean(), (chars, other, first) => {
        const name = chars.map((c) => c.char).join('');
        const gb = concatBytes(ascii('USER PIN=10001\tName='), ...chars.map((c) => c.bytes), ascii('\tPri=0'));
        // The decided rule: a line that is valid UTF-8 is UTF-8. A GB2312 name whose bytes happen to
        // be valid UTF-8 (about one in six one-character names, one in fifty of two characters) is not this property's case.
        fc.pre(!isUtf8(gb));
        const utf = new TextEncoder().encode(other);
        const body = first ? concatBytes(gb, ascii('\r\n'), utf) : concatBytes(utf, ascii('\n'), gb, ascii('\n'));
        const line = `USER PIN=10001\tName=${name}\tPri=0`;
        expect(decodeBody(body, { language: '83' })).toEqual({
          text: first ? `${line}\r\n${other}` : `${other}\n${line}\n`,
          encoding: 'gb18030',
        });
      }),
      RUNS,
    );
  });

  test('decodeBody: a Latin-1 line of a Western name decodes under a Western language', () => {
    // Letters and accented letters (U+00C0 to U+00FF): every such byte is at least 0xC0, never a
    // UTF-8 continuation byte, so a name with one accent is never valid UTF-8.
    const accented = fc.integer({ min: 0xc0, max: 0xff }).map((code) => String.fromCharCode(code));
    const letter = fc.oneof(fc.constantFrom(..."ABCXYZabcmnxyz -'"), accented);
    const name = fc.tuple(fc.string({ unit: letter, maxLength: 20 }), accented, fc.string({ unit: letter, maxLength: 20 })).map((p) => p.join(''));
    const western = fc.constantFrom('69', '97', '70', '80', '71', '68', '105', '73');
    fc.assert(
      fc.property(name, western, utf8Line, (n, language, other) => {
        const latin1 = Uint8Array.from([...n].map((c) => c.charCodeAt(0)));
        const body = concatBytes(ascii('USER PIN=7\tName='), latin1, ascii('\n'), new TextEncoder().encode(other));
        expect(decodeBody(body, { language })).toEqual({ text: `USER PIN=7\tName=${n}\n${other}`, encoding: 'windows-1252' });
      }),
      RUNS,
    );
  });

  test('ATTPHOTO on arbitrary bytes; image bytes after the first NUL are exact', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const photo = parseAttPhoto(bytes);
        expect(photo === null).toBe(!bytes.includes(0));
      }),
      RUNS,
    );
    const headerText = fc.string({ unit: fc.constantFrom(...'PIN=SNsize\nCMD.jpg-0123456789'), maxLength: 80 });
    fc.assert(
      fc.property(headerText, fc.uint8Array({ maxLength: 300 }), (header, image) => {
        const head = new TextEncoder().encode(header);
        const body = new Uint8Array(head.length + 1 + image.length);
        body.set(head, 0);
        body.set(image, head.length + 1);
        expect(Array.from(parseAttPhoto(body)?.image ?? [])).toEqual(Array.from(image));
      }),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------- round trips

const localParts = localPartsFrom(1970);

const alnum = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'), minLength: min, maxLength: max });

/**
 * A record as parsed back: the three fields after the two reserved ones (mask flag, temperature,
 * converted temperature on thermal firmware) are blanked, those after them kept in place.
 */
function withoutHealth<T extends { extra: string[] }>(record: T): T {
  const { extra } = record;
  return { ...record, extra: extra.length > 5 ? [...extra.slice(0, 2), '', '', '', ...extra.slice(5)] : extra.slice(0, 2) };
}

describe('round trips', () => {
  test('ATTLOG record → line → record', () => {
    const record = fc.record({
      pin: alnum(1, 24),
      localTime: localParts.map(formatLocalDateTime),
      state: fc.integer({ min: 0, max: 255 }),
      verifyType: fc.integer({ min: 0, max: 300 }),
      workCode: fc.stringMatching(/^[0-9]{0,4}$/),
      extra: fc.array(fc.stringMatching(/^[0-9.]{1,6}$/), { maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), fc.constantFrom('\n', '\r\n', '\r'), (records, lineEnd) => {
        const body = records.map((r) => formatAttlogLine(r) + lineEnd).join('');
        const parsed = parseAttlog(body);
        expect(parsed.errors).toEqual([]);
        expect(parsed.records.map(({ raw: _raw, ...rest }) => rest)).toEqual(records.map(withoutHealth));
      }),
      RUNS,
    );
  });

  test('ATTLOG with a letter for its state: I/i is 0, O/o is 1, the line keeps the letter', () => {
    const line = fc.record({
      pin: alnum(1, 24),
      localTime: localParts.map(formatLocalDateTime),
      letter: fc.constantFrom('I', 'i', 'O', 'o'),
      verifyType: fc.integer({ min: 0, max: 300 }),
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const parsed = parseAttlog(lines.map((l) => `${l.pin}\t${l.localTime}\t${l.letter}\t${l.verifyType}\t0\t0\t0\n`).join(''));
        expect(parsed.errors).toEqual([]);
        expect(parsed.records.map((r) => [r.pin, r.localTime, r.state, r.stateUnknown, r.verifyType, r.raw.split('\t')[2]])).toEqual(
          lines.map((l) => [l.pin, l.localTime, l.letter.toUpperCase() === 'I' ? 0 : 1, undefined, l.verifyType, l.letter]),
        );
      }),
      RUNS,
    );
  });

  test('ATTLOG with a state that cannot be read: the punch is kept, state 0, flagged unknown; a field that is no state costs only its line', () => {
    const printable = fc.constantFrom(...'ABCXYZabcxyz!?*#-+/.:;_()[]张é0123456789');
    const unreadable = fc.string({ unit: printable, minLength: 1, maxLength: 8 }).filter((s) => !/^[+-]?\d+$/.test(s) && !['I', 'i', 'O', 'o'].includes(s));
    // What is no state at all: a key=value pair (a record sent where it does not belong), a long run (a template).
    const noState = fc.oneof(
      fc.tuple(alnum(1, 8), alnum(0, 8)).map(([k, v]) => `${k}=${v}`),
      fc.string({ unit: printable, minLength: 9, maxLength: 60 }),
    );
    fc.assert(
      fc.property(alnum(1, 24), localParts.map(formatLocalDateTime), unreadable, noState, (pin, localTime, state, junk) => {
        const parsed = parseAttlog(`${pin}\t${localTime}\t${state}\t1\t0\t0\t0\n${pin}\t${localTime}\t${junk}\t1\n`);
        expect(parsed.records).toHaveLength(1);
        expect(parsed.records[0]).toMatchObject({ pin, localTime, state: 0, stateUnknown: true, verifyType: 1 });
        expect(parsed.records[0]?.raw.split('\t')[2]).toBe(state);
        expect(parsed.errors.map((e) => [e.line, e.reason.startsWith('unreadable state')])).toEqual([[2, true]]);
      }),
      RUNS,
    );
  });

  test('USB attendance file: record → line (PIN right-aligned, machine number) → record', () => {
    const record = fc.record({
      pin: alnum(1, 9),
      localTime: localParts.map(formatLocalDateTime),
      state: fc.integer({ min: 0, max: 255 }),
      verifyType: fc.integer({ min: 0, max: 300 }),
      workCode: fc.stringMatching(/^[0-9]{1,4}$/),
      extra: fc.array(fc.stringMatching(/^[0-9.]{1,6}$/), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 999 }), fc.boolean(), (records, machine, crlf) => {
        const body = records.map((r) => formatUsbAttlogLine(r, machine) + (crlf ? '\r\n' : '\n')).join('');
        const parsed = parseUsbAttlog(body);
        expect(parsed.errors).toEqual([]);
        expect(parsed.records.map(({ raw: _raw, ...rest }) => rest)).toEqual(records.map(withoutHealth));
      }),
      RUNS,
    );
  });

  test('options map → body → map (values may contain ", "; they lose surrounding spaces and NULs)', () => {
    const key = fc.stringMatching(/^~?[A-Za-z0-9_]{1,12}$/);
    const value = fc.string({ unit: fc.constantFrom(...'abcXYZ019 ,.:;[]()-_~/\u0000'), maxLength: 30 }).filter((v) => !/,[~A-Za-z0-9_]+=/.test(v));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, minLength: 1, maxLength: 12 }), (pairs) => {
        const sent = Object.fromEntries(pairs);
        const expected = Object.fromEntries(pairs.map(([k, v]) => [k, v.replaceAll('\u0000', '').trim()]));
        expect(parseOptionsBody(formatOptionsBody(sent))).toEqual(expected);
      }),
      RUNS,
    );
  });

  test('devicecmd results → lines → results', () => {
    const reserved = new Set(['id', 'return', 'cmd', 'content']);
    const fieldKey = fc.stringMatching(/^[A-Za-z~][A-Za-z0-9_]{0,10}$/).filter((k) => !reserved.has(k.toLowerCase()));
    const fieldValue = fc.string({ unit: fc.constantFrom(...'abc 019-:=.,'), maxLength: 20 });
    const result = fc.record({
      id: alnum(1, 16),
      returnCode: fc.integer({ min: -100000, max: 100000 }),
      cmd: fc.constantFrom('DATA', 'INFO', 'CHECK', 'ENROLL_FP', 'ENROLL_BIO', 'SET OPTION', 'CLEAR_LOG', 'VERIFY SUM'),
      fields: fc.uniqueArray(fc.tuple(fieldKey, fieldValue), { selector: ([k]) => k.toLowerCase(), maxLength: 4 }).map((p) => Object.fromEntries(p)),
    });
    fc.assert(
      fc.property(fc.array(result, { minLength: 1, maxLength: 6 }), (results) => {
        const body = results.map((r) => `${formatDeviceCmdResult(r)}\n`).join('');
        expect(parseDeviceCmdBody(body)).toEqual({ results, errors: [] });
      }),
      RUNS,
    );
  });

  test('3.x clock encode/decode', () => {
    fc.assert(
      fc.property(
        localParts.filter((p) => p.year >= 2000),
        (p) => {
          expect(decodePush3DateTime(encodePush3DateTime(p))).toEqual(p);
        },
      ),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------- wall time → instant

const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC'] as const;

/** Transition instants (UTC) per zone, so that overlaps and gaps are actually exercised. */
const TRANSITIONS: readonly (readonly [string, string])[] = [
  ['Europe/Berlin', '2024-03-31T01:00:00Z'],
  ['Europe/Berlin', '2024-10-27T01:00:00Z'],
  ['America/New_York', '2024-03-10T07:00:00Z'],
  ['America/New_York', '2024-11-03T06:00:00Z'],
  ['Australia/Lord_Howe', '2024-04-06T15:00:00Z'],
  ['Australia/Lord_Howe', '2024-10-05T15:30:00Z'],
];

const HOUR = 3600;
const anyInstant = fc.tuple(fc.constantFrom(...ZONES), fc.integer({ min: Date.UTC(1971, 0, 1) / 1000, max: Date.UTC(2099, 0, 1) / 1000 }));
const nearTransition = fc
  .tuple(fc.constantFrom(...TRANSITIONS), fc.integer({ min: -3 * HOUR, max: 3 * HOUR }))
  .map(([[zone, at], delta]) => [zone, Date.parse(at) / 1000 + delta] as const);

describe('localWallTimeToUtc', () => {
  test('wall time of an instant maps back to that instant, or to the earlier one in an overlap', () => {
    let overlaps = 0;
    fc.assert(
      fc.property(fc.oneof(anyInstant, nearTransition), ([zone, seconds]) => {
        const instant = new Date(seconds * 1000);
        const wall = formatLocalWallTime(instant, zone);
        const r = localWallTimeToUtc(wall, zone);
        expect(r).not.toBeNull();
        if (!r) return;
        expect(r.resolution).not.toBe('gap');
        expect(formatLocalWallTime(r.utc, zone)).toBe(wall);
        if (r.resolution === 'exact') {
          expect(r.utc.getTime()).toBe(instant.getTime());
        } else {
          overlaps++;
          expect(r.utc.getTime()).toBeLessThanOrEqual(instant.getTime());
          // Nothing earlier shows the same wall time within the overlap window.
          expect(formatLocalWallTime(new Date(r.utc.getTime() - 30 * 60_000), zone) < wall).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
    expect(overlaps).toBeGreaterThan(0);
  });

  test('utc = wall − offsetMinutes for every valid wall time, gaps included', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), localParts, (zone, p) => {
        const r = localWallTimeToUtc(formatLocalDateTime(p), zone);
        expect(r).not.toBeNull();
        const wallMs = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
        expect(r?.utc.getTime()).toBe(wallMs - (r?.offsetMinutes ?? 0) * 60_000);
      }),
      RUNS,
    );
  });
});

describe('query strings', () => {
  /** What URLSearchParams reads: the first value of each name. */
  const reference = (search: string) => {
    const first = new Map<string, string>();
    for (const [name, value] of new URLSearchParams(search)) if (!first.has(name)) first.set(name, value);
    return first;
  };
  const queryText = fc.oneof(
    fc.string({ unit: fc.constantFrom('S', 'N', 'a', '0', '=', '&', '?', '%', '2', '0', 'F', '+', ' ', '#', 'é', '\uD800', '\uDC00', '😀'), maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.string({ maxLength: 30 }),
  );

  test('read by hand or by URLSearchParams, any query gives the parameters URLSearchParams gives', () => {
    fc.assert(
      fc.property(queryText, (search) => {
        expect([...firstParams(search)]).toEqual([...reference(search)]);
      }),
      RUNS,
    );
    // The plain queries terminals send take the hand-read path; these are what it must get right.
    for (const plain of ['SN=CKJF201960996&options=all&pushver=2.4.1', 'SN=A&SN=B&&table=ATTLOG&Stamp', '?SN=X&a==b&=c', ''])
      expect([...firstParams(plain)]).toEqual([...reference(plain)]);
  });
});
