import { describe, expect, test } from 'bun:test';
import { formatUsbAttlogLine, isBinaryAttlog, parseAttlog, parseUsbAttlog } from '../../src/protocol/adms';

/** Two punches as a terminal's USB manager writes them (`1_attlog.dat`): PIN right-aligned, machine number 1. */
const FILE = '        1\t2026-10-03 08:59:01\t1\t0\t1\t0\r\n        1\t2026-10-03 18:10:22\t1\t1\t1\t0\r\n';

describe('USB attendance file (attlog.dat)', () => {
  test('reads PIN, time, state and verify after the machine number; the PIN without its padding', () => {
    const { records, errors } = parseUsbAttlog(FILE);
    expect(errors).toEqual([]);
    expect(records.map((r) => [r.pin, r.localTime, r.state, r.verifyType, r.workCode])).toEqual([
      ['1', '2026-10-03 08:59:01', 0, 1, '0'],
      ['1', '2026-10-03 18:10:22', 1, 1, '0'],
    ]);
    // The line as it was, machine number included.
    expect(records[0]!.raw).toBe('        1\t2026-10-03 08:59:01\t1\t0\t1\t0');
  });

  test('is not the ADMS upload: read as one, the machine number would pass for the state', () => {
    expect(parseAttlog(FILE).records.map((r) => r.state)).toEqual([1, 1]);
    expect(parseUsbAttlog(FILE).records.map((r) => r.state)).toEqual([0, 1]);
  });

  test('a machine number other than 1, a PIN of letters, a short line (state and verify default)', () => {
    const { records, errors } = parseUsbAttlog('EMP-20001\t2026-06-02 09:15:00\t99\t0\t3\t0\n      42\t2026-06-02 09:16:00\n');
    expect(errors).toEqual([]);
    expect(records.map((r) => [r.pin, r.state, r.verifyType])).toEqual([
      ['EMP-20001', 0, 3],
      ['42', 0, 0],
    ]);
  });

  test('a bad line is reported by its line number and costs nothing beside it', () => {
    const { records, errors } = parseUsbAttlog(`garbage line\n${FILE}        7\tyesterday\t1\t0\t1\t0\n        8\t2026-10-03 09:00:00\t1\tstate=in\t1\t0\n`);
    expect(records).toHaveLength(2);
    expect(errors.map((e) => e.line)).toEqual([1, 4, 5]);
    expect(errors[1]!.reason).toContain('invalid time');
    expect(errors[2]!.reason).toContain('state');
  });

  test('a line with a byte that is not text is refused, never read as a PIN', () => {
    const { records, errors } = parseUsbAttlog(`        1\uFFFD2\t2026-10-03 08:59:01\t1\t0\t1\t0\n${FILE}`);
    expect(records).toHaveLength(2);
    expect(errors.map((e) => [e.line, e.reason])).toEqual([[1, expect.stringContaining('not text')]]);
  });

  test('writes what it reads', () => {
    const line = formatUsbAttlogLine({ pin: '123', localTime: '2026-01-05 07:58:00', state: 0, verifyType: 15, workCode: '0', extra: [] }, 3);
    expect(line).toBe('      123\t2026-01-05 07:58:00\t3\t0\t15\t0');
    expect(parseUsbAttlog(line).records[0]!.verifyType).toBe(15);
  });

  test('the binary file of older terminals is told apart by its NUL bytes', () => {
    expect(isBinaryAttlog(FILE)).toBe(false);
    expect(isBinaryAttlog('\u0001\u0000\u0000\u0000\u00d2\u0004')).toBe(true);
  });
});
