/**
 * Hostile input, pure part: properties of the parsers and codecs that the existing property
 * files (adms-protocol.property, crypto.property, config-values) do not already cover —
 * builders that must never let a value become a second line, round trips of every upload
 * form, template bytes never echoed in a line error, and "never throws" for everything that
 * reads outside input (settings, cursors, agent keys, envelopes, webhook headers, API bodies).
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { withholdBase64 } from '../../src/modules/terminals/ingest';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../src/modules/webhooks/signing';
import { CHECK_CODES, checkConfiguration } from '../../src/platform/config/check';
import { envNameOf, loadSettings, SETTING_KEYS, type SettingsInput } from '../../src/platform/config/settings';
import { digestAgentKey, generateAgentKey, parseAgentKey, verifyAgentKey } from '../../src/platform/crypto/agent-keys';
import { generateEncryptionKey, KeyFormatError, parseEncryptionKey, TemplateDecryptError, TemplateKeyRing } from '../../src/platform/crypto/template-cipher';
import { FpaError } from '../../src/platform/errors';
import {
  API_BODY_LIMIT,
  apiBodyLimit,
  type BodyOptions,
  BodyRefusal,
  isJsonContentType,
  MAX_BODY_DEPTH,
  readJsonBody,
  settledBody,
} from '../../src/platform/http/body';
import { decodeCursor } from '../../src/platform/http/cursor';
import { type CursorKey, cursorKeys } from '../../src/platform/http/paging';
import { IpAllowList, parseNetwork } from '../../src/platform/net/ip';
import { formatLocalDateTime } from '../../src/platform/time/local-time';
import { timeZoneOffsetMinutes } from '../../src/platform/time/zone';
import {
  base64DecodedLength,
  biodataCommand,
  buildOptionBlock,
  checkCommand,
  clearLogCommand,
  decodeCardNumber,
  deleteBiodataCommand,
  deleteFingerCommand,
  deleteUserCommand,
  enrollBioCommand,
  enrollFingerCommand,
  fingerTemplateCommand,
  formatCommandBatch,
  guessFingerprintAlgorithm,
  infoCommand,
  isRebootCommand,
  isValidBase64,
  negotiatePushVersion,
  type ParseResult,
  parseBiodata,
  parseDeviceCmdBody,
  parseInfoParam,
  parseOperlog,
  parseQuery,
  parseRtlog,
  parseTabFields,
  parseTabledata,
  pinProblem,
  push3DeleteBiodataCommand,
  queryAttlogCommand,
  rebootCommand,
  sanitizeValue,
  setOptionCommand,
  userInfoCommand,
} from '../../src/protocol/adms';
import { localPartsFrom } from '../support/arbitraries';

const RUNS = { numRuns: 300 };

/** Characters that break line- and field-based formats, mixed with ordinary and wide ones. */
const nastyChar = fc.constantFrom(...'\t\n\r\u0000 =&,:;~.\\/"\'%#?ab09Zé张\u2028\uFEFF'.split(''));
const nasty = fc.oneof(fc.string({ unit: nastyChar, maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }));
const safeInt = fc.integer({ min: -1_000_000, max: 1_000_000 });
const alnum = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'), minLength: min, maxLength: max });
/** A value as it may appear inside a TAB-separated field: no TAB, CR or LF. */
const fieldValue = fc.string({ unit: fc.constantFrom(...'abcXYZ019 -:=.,;[]()_~/é张'.split('')), maxLength: 24 });
const base64Of = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

const localParts = localPartsFrom(2000);
const localTime = localParts.map(formatLocalDateTime);

/** Splits `KEYWORD k=v\tk=v…` after a known keyword and reads the fields back. */
function fieldsAfter(command: string, keyword: string): Record<string, string> {
  expect(command.startsWith(`${keyword} `)).toBe(true);
  return { ...parseTabFields(command.slice(keyword.length + 1)).fields };
}

function noLineBreak(text: string): void {
  expect(text).not.toMatch(/[\r\n]/);
}

// ------------------------------------------------------------------ server → device

describe('option block', () => {
  const zones = Intl.supportedValuesOf('timeZone');
  const input = fc.record({
    sn: nasty,
    pushver: fc.option(fc.oneof(nasty, fc.stringMatching(/^\d{1,2}(\.\d{1,2}){0,3}$/)), { nil: undefined }),
    zone: fc.constantFrom(...zones),
    at: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
    delay: fc.integer({ min: 1, max: 3600 }),
    errorDelay: fc.integer({ min: 1, max: 3600 }),
    serverVersion: nasty,
    multiBio: fc.option(nasty, { nil: undefined }),
  });

  test('starts with GET OPTION FROM:, every line is Key=Value, TimeZone means the real offset', () => {
    fc.assert(
      fc.property(input, (o) => {
        const minutes = timeZoneOffsetMinutes(o.zone, new Date(o.at));
        const block = buildOptionBlock({
          sn: o.sn,
          pushver: o.pushver,
          timeZoneMinutes: minutes,
          delaySeconds: o.delay,
          errorDelaySeconds: o.errorDelay,
          serverVersion: o.serverVersion,
          multiBioDataSupport: o.multiBio,
        });
        expect(block.startsWith('GET OPTION FROM: ')).toBe(true);
        expect(block.endsWith('\n')).toBe(true);
        expect(block).not.toContain('\r');
        const [first, ...lines] = block.slice(0, -1).split('\n');
        expect(first).toBe(`GET OPTION FROM: ${sanitizeValue(o.sn)}`);
        const keys = new Set<string>();
        const values: Record<string, string> = {};
        for (const line of lines) {
          expect(line).toMatch(/^[A-Za-z]+=[^\n\r]*$/);
          const key = line.slice(0, line.indexOf('='));
          expect(keys.has(key)).toBe(false);
          keys.add(key);
          values[key] = line.slice(key.length + 1);
        }
        // The device reads |v| < 12 as hours and |v| > 60 as minutes; 13..60 means nothing.
        const tz = Number(values.TimeZone);
        expect(Number.isInteger(tz)).toBe(true);
        expect(Math.abs(tz) < 12 || (Math.abs(tz) > 60 && Math.abs(tz) <= 14 * 60)).toBe(true);
        expect(Math.abs(tz) < 12 ? tz * 60 : tz).toBe(minutes);
        expect(values.Delay).toBe(String(o.delay));
        expect(values.ErrorDelay).toBe(String(o.errorDelay));
        expect(values.PushProtVer).toBe(negotiatePushVersion(o.pushver));
      }),
      RUNS,
    );
  });
});

describe('command builders', () => {
  const pin = nasty;

  test('no builder output holds CR or LF, and field values come back sanitised', () => {
    fc.assert(
      fc.property(
        fc.record({
          pin,
          name: nasty,
          password: nasty,
          card: nasty,
          privilege: safeInt,
          group: safeInt,
          verify: safeInt,
          maxNameBytes: fc.integer({ min: 0, max: 64 }),
        }),
        (u) => {
          const text = userInfoCommand({
            pin: u.pin,
            name: u.name,
            password: u.password,
            card: u.card,
            privilege: u.privilege,
            group: u.group,
            verify: u.verify,
            maxNameBytes: u.maxNameBytes,
          });
          noLineBreak(text);
          const f = fieldsAfter(text, 'DATA UPDATE USERINFO');
          expect(f.PIN).toBe(sanitizeValue(u.pin));
          expect(f.Passwd).toBe(sanitizeValue(u.password));
          expect(f.Card).toBe(sanitizeValue(u.card));
          expect(f.Pri).toBe(String(u.privilege));
          expect(f.Grp).toBe(String(u.group));
          expect(f.Verify).toBe(String(u.verify));
          // The name is cut on a character boundary to the byte limit, never past it.
          const name = f.Name ?? '';
          const clean = sanitizeValue(u.name);
          expect(clean.startsWith(name)).toBe(true);
          expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(u.maxNameBytes);
          if (new TextEncoder().encode(clean).length <= u.maxNameBytes) expect(name).toBe(clean);
        },
      ),
      RUNS,
    );
  });

  test('template, delete and enroll commands', () => {
    fc.assert(
      fc.property(pin, fc.integer({ min: 0, max: 15 }), nasty, safeInt, safeInt, nasty, (p, finger, template, type, no, card) => {
        const fp = fingerTemplateCommand({ pin: p, fingerIndex: finger, template });
        noLineBreak(fp);
        const fpFields = fieldsAfter(fp, 'DATA UPDATE FINGERTMP');
        expect(fpFields).toMatchObject({ PIN: sanitizeValue(p), FID: String(finger), TMP: sanitizeValue(template) });
        // Size is the length of the text actually sent.
        expect(fpFields.Size).toBe(String(sanitizeValue(template).length));

        const bio = biodataCommand({ pin: p, no: finger, majorVer: card, minorVer: '0', template, type });
        noLineBreak(bio);
        expect(fieldsAfter(bio, 'DATA UPDATE BIODATA')).toMatchObject({
          Pin: sanitizeValue(p),
          No: String(finger),
          Type: String(type),
          MajorVer: sanitizeValue(card),
          Tmp: sanitizeValue(template),
        });

        for (const [text, keyword, expected] of [
          [deleteUserCommand(p), 'DATA DELETE USERINFO', { PIN: sanitizeValue(p) }],
          [deleteFingerCommand(p, finger), 'DATA DELETE FINGERTMP', { PIN: sanitizeValue(p), FID: String(finger) }],
          [deleteBiodataCommand(p, type, no), 'DATA DELETE BIODATA', { Pin: sanitizeValue(p), Type: String(type), No: String(no) }],
          [push3DeleteBiodataCommand(p, type, no), 'DATA DELETE biodata', { Type: String(type), pin: sanitizeValue(p), no: String(no) }],
          [enrollFingerCommand(p, finger), 'ENROLL_FP', { PIN: sanitizeValue(p), FID: String(finger) }],
          [
            enrollBioCommand(p, type, { no, cardNo: card }),
            'ENROLL_BIO',
            { TYPE: String(type), PIN: sanitizeValue(p), NO: String(no), CardNo: sanitizeValue(card) },
          ],
          [queryAttlogCommand(p, card), 'DATA QUERY ATTLOG', { StartTime: sanitizeValue(p), EndTime: sanitizeValue(card) }],
        ] as const) {
          noLineBreak(text);
          expect(fieldsAfter(text, keyword)).toMatchObject(expected);
        }
      }),
      RUNS,
    );
  });

  test('SET OPTION keeps key and value on one line', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^~?[A-Za-z][A-Za-z0-9]{0,15}$/), nasty, (key, value) => {
        const text = setOptionCommand(key, value);
        noLineBreak(text);
        expect(text).toBe(`SET OPTION ${key}=${sanitizeValue(value)}`);
      }),
      RUNS,
    );
  });

  test('numbers that are not safe integers are refused, never written', () => {
    const bad = fc.oneof(fc.double({ noInteger: true }), fc.constantFrom(Number.NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 53)));
    fc.assert(
      fc.property(bad, (n) => {
        expect(() => fingerTemplateCommand({ pin: '1', fingerIndex: n, template: 'AAAA' })).toThrow(RangeError);
        expect(() => enrollFingerCommand('1', n)).toThrow(RangeError);
        expect(() => deleteBiodataCommand('1', n)).toThrow(RangeError);
        expect(() => userInfoCommand({ pin: '1', name: 'x', privilege: n })).toThrow(RangeError);
      }),
      RUNS,
    );
  });

  test('a batch has exactly one C:<id>: line per included command, whatever the texts hold', () => {
    const text = fc.oneof(nasty, fc.constantFrom(rebootCommand(), checkCommand(), infoCommand(), clearLogCommand(), 'REBOOT\nINFO'));
    const queue = fc.array(fc.record({ id: fc.oneof(alnum(1, 16), nasty), text }), { maxLength: 12 });
    fc.assert(
      fc.property(queue, fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 400 }), (cmds, maxCommands, maxBytes) => {
        const { body, included } = formatCommandBatch(cmds, { maxCommands, maxBytes });
        expect(included).toEqual(cmds.slice(0, included.length).map((c) => c.id));
        if (cmds.length > 0) expect(included.length).toBeGreaterThan(0);
        const lines = body.split('\n');
        expect(lines.pop()).toBe('');
        expect(lines).toHaveLength(included.length);
        for (const line of lines) {
          expect(line.startsWith('C:')).toBe(true);
          expect(line).not.toContain('\r');
        }
        // Nothing follows a REBOOT in the same batch.
        const reboot = cmds.slice(0, included.length).findIndex((c) => isRebootCommand(c.text));
        if (reboot >= 0) expect(reboot).toBe(included.length - 1);
      }),
      RUNS,
    );
  });
});

// ------------------------------------------------------------------ device → server round trips

function only<T>(parsed: ParseResult<T>): T {
  expect(parsed.errors).toEqual([]);
  expect(parsed.records).toHaveLength(1);
  return parsed.records[0]!;
}

describe('upload round trips', () => {
  test('BIODATA record → line → record', () => {
    const record = fc.record({
      pin: alnum(1, 24),
      no: fc.integer({ min: 0, max: 9 }),
      index: fc.integer({ min: 0, max: 4 }),
      valid: fc.integer({ min: 0, max: 3 }),
      duress: fc.integer({ min: 0, max: 1 }),
      type: fc.integer({ min: 0, max: 20 }),
      majorVer: fc.stringMatching(/^[0-9]{1,3}$/),
      minorVer: fc.stringMatching(/^[0-9]{0,3}$/),
      format: fc.integer({ min: 0, max: 2 }),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 300 }),
    });
    fc.assert(
      fc.property(record, fc.boolean(), (r, crlf) => {
        const template = base64Of(r.bytes);
        const line = `BIODATA Pin=${r.pin}\tNo=${r.no}\tIndex=${r.index}\tValid=${r.valid}\tDuress=${r.duress}\tType=${r.type}\tMajorVer=${r.majorVer}\tMinorVer=${r.minorVer}\tFormat=${r.format}\tTmp=${template}`;
        const { raw: _raw, ...parsed } = only(parseBiodata(line + (crlf ? '\r\n' : '\n')));
        const { bytes, ...expected } = r;
        expect(parsed).toEqual({ kind: 'BIODATA', ...expected, template, templateBytes: bytes.length });
      }),
      RUNS,
    );
  });

  test('OPERLOG USER, FP and OPLOG records → lines → records', () => {
    const user = fc.record({
      pin: alnum(1, 24),
      name: fieldValue,
      privilege: fc.constantFrom(0, 2, 6, 14),
      password: alnum(0, 8),
      card: fc.stringMatching(/^[0-9]{0,10}$/),
      group: fc.stringMatching(/^[0-9]{0,2}$/),
    });
    const fp = fc.record({
      pin: alnum(1, 24),
      finger: fc.integer({ min: 0, max: 9 }),
      valid: fc.integer({ min: 0, max: 3 }),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 300 }),
    });
    const oplog = fc.record({ op: fc.integer({ min: 0, max: 200 }), operator: alnum(1, 8), time: localTime, objects: fc.array(alnum(1, 6), { maxLength: 4 }) });
    fc.assert(
      fc.property(user, fp, oplog, (u, f, o) => {
        const template = base64Of(f.bytes);
        const body = [
          `USER PIN=${u.pin}\tName=${u.name}\tPri=${u.privilege}\tPasswd=${u.password}\tCard=${u.card}\tGrp=${u.group}\tTZ=0000000100000000\tVerify=0`,
          `FP PIN=${f.pin}\tFID=${f.finger}\tSize=${template.length}\tValid=${f.valid}\tTMP=${template}`,
          `OPLOG ${o.op}\t${o.operator}\t${o.time}\t${o.objects.join('\t')}`,
        ].join('\n');
        const { records, errors } = parseOperlog(body);
        expect(errors).toEqual([]);
        expect(records[0]).toMatchObject({
          kind: 'USER',
          pin: u.pin,
          name: u.name,
          privilege: u.privilege,
          password: u.password,
          card: u.card,
          cardNumber: u.card,
          group: u.group,
        });
        expect(records[1]).toMatchObject({
          kind: 'FP',
          pin: f.pin,
          fingerIndex: f.finger,
          valid: f.valid,
          template,
          size: template.length,
          sizeMatches: true,
          templateBytes: f.bytes.length,
        });
        expect(records[2]).toMatchObject({ kind: 'OPLOG', opType: o.op, operator: o.operator, localTime: o.time, objects: o.objects });
      }),
      RUNS,
    );
  });

  test('rtlog event → line → punch-shaped record, fields in any order', () => {
    const event = fc.record({
      time: localTime,
      pin: alnum(1, 24),
      inoutstatus: fc.integer({ min: 0, max: 5 }),
      verifytype: fc.integer({ min: 0, max: 30 }),
      event: fc.integer({ min: 0, max: 300 }),
      workcode: fc.stringMatching(/^[0-9]{0,4}$/),
      cardno: fc.stringMatching(/^[0-9]{0,10}$/),
    });
    const shuffled = event.chain((e) => fc.shuffledSubarray(Object.entries(e), { minLength: 7, maxLength: 7 }).map((order) => [e, order] as const));
    fc.assert(
      fc.property(shuffled, ([e, order]) => {
        const pairs = Object.entries(e);
        const record = only(parseRtlog(order.map(([k, v]) => `${k}=${v}`).join('\t')));
        expect(record).toMatchObject({ pin: e.pin, localTime: e.time, state: e.inoutstatus, verifyType: e.verifytype, workCode: e.workcode, event: e.event });
        expect({ ...record.fields }).toEqual(Object.fromEntries(pairs.map(([k, v]) => [k, String(v)])));
      }),
      RUNS,
    );
  });

  test('tabledata line → table and fields', () => {
    const fields = fc.uniqueArray(fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,10}$/), fieldValue), {
      selector: ([k]) => k,
      minLength: 1,
      maxLength: 8,
    });
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/), fields, (table, pairs) => {
        const record = only(parseTabledata(`${table} ${pairs.map(([k, v]) => `${k}=${v}`).join('\t')}\n`));
        expect(record.table).toBe(table);
        expect({ ...record.fields }).toEqual(Object.fromEntries(pairs));
      }),
      RUNS,
    );
  });

  test('devicecmd multi-line result: Content runs over lines up to the next ID=', () => {
    const contentLine = fieldValue.filter((l) => !/^ID=/i.test(l));
    fc.assert(
      fc.property(alnum(1, 16), safeInt, fc.array(contentLine, { minLength: 1, maxLength: 6 }), alnum(1, 16), (id, code, content, nextId) => {
        const body = [`ID=${id}`, `Return=${code}`, 'CMD=Shell', `Content=${content.join('\n')}`, `ID=${nextId}&Return=0&CMD=INFO`, ''].join('\n');
        const { results, errors } = parseDeviceCmdBody(body);
        expect(errors).toEqual([]);
        expect(results).toHaveLength(2);
        expect(results[0]).toMatchObject({ id, returnCode: code, cmd: 'Shell', content: content.join('\n') });
        expect(results[1]).toMatchObject({ id: nextId, returnCode: 0, cmd: 'INFO' });
      }),
      RUNS,
    );
  });

  test('INFO values → parameter → device facts', () => {
    const info = fc.record({
      fw: fc.stringMatching(/^[A-Za-z0-9 .]{1,20}$/).filter((s) => s.trim() !== ''),
      counts: fc.array(fc.nat({ max: 1_000_000 }), { minLength: 3, maxLength: 3 }),
      ip: fc.ipV4(),
      fpAlg: fc.stringMatching(/^[0-9]{1,3}$/),
      faceAlg: fc.stringMatching(/^[0-9]{1,3}$/),
      perEnroll: fc.nat({ max: 20 }),
      faces: fc.nat({ max: 10_000 }),
      bits: fc.stringMatching(/^[01]{1,8}$/),
    });
    fc.assert(
      fc.property(info, (i) => {
        const value = [i.fw, ...i.counts, i.ip, i.fpAlg, i.faceAlg, i.perEnroll, i.faces, i.bits].join(',');
        expect(parseInfoParam(value)).toEqual({
          fwVersion: i.fw.trim(),
          userCount: i.counts[0]!,
          fpCount: i.counts[1]!,
          attLogCount: i.counts[2]!,
          ip: i.ip,
          fpAlgVersion: i.fpAlg,
          faceAlgVersion: i.faceAlg,
          faceTemplatesPerEnroll: i.perEnroll,
          faceCount: i.faces,
          funcBits: i.bits,
        });
      }),
      RUNS,
    );
  });

  test('query parameters → URL → parsed query (trimmed, empty is null)', () => {
    const names = {
      sn: 'SN',
      table: 'table',
      options: 'options',
      pushver: 'pushver',
      language: 'language',
      info: 'INFO',
      stamp: 'Stamp',
      pushCommKey: 'pushcommkey',
      type: 'type',
      tableName: 'tablename',
      pin: 'PIN',
      cmdId: 'cmdid',
      contentType: 'ContentType',
    } as const;
    const value = fc.string({ unit: 'grapheme', maxLength: 20 });
    fc.assert(
      fc.property(fc.record(Object.fromEntries(Object.keys(names).map((k) => [k, value])) as Record<keyof typeof names, fc.Arbitrary<string>>), (values) => {
        const params = new URLSearchParams();
        for (const [field, name] of Object.entries(names)) params.set(name, values[field as keyof typeof names]);
        const parsed = parseQuery(`/iclock/cdata?${params.toString()}`);
        for (const field of Object.keys(names) as (keyof typeof names)[]) {
          const expected = values[field].trim();
          expect(parsed[field]).toBe(expected === '' ? null : expected);
        }
      }),
      RUNS,
    );
  });
});

// ------------------------------------------------------------------ template bytes never echoed

describe('line errors never quote template data', () => {
  /** Template-looking text long enough that a quote of it is unmistakable. */
  const secret = fc.uint8Array({ minLength: 24, maxLength: 60 }).map(base64Of);
  const shapes = (t: string): string[] => [
    `Tmp=${t}`,
    `TMP=${t}`,
    t,
    `\tTmp=${t}`,
    `BIODATA Pin=1\tType=x\tTmp=${t}`,
    `BIODATA Pin=\tType=1\tTmp=${t}`,
    `BIODATA Pin=1\tType=1\tNo=a\tTmp=${t}`,
    `BIODATA Pin=1\tType=1\tTmp=${t}!`,
    `FP PIN=1\tFID=x\tTMP=${t}`,
    `FP PIN=\tFID=1\tTMP=${t}`,
    `FP PIN=1\tFID=1\tTMP=${t}*`,
    `FACE PIN=1\tTMP=${t}%`,
    `USERPIC PIN=1\tContent=${t}%`,
    `templatev10 pin=1\tfingerid=x\ttemplate=${t}`,
    `Content=${t}`,
  ];
  const parsers: [string, (text: string) => ParseResult<unknown>][] = [
    ['BIODATA', parseBiodata],
    ['OPERLOG', parseOperlog],
    ['tabledata', parseTabledata],
  ];

  test('for BIODATA, OPERLOG and tabledata bodies, whatever line carries the template', () => {
    fc.assert(
      fc.property(secret, fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\r\n'), (t, picks, sep) => {
        const all = shapes(t);
        const body = picks.map((i) => all[i % all.length]).join(sep);
        for (const [, parse] of parsers) {
          for (const e of parse(body).errors) {
            for (let at = 0; at + 16 <= t.length; at += 4) expect(e.reason).not.toContain(t.slice(at, at + 16));
          }
        }
        for (const e of parseDeviceCmdBody(body).errors) expect(e.reason).not.toContain(t.slice(0, 16));
      }),
      RUNS,
    );
  });
});

describe('device text kept in logs', () => {
  test('long base64 runs are withheld; text without them is kept as it is', () => {
    const piece = fc.oneof(nasty, fc.uint8Array({ minLength: 18, maxLength: 80 }).map(base64Of));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const text = pieces.join('\t');
        const kept = withholdBase64(text);
        expect(kept).not.toMatch(/[A-Za-z0-9+/]{24}/);
        if (!/[A-Za-z0-9+/]{24}/.test(text)) expect(kept).toBe(text);
      }),
      RUNS,
    );
  });
});

// ------------------------------------------------------------------ never throws

describe('readers of outside input never throw', () => {
  test('loadSettings and the configuration check, for arbitrary environment maps', () => {
    const known = fc.constantFrom(...SETTING_KEYS.map(envNameOf));
    const envKey = fc.oneof(known, known, fc.string({ maxLength: 12 }));
    const envValue = fc.oneof(nasty, fc.json(), fc.constantFrom('', ' ', '0', '-1', '1e309', '{}', '[]', 'true', '10/0s', '99999999999999999999'));
    fc.assert(
      fc.property(fc.dictionary(envKey, envValue, { maxKeys: 12 }), (env) => {
        const loaded = loadSettings({}, env);
        for (const key of SETTING_KEYS) expect(key in loaded.settings).toBe(true);
        for (const p of loaded.problems) {
          expect(p.source).toBe('env');
          expect(env[envNameOf(p.key)] ?? (p.key === 'PORT' ? env.PORT : undefined)).toBeDefined();
          expect(p.message.length).toBeGreaterThan(0);
        }
        for (const issue of checkConfiguration({ loaded })) expect(CHECK_CODES[issue.code]).toBeDefined();
      }),
      RUNS,
    );
  });

  test('loadSettings for settings of any type given in code', () => {
    const anyValue = fc.oneof(fc.anything({ maxDepth: 2 }), nasty);
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...SETTING_KEYS), anyValue, { maxKeys: 8 }), (input) => {
        const loaded = loadSettings(input as SettingsInput, {});
        for (const p of loaded.problems) expect(p.source).toBe('settings');
        checkConfiguration({ loaded });
      }),
      RUNS,
    );
  });

  test('cursorKeys returns keys of the kinds asked for, of its own list only, or refuses with invalid_cursor', () => {
    const key = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
    const token = fc.oneof(
      nasty,
      fc.base64String(),
      fc.json().map((j) => Buffer.from(j).toString('base64url')),
      // Well-formed cursors of this list and of another, with keys of any kind.
      fc
        .tuple(fc.constantFrom('punches', 'audit-log'), fc.array(key, { maxLength: 3 }))
        .map(([list, keys]) => Buffer.from(JSON.stringify([list, ...keys])).toString('base64url')),
    );
    const kinds = fc.array(fc.constantFrom<CursorKey>('text', 'integer'), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(token, kinds, (t, k) => {
        try {
          const keys = cursorKeys('punches', t, k);
          if (keys === null) expect(t).toBe('');
          else expect(decodeCursor(t)?.[0]).toBe('punches');
          if (keys !== null) expect(keys.map((v) => (typeof v === 'string' ? 'text' : Number.isSafeInteger(v) ? 'integer' : 'other'))).toEqual(k);
        } catch (error) {
          expect(error).toBeInstanceOf(FpaError);
          expect((error as FpaError).code).toBe('invalid_cursor');
        }
      }),
      { numRuns: 500 },
    );
  });

  test('agent keys: parse and verify never throw; only the exact key verifies', () => {
    fc.assert(
      fc.property(nasty, nasty, (key, digest) => {
        const parsed = parseAgentKey(key);
        expect(parsed === null || /^[a-z2-7]{8}$/.test(parsed.prefix)).toBe(true);
        expect(verifyAgentKey(key, digest)).toBe(false);
      }),
      RUNS,
    );
    const real = generateAgentKey();
    fc.assert(
      fc.property(fc.nat(), fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'.split('')), (at, c) => {
        const i = at % real.key.length;
        fc.pre(real.key[i] !== c);
        const changed = real.key.slice(0, i) + c + real.key.slice(i + 1);
        expect(verifyAgentKey(changed, real.digest)).toBe(false);
      }),
      RUNS,
    );
    expect(verifyAgentKey(real.key, real.digest)).toBe(true);
    expect(digestAgentKey(real.key)).toBe(real.digest);
  });

  test('template envelopes: arbitrary bytes fail only with TemplateDecryptError; key texts only with KeyFormatError', async () => {
    const ring = await TemplateKeyRing.fromKeys([generateEncryptionKey()]);
    const aad = { enrolleeId: 'e', fingerIndex: 1, version: 1, purpose: 'template' as const };
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
        await expect(ring.decrypt(bytes, aad)).rejects.toBeInstanceOf(TemplateDecryptError);
        try {
          expect(typeof ring.keyIdOf(bytes)).toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(TemplateDecryptError);
        }
      }),
      RUNS,
    );
    fc.assert(
      fc.property(
        fc.oneof(
          nasty,
          fc.constant(generateEncryptionKey()).map((k) => k.slice(0, -1)),
        ),
        (text) => {
          expect(() => parseEncryptionKey(text)).toThrow(KeyFormatError);
        },
      ),
      RUNS,
    );
  });

  test('webhook verification answers false, never throws, for any secret, headers and body', () => {
    const secret = generateWebhookSecret();
    const headers = fc.dictionary(fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature', 'Webhook-Signature', 'x'), nasty, { maxKeys: 4 });
    fc.assert(
      fc.property(fc.oneof(nasty, fc.constant(secret)), headers, nasty, (s, h, body) => {
        expect(verifyWebhook(s, h, body)).toBe(false);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(nasty, nasty, (id, body) => {
        try {
          const signed = signWebhook(secret, { id, timestamp: new Date(), body });
          expect(verifyWebhook(secret, signed, body)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
        }
      }),
      RUNS,
    );
  });

  test('terminal allow-list entries and addresses', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            nasty,
            fc.ipV4(),
            fc.ipV6(),
            fc.tuple(fc.ipV4(), fc.nat(40)).map(([ip, p]) => `${ip}/${p}`),
          ),
          { maxLength: 4 },
        ),
        fc.oneof(nasty, fc.ipV4(), fc.ipV6()),
        (entries, ip) => {
          for (const e of entries) parseNetwork(e);
          expect(typeof new IpAllowList(entries).allows(ip)).toBe('boolean');
        },
      ),
      RUNS,
    );
  });

  test('device field helpers: PIN, card, base64, algorithm guess', () => {
    fc.assert(
      fc.property(nasty, (s) => {
        const problem = pinProblem(s);
        expect(problem === null || problem.length > 0).toBe(true);
        expect(decodeCardNumber(s)).toMatch(/^\d*$/);
        if (isValidBase64(s)) expect(Buffer.from(s, 'base64').length).toBe(base64DecodedLength(s));
        expect([null, 'v9', 'v10']).toContain(guessFingerprintAlgorithm(s));
      }),
      RUNS,
    );
    // `[xxxxxxxx]` is the number's bytes in hex, little-endian.
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 8 }), (bytes) => {
        const hex = Buffer.from(bytes).toString('hex');
        const value = [...bytes].reverse().reduce((n, b) => (n << 8n) | BigInt(b), 0n);
        expect(decodeCardNumber(`[${hex}]`)).toBe(value.toString());
      }),
      RUNS,
    );
  });
});

// ------------------------------------------------------------------ API request bodies

function post(body: BodyInit | null, contentType: string | null): Request {
  return new Request('http://fpa.test/api', { method: 'POST', body, headers: contentType === null ? {} : { 'content-type': contentType } });
}

/** What a router sees after settledBody: the value, or the refusal's code. */
async function outcome(request: Request, limit: number, options: BodyOptions = {}): Promise<{ body: unknown } | { code: string }> {
  const read = await readJsonBody(request, limit, options);
  try {
    return { body: settledBody(read) };
  } catch (error) {
    expect(error).toBeInstanceOf(FpaError);
    return { code: (error as FpaError).code };
  }
}

describe('API request bodies', () => {
  test('any JSON object sent as JSON comes back as itself; other JSON values are refused (null only where allowed)', async () => {
    const type = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"', 'application/merge-patch+json');
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), type, fc.boolean(), async (value, contentType, allowNull) => {
        const expected = JSON.parse(JSON.stringify(value)) as unknown;
        const accepted = expected === null ? allowNull : typeof expected === 'object' && !Array.isArray(expected);
        expect(await outcome(post(JSON.stringify(value), contentType), API_BODY_LIMIT, { allowNull })).toEqual(
          accepted ? { body: expected } : { code: 'validation_error' },
        );
      }),
      RUNS,
    );
  });

  test('nesting: up to MAX_BODY_DEPTH is read, deeper is refused at once, however deep', async () => {
    const nested = (depth: number, array: boolean) =>
      array ? `{"a":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 * MAX_BODY_DEPTH }), fc.boolean(), async (depth, array) => {
        const result = await outcome(post(nested(depth, array), 'application/json'), API_BODY_LIMIT);
        expect('code' in result ? result.code : 'read').toBe(depth <= MAX_BODY_DEPTH ? 'read' : 'validation_error');
      }),
      RUNS,
    );
    const started = performance.now();
    expect(await outcome(post(nested(50_000, false), 'application/json'), API_BODY_LIMIT)).toEqual({ code: 'validation_error' });
    expect(await outcome(post(nested(50_000, true), 'application/json'), API_BODY_LIMIT)).toEqual({ code: 'validation_error' });
    // Refused by the depth guard, not after a parse of every level: never near the test's timeout.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test('arbitrary bytes and content types: parsed JSON or a 400/413/415 refusal, never a throw', async () => {
    const headerValue = nasty.filter((v) => {
      try {
        new Headers({ 'content-type': v });
        return true;
      } catch {
        return false;
      }
    });
    const type = fc.oneof(
      fc.constantFrom(
        null,
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/octet-stream',
      ),
      headerValue,
    );
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), type, fc.integer({ min: 1, max: 400 }), async (bytes, contentType, limit) => {
        const result = await outcome(post(bytes.byteLength ? bytes : null, contentType), limit);
        if ('code' in result) {
          expect(['validation_error', 'payload_too_large', 'unsupported_media_type']).toContain(result.code);
          if (result.code === 'payload_too_large') expect(bytes.byteLength).toBeGreaterThan(limit);
          // 415 exactly when a body came with a type that is not JSON in UTF-8 (or none).
          if (bytes.byteLength > 0 && result.code !== 'payload_too_large')
            expect(result.code === 'unsupported_media_type').toBe(!isJsonContentType(contentType));
        } else if (bytes.byteLength > 0) {
          // Accepted: it was JSON, under the cap, UTF-8.
          expect(isJsonContentType(contentType)).toBe(true);
          expect(bytes.byteLength).toBeLessThanOrEqual(limit);
          const value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
          expect(typeof value === 'object' && !Array.isArray(value)).toBe(true);
          expect(result.body).toEqual(value);
        }
      }),
      RUNS,
    );
  });

  test('the cap always fits a template upload of TEMPLATE_MAX_BYTES', () => {
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 16 * 1024 * 1024 }), (max) => {
        const envelope = JSON.stringify({ finger_index: 9, algorithm_version: '10'.repeat(16), template: '', quality: 100 }).length;
        const upload = envelope + Math.ceil(max / 3) * 4;
        expect(apiBodyLimit({ TEMPLATE_MAX_BYTES: max })).toBeGreaterThanOrEqual(Math.max(API_BODY_LIMIT, upload));
      }),
      { numRuns: 100 },
    );
  });

  test('a refusal is carried, not thrown, until settled', async () => {
    const refused = await readJsonBody(post('{', 'application/json'), API_BODY_LIMIT);
    expect(refused).toBeInstanceOf(BodyRefusal);
  });
});
