/**
 * Properties of the parsers and builders added for the firmware of the second replay (issue
 * 23): recognising command results posted without a table, reading what a terminal declares at
 * registry, classifying access event codes, and the Security PUSH option block.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { isPermanentFailure } from '../../src/modules/commands/kinds';
import {
  buildOptionBlock,
  classifyAccessEvent,
  formatDeviceCmdResult,
  isCommandResultBody,
  parseDeviceCmdBody,
  parseRegistryBody,
  parseRtlog,
  registryDeclaration,
  TRANS_FLAG_BITSTRING,
  VERIFICATION_EVENTS,
} from '../../src/protocol/adms';

const RUNS = { numRuns: 300 };

/** Printable text without line breaks (device values). */
const value = fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\r\n&]/g, ''));
const commandId = fc.stringMatching(/^[A-Za-z0-9]{1,16}$/);
const blankLines = fc.array(fc.constantFrom('', '\r', ' ', '\t'), { maxLength: 3 }).map((ls) => ls.map((l) => `${l}\n`).join(''));

describe('command results without a table', () => {
  test('a body of results is recognised, and parses to the same results, whatever blank lines lead it', () => {
    const result = fc.record({
      id: commandId,
      returnCode: fc.integer({ min: -2000, max: 2000 }),
      cmd: fc.constantFrom('DATA', 'INFO', 'CHECK', 'ENROLL_FP', 'SET OPTIONS'),
    });
    fc.assert(
      fc.property(blankLines, fc.array(result, { minLength: 1, maxLength: 8 }), fc.constantFrom('\n', '\r\n'), (lead, results, eol) => {
        const body = lead + results.map((r) => formatDeviceCmdResult(r) + eol).join('');
        expect(isCommandResultBody(body)).toBe(true);
        const parsed = parseDeviceCmdBody(body);
        expect(parsed.results.map((r) => [r.id, r.returnCode, r.cmd])).toEqual(results.map((r) => [r.id, r.returnCode, r.cmd]));
      }),
      RUNS,
    );
  });

  test('attendance, operation log and rtlog bodies are never taken for results', () => {
    const attlog = fc
      .tuple(fc.stringMatching(/^[0-9A-Za-z]{1,9}$/), fc.integer({ min: 0, max: 5 }))
      .map(([pin, state]) => `${pin}\t2026-03-02 08:00:00\t${state}\t1\t0\t0\t0\n`);
    const operlog = fc.constantFrom('USER PIN=1\tName=A\n', 'OPLOG 4\t0\t2026-03-02 08:00:00\t0\t0\t0\t0\n', 'FP PIN=1\tFID=1\tSize=4\tValid=1\tTMP=AAAA\n');
    const rtlog = fc.integer({ min: 0, max: 7000 }).map((e) => `time=2026-03-02 08:00:00\tpin=1\tevent=${e}\n`);
    fc.assert(
      fc.property(blankLines, fc.array(fc.oneof(attlog, operlog, rtlog), { maxLength: 5 }), (lead, lines) => {
        expect(isCommandResultBody(lead + lines.join(''))).toBe(false);
      }),
      RUNS,
    );
  });

  test('never throws on any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const recognised = isCommandResultBody(text);
        // Recognised means its first non-blank line starts a result.
        const first = text.split('\n').find((l) => l.trim() !== '');
        expect(recognised).toBe(first !== undefined && /^ID=/i.test(first.trim()));
      }),
      RUNS,
    );
  });
});

describe('registry declaration', () => {
  test('whatever the body, the type is null or a lower-case word, the version null or dotted digits', () => {
    const pair = fc.tuple(fc.constantFrom('DeviceType', 'PushVersion', '~DeviceName', 'FirmVer', 'MAC'), value).map(([k, v]) => `${k}=${v}`);
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 8 }), (pairs) => {
        const d = registryDeclaration(parseRegistryBody(pairs.join(',')));
        if (d.deviceType !== null) expect(d.deviceType).toMatch(/^[a-z]{1,16}$/);
        if (d.pushVersion !== null) expect(d.pushVersion).toMatch(/^\d+(\.\d+)*$/);
      }),
      RUNS,
    );
  });

  test('a declared type and version come back as declared', () => {
    fc.assert(
      fc.property(fc.constantFrom('acc', 'att', 'ACC', 'Att'), fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 3 }), (type, parts) => {
        const version = parts.join('.');
        expect(registryDeclaration(parseRegistryBody(`~DeviceName=X, Y,DeviceType=${type},PushVersion=${version}`))).toEqual({
          deviceType: type.toLowerCase(),
          pushVersion: version,
        });
      }),
      RUNS,
    );
  });
});

describe('access event codes', () => {
  test('every code has one class, and only the verification codes (or none) are punches', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: -10_000, max: 10_000 }), { nil: null }), (code) => {
        const cls = classifyAccessEvent(code);
        expect(['verification', 'normal', 'denied', 'alarm']).toContain(cls);
        expect(cls === 'verification').toBe(code === null || VERIFICATION_EVENTS.has(code));
        if (code !== null && code >= 20 && code < 100) expect(cls).toBe('denied');
        if (code !== null && code >= 100 && code < 200) expect(cls).toBe('alarm');
      }),
      RUNS,
    );
  });

  test('the rtlog parser hands over the code as sent, fields in any order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 7000 }),
        fc.stringMatching(/^[1-9][0-9]{0,8}$/),
        fc.shuffledSubarray([0, 1, 2, 3], { minLength: 4 }),
        (event, pin, order) => {
          const fields = [`pin=${pin}`, `event=${event}`, 'time=2026-03-02 08:00:00', 'verifytype=15'];
          const [record] = parseRtlog(`${order.map((i) => fields[i]).join('\t')}\n`).records;
          expect(record?.event).toBe(event);
          expect(record?.pin).toBe(pin);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('Security PUSH option block', () => {
  test('one TransFlag line, the bit string, Encrypt=0, every line Key=Value', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9]{1,20}$/),
        fc.option(fc.constantFrom('3.0.1', '3.1.2', '3.3.1', '2.4.1', ''), { nil: undefined }),
        fc.integer({ min: -720, max: 840 }),
        (sn, pushver, minutes) => {
          const block = buildOptionBlock({ sn, pushver, securityPush: true, timeZoneMinutes: minutes, serverVersion: '2.4.1' });
          const lines = block.slice(0, -1).split('\n').slice(1);
          for (const line of lines) expect(line).toMatch(/^[A-Za-z]+=[^\n\r]*$/);
          expect(lines.filter((l) => l.startsWith('TransFlag='))).toEqual([`TransFlag=${TRANS_FLAG_BITSTRING}`]);
          expect(lines.filter((l) => l.startsWith('Encrypt='))).toEqual(['Encrypt=0']);
          expect(lines.filter((l) => l.startsWith('PushOptions='))).toHaveLength(1);
        },
      ),
      RUNS,
    );
  });
});

describe('return codes', () => {
  test('the −6xx range is permanent; −7xx only for −708', () => {
    fc.assert(
      fc.property(fc.integer({ min: -799, max: -600 }), (code) => {
        const permanent = isPermanentFailure(code);
        if (code > -700) expect(permanent).toBe(true);
        else expect(permanent).toBe(code === -708);
      }),
      RUNS,
    );
  });
});
