/**
 * Protocol units for the firmware of the second replay (issue 23): the Security PUSH option
 * block, command results without a table, what a terminal declares at registry, the access
 * event codes of rtlog, the 3.x return codes that end a command, and the dialect a terminal is
 * spoken to in.
 */
import { describe, expect, test } from 'bun:test';
import { isPermanentFailure, PERMANENT_FAILURES, PUSH3_PERMANENT_FAILURES } from '../../src/modules/commands/kinds';
import { describeReturnCode } from '../../src/modules/commands/return-codes';
import { speaksSecurityPush } from '../../src/modules/devices';
import {
  buildOptionBlock,
  classifyAccessEvent,
  describeAccessEvent,
  isCommandResultBody,
  PUSH_OPTIONS,
  parseDeviceCmdBody,
  parseRegistryBody,
  parseRtlog,
  parseTransactions,
  registryDeclaration,
  TRANS_FLAG,
  TRANS_FLAG_BITSTRING,
  VERIFICATION_EVENTS,
} from '../../src/protocol/adms';

const linesOf = (block: string) => block.split('\n');

describe('option block by dialect', () => {
  const base = { sn: 'SF2A0001', timeZoneMinutes: 60, serverVersion: '2.4.1', delaySeconds: 7 };

  test('Security PUSH: bit-string TransFlag, Encrypt=0, PushOptions, RequestDelay and TransTables', () => {
    const lines = linesOf(buildOptionBlock({ ...base, pushver: '3.0.1', securityPush: true }));
    expect(lines).toContain(`TransFlag=${TRANS_FLAG_BITSTRING}`);
    expect(lines.filter((l) => l.startsWith('TransFlag='))).toHaveLength(1);
    expect(lines).toContain('Encrypt=0');
    expect(lines).toContain(`PushOptions=${PUSH_OPTIONS}`);
    expect(lines).toContain('RequestDelay=7');
    expect(lines).toContain('TransTables=User Transaction');
    expect(lines).toContain('PushOptionsFlag=1');
  });

  test('a declared security terminal gets the same form when its handshake carries no pushver', () => {
    const lines = linesOf(buildOptionBlock({ ...base, securityPush: true }));
    expect(lines).toContain(`TransFlag=${TRANS_FLAG_BITSTRING}`);
    expect(lines).toContain('Encrypt=0');
    // Not mistaken for pre-2.0 firmware: no legacy stamp names.
    expect(lines).not.toContain('Stamp=9999');
  });

  test('2.x keeps the named TransFlag and Encrypt=None, and asks for no PushOptions', () => {
    const lines = linesOf(buildOptionBlock({ ...base, pushver: '2.4.1' }));
    expect(lines).toContain(`TransFlag=TransData ${TRANS_FLAG}`);
    expect(lines).toContain('Encrypt=None');
    expect(lines.some((l) => l.startsWith('PushOptions='))).toBe(false);
    expect(lines.some((l) => l.startsWith('RequestDelay='))).toBe(false);
  });

  test('pre-2.0 firmware (no pushver) gets the bit string and Encrypt=0 (docs vector V01b)', () => {
    const lines = linesOf(buildOptionBlock({ ...base }));
    expect(lines).toContain(`TransFlag=${TRANS_FLAG_BITSTRING}`);
    expect(lines).toContain('Encrypt=0');
    expect(lines).toContain('Stamp=9999');
  });

  test('the bit string asks for the kinds the named list names, in the [ATT] positions', () => {
    expect(TRANS_FLAG_BITSTRING).toMatch(/^[01]{12}$/);
    const positions = ['AttLog', 'OpLog', 'AttPhoto', 'EnrollFP', 'EnrollUser', 'FPImag', 'ChgUser', 'ChgFP', 'FACE', 'UserPic', 'WORKCODE', 'BioPhoto'];
    const named = new Set(TRANS_FLAG.split('\t'));
    expect([...TRANS_FLAG_BITSTRING].map((bit, i) => [positions[i], bit === '1'])).toEqual(positions.map((kind) => [kind, named.has(kind)]));
    expect(TRANS_FLAG_BITSTRING.startsWith('1111')).toBe(true);
  });

  test('PushOptions names every parameter the service reads', () => {
    const keys = PUSH_OPTIONS.split(',');
    for (const key of [
      'FingerFunOn',
      'FaceFunOn',
      'FPVersion',
      'FaceVersion',
      'TransactionCount',
      'UserCount',
      'FPCount',
      'IPAddress',
      'FWVersion',
      'MultiBioDataSupport',
      'MultiBioVersion',
      'BioDataFun',
      'PvFunOn',
      'PvVersion',
      'FvFunOn',
      'FvVersion',
      'VisilightFun',
      '~MaxUserCount',
      '~MaxFingerCount',
      '~MaxFaceCount',
    ]) {
      expect(keys).toContain(key);
    }
    expect(new Set(keys).size).toBe(keys.length);
    expect(PUSH_OPTIONS).not.toMatch(/[\s=]/);
  });
});

describe('command results without a table', () => {
  test('ID=…&Return=…&CMD=… lines are recognised, after blank lines and CRLF too', () => {
    expect(isCommandResultBody('ID=12&Return=0&CMD=DATA\n')).toBe(true);
    expect(isCommandResultBody('\n\r\nID=12&Return=0&CMD=DATA\r\nID=13&Return=-629&CMD=DATA\r\n')).toBe(true);
    expect(isCommandResultBody('id=info8487&return=0&cmd=INFO\n')).toBe(true);
    // Multi-line form (Shell, INFO).
    expect(isCommandResultBody('ID=32\nReturn=0\nCMD=Shell\n')).toBe(true);
    const parsed = parseDeviceCmdBody('\n\r\nID=12&Return=0&CMD=DATA\r\nID=13&Return=-629&CMD=DATA\r\n');
    expect(parsed.results.map((r) => [r.id, r.returnCode])).toEqual([
      ['12', 0],
      ['13', -629],
    ]);
  });

  test('anything else is not', () => {
    for (const body of ['', '\n\n', '1001\t2024-03-11 08:59:12\t0\t1\t0\t0\t0\n', 'USER PIN=1\tName=x\n', 'OK', 'Return=0&ID=1\n', 'IDX=1&Return=0\n']) {
      expect(isCommandResultBody(body)).toBe(false);
    }
  });
});

describe('registry declaration', () => {
  test('DeviceType and a protocol PushVersion are taken', () => {
    const d = registryDeclaration(
      parseRegistryBody('DeviceType=acc,~DeviceName=SpeedFace-V5L-RFID,FirmVer=ZAM180-NF-Ver1.1.17,PushVersion=3.1.2,MAC=00:17:61:12:f8:db'),
    );
    expect(d).toEqual({ deviceType: 'acc', pushVersion: '3.1.2' });
    expect(registryDeclaration(parseRegistryBody('DeviceType=ACC'))).toEqual({ deviceType: 'acc', pushVersion: null });
  });

  test('a firmware string is not a protocol version; garbage is dropped', () => {
    expect(registryDeclaration(parseRegistryBody('DeviceType=att,PushVersion=Ver 2.0.32S-20200506'))).toEqual({ deviceType: 'att', pushVersion: null });
    expect(registryDeclaration(parseRegistryBody('DeviceType=a c c,PushVersion=3.1.2; DROP'))).toEqual({ deviceType: null, pushVersion: null });
    expect(registryDeclaration(parseRegistryBody(''))).toEqual({ deviceType: null, pushVersion: null });
  });

  test('the dialect follows the declaration or a 3.x push version', () => {
    expect(speaksSecurityPush({ deviceType: 'acc', pushVersion: null })).toBe(true);
    expect(speaksSecurityPush({ deviceType: 'acc', pushVersion: '2.4.1' })).toBe(true);
    expect(speaksSecurityPush({ deviceType: null, pushVersion: '3.0.1' })).toBe(true);
    expect(speaksSecurityPush({ deviceType: 'att', pushVersion: '2.4.1' })).toBe(false);
    expect(speaksSecurityPush({ deviceType: null, pushVersion: null })).toBe(false);
  });
});

describe('access event codes ([SEC] appendix 2 and 19)', () => {
  test('verifications that let the person through are punches', () => {
    for (const code of [0, 1, 2, 3, 14, 15, 16, 17, 18, 19, 203, 207, 208, 215, 216, 218, 219, 222, 232]) {
      expect(classifyAccessEvent(code)).toBe('verification');
    }
    expect(classifyAccessEvent(null)).toBe('verification');
    expect(VERIFICATION_EVENTS.size).toBe(19);
  });

  test('denials, temperature and mask refusals, alarms and door states are not', () => {
    for (const code of [20, 21, 22, 23, 24, 25, 26, 27, 29, 30, 32, 33, 34, 39, 41, 44, 68, 69, 5003]) expect(classifyAccessEvent(code)).toBe('denied');
    for (const code of [100, 101, 102, 103, 104, 105, 6000]) expect(classifyAccessEvent(code)).toBe('alarm');
    for (const code of [4, 5, 6, 7, 8, 9, 200, 201, 202, 204, 206, 214, 255, 4000, 4001]) expect(classifyAccessEvent(code)).toBe('normal');
    expect(describeAccessEvent(68)).toContain('temperature');
    expect(describeAccessEvent(103)).toContain('duress');
    expect(describeAccessEvent(9999)).toBe('event 9999');
  });

  test('rtlog and transaction rows carry their event code to the classification', () => {
    const rt = parseRtlog('time=2026-03-02 08:00:00\tpin=7\tevent=27\tverifytype=15\n').records[0];
    expect(classifyAccessEvent(rt?.event ?? null)).toBe('denied');
    const tx = parseTransactions('transaction pin=7\teventtype=0\ttime=2026-03-02 08:00:00\ntransaction pin=7\ttime=2026-03-02 08:01:00\n').records;
    expect(tx.map((r) => classifyAccessEvent(r.event))).toEqual(['verification', 'verification']);
  });
});

describe('return codes that end a command', () => {
  test('every Security PUSH −6xx code, −708 and −801 are permanent', () => {
    for (const code of [-601, -603, -604, -612, -618, -620, -621, -629, -631, -632, -699, -708, -801]) expect(isPermanentFailure(code)).toBe(true);
  });

  test('failures of the line are retried, as are the 2.x transient ones', () => {
    for (const code of [null, 0, 7, -2, -3, -700, -722, -725, -730, -731, -1003, -1005]) expect(isPermanentFailure(code)).toBe(false);
  });

  test('the 2.x permanent codes stay permanent', () => {
    for (const code of [-1, -9, -10, -11, -12, -30, -1001, -1002, -1004, -1006]) expect(isPermanentFailure(code)).toBe(true);
  });

  test('people read what the 3.x codes mean', () => {
    expect(describeReturnCode(-629)).toBe('Return=-629 (the terminal has no such table)');
    expect(describeReturnCode(-731)).toContain('server');
  });

  test('every code that ends a command, and every 2.x code ADMS.md lists, reads as its meaning, never as an unknown code', () => {
    const listed = [-1, -2, -3, -9, -10, -11, -12, -30, -1001, -1002, -1003, -1004, -1005, -1006, -1007, -1008];
    for (const code of [...PERMANENT_FAILURES, ...PUSH3_PERMANENT_FAILURES, ...listed]) expect(describeReturnCode(code)).not.toContain('unknown code');
    // ADMS.md appendix 1, as a template sent (update_template) is answered.
    expect(describeReturnCode(-9)).toBe('Return=-9 (the template size does not match its data)');
    expect(describeReturnCode(-11)).toBe('Return=-11 (illegal fingerprint template format)');
    expect(describeReturnCode(-12)).toBe('Return=-12 (illegal fingerprint template)');
    expect(describeReturnCode(-1004)).toContain('configuration');
    expect(describeReturnCode(-1006)).toBe('Return=-1006 (the data is too long)');
    expect(describeReturnCode(-4242)).toBe('Return=-4242 (unknown code)');
  });
});
