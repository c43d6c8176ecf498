import { describe, expect, test } from 'bun:test';
import { attendanceErrors } from '../../src/modules/terminals/ingest';
import { normaliseLocalTime } from '../../src/platform/time/local-time';
import {
  canonicalTimeZone,
  formatLocalWallTime,
  isValidTimeZone,
  localWallTimeToUtc,
  timeZoneOffsetMinutes,
  usableZoneOrUtc,
} from '../../src/platform/time/zone';
import {
  biodataCommand,
  buildOptionBlock,
  checkCommand,
  clearLogCommand,
  decodeBody,
  decodeCardNumber,
  decodePush3DateTime,
  deleteBiodataCommand,
  deleteFingerCommand,
  deleteUserCommand,
  encodePush3DateTime,
  enrollBioCommand,
  enrollFingerCommand,
  fingerTemplateCommand,
  formatCommandBatch,
  formatCommandLine,
  formatHttpDate,
  guessFingerprintAlgorithm,
  infoCommand,
  isValidBase64,
  isValidCommandId,
  legacyEncodingOf,
  negotiatePushVersion,
  type OperlogRecord,
  parseAttlog,
  parseAttPhoto,
  parseAttPhotoFileName,
  parseBiodata,
  parseDeviceCmdBody,
  parseInfoParam,
  parseOperlog,
  parseOperlogUpload,
  parseOptionsBody,
  parseQuery,
  parseRegistryBody,
  parseRtlog,
  parseTabledata,
  parseTransactions,
  parseUsbAttlog,
  push3DeleteBiodataCommand,
  push3DeleteTemplateCommand,
  push3DeleteUserCommand,
  queryAttlogCommand,
  rebootCommand,
  setOptionCommand,
  splitRecords,
  timeZoneOptionValue,
  truncateUtf8,
  userInfoCommand,
} from '../../src/protocol/adms';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const byteLength = (s: string): number => utf8(s).length;

/** Concatenate ASCII text and raw byte arrays into one body. */
function bytesOf(...parts: (string | number[])[]): Uint8Array {
  const chunks = parts.map((p) => (typeof p === 'string' ? utf8(p) : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function only<T extends OperlogRecord['kind']>(records: OperlogRecord[], kind: T): Extract<OperlogRecord, { kind: T }>[] {
  return records.filter((r): r is Extract<OperlogRecord, { kind: T }> => r.kind === kind);
}

// ---------------------------------------------------------------- vectors (docs/protocol/adms-vectors.md)

const V02 =
  '~DeviceName=SpeedFace-V5L[TD],MAC=00:17:61:12:e5:41,TransactionCount=0,~MaxAttLogCount=20,UserCount=1,~MaxUserCount=100,PhotoFunOn=1,~MaxUserPhotoCount=2500,FingerFunOn=1,FPVersion=10,~MaxFingerCount=60,FPCount=1,FaceFunOn=1,FaceVersion=58,~MaxFaceCount=6000,FaceCount=0,FvFunOn=0,FvVersion=3,~MaxFvCount=10,FvCount=0,PvFunOn=1,PvVersion=12,~MaxPvCount=3000,PvCount=0,Language=69,IPAddress=192.168.54.216,~Platform=ZAM170_TFT,~OEMVendor=ZKTeco Co., Ltd.,FWVersion=ZAM170-NF-Ver1.1.27,PushVersion=Ver 2.0.32S-20200506,RegDeviceType=,VisilightFun=1,MultiBioDataSupport=0:1:0:0:0:0:0:0:1:1,MultiBioPhotoSupport=0:0:0:0:0:0:0:0:0:1,IRTempDetectionFunOn=1,MaskDetectionFunOn=1,UserPicURLFunOn=,VisualIntercomFunOn=,VideoTID=';
const V04 = '1001\t2024-03-11 08:59:12\t0\t1\t0\t0\t0\n1002\t2024-03-11 09:01:47\t0\t15\t0\t0\t0\n1001\t2024-03-11 18:02:03\t1\t1\t0\t0\t0\n';
const V05A = 'USER PIN=5\tName=yyyy\tPri=0\tPasswd=1\tCard=\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\tStartDatetime=0\tEndDatetime=0\n';
const FP_TEMPLATE = 'SghTUzIxIlF7qwlffdgUXdY0TrNYhrQeLiqJTr1JyKnuwzL09g/pCrgTZ2tRCI0vms51ekjL4QwayZDbSKTpifxtVFRM1V7aS08krS54A9C2ui6iHyu512vGah/5GtS4';
const V05B = `USER PIN=1001\tName=Ana Pérez\tPri=0\tPasswd=\tCard=[15CD5B07]\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\nFP PIN=1001\tFID=6\tSize=128\tValid=1\tTMP=${FP_TEMPLATE}\n`;
const V05C =
  'OPLOG 0\t0\t2020-06-23 13:19:24\t0\t0\t0\t0\nOPLOG 3\t0\t2020-06-23 13:19:37\t55\t0\t0\t0\nOPLOG 4\t0\t2020-06-23 13:19:42\t0\t0\t0\t0\nOPLOG 5\t0\t2020-06-23 13:20:44\tDHCP\t0\t0\t0\nOPLOG 5\t0\t2020-06-23 13:20:49\tDHCP\t0\t0\t0\nOPLOG 5\t0\t2020-06-23 13:20:50\tDHCP\t0\t0\t0\n';
const V06 =
  'BIODATA Pin=1001\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=9\tMajorVer=58\tMinorVer=10\tFormat=0\tTmp=8630VS3j8pZUKmx5lGpTVD/Q6tnCrRS14WUiNXlqHmV2cbm2dnTlLl+M1FLHam72oxnupl6c1D0QiR3gcwPAmQjI/pFympbc\nBIODATA Pin=1001\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=8\tMajorVer=12\tMinorVer=0\tFormat=0\tTmp=lbthRfDTnwxqzJyJbVeXl5ant96FtRjNenJCH5osiqOywCndQ/8hK0wIwsOMPS0M\n';
const V08 =
  'C:1001:DATA UPDATE USERINFO PIN=1001\tName=Ana Pérez\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000\tVerify=0\tViceCard=\nC:1002:DATA UPDATE FINGERTMP PIN=1001\tFID=6\tSize=128\tValid=1\tTMP=SghTUzIxIlF7qwlffdgUXdY0TrNYhrQeLiqJTr1JyKnuwzL09g/pCrgTZ2tRCI0vms51ekjL4QwayZDbSKTpifxtVFRM1V7aS08krS54A9C2ui6iHyu512vGah/5GtS4\nC:1003:ENROLL_FP PIN=1001\tFID=7\tRETRY=3\tOVERWRITE=1\nC:1004:CHECK\n';
const V10B =
  'FP PIN=1001\tFID=7\tSize=128\tValid=1\tTMP=SwxTUzIxUyo2kYMB2V1RczCjqZJe9rWW+wOrjWWpNP5KEla1Wdr92lf6R6pX+FSUVdbq0p3pOWCy1W/uqrNITRdRG/wsbCXYo3vm/3nKtmSRnY3cgIujqXx9GZ5VaB9e\n';
const V11 =
  'ID=122&Return=0&CMD=INFO\n~DeviceName=MB360/ID\nMAC=00:17:61:10:79:9f\nTransactionCount=98\n~MaxAttLogCount=10\nUserCount=143\n~MaxUserCount=20\nFingerFunOn=1\n~AlgVer=10\nFPVersion=10\n~MaxFingerCount=20\nFPCount=1\nFaceFunOn=1\nFaceVersion=7\n~MaxFaceCount=1500\nFaceCount=141\nLanguage=69\nIPAddress=172.16.12.182\n~Platform=ZMM220_TFT\nFWVersion=Ver 8.0.4.2-I113-02\nPushVersion=Ver 2.0.36-20180926\n~ZKFPVersion=10\n~SerialNumber=CEZU202360241\n~DSTF=1\n';
const V21 =
  'DeviceType=acc,~DeviceName=SpeedFace-V5L-RFID,FirmVer=ZAM180-NF-Ver1.1.17,PushVersion=3.1.2,MAC=00:17:61:12:f8:db,~ZKFPVersion=10,MultiBioDataSupport=0:1:0:0:0:0:0:0:1:1';

describe('vector byte counts (sanity check of the transcription)', () => {
  test.each([
    ['V02', V02, 719],
    ['V04', V04, 106],
    ['V05a', V05A, 118],
    ['V05b', V05B, 274],
    ['V05c', V05C, 238],
    ['V06', V06, 343],
    ['V08', V08, 377],
    ['V10b', V10B, 168],
    ['V11', V11, 435],
  ])('%s is %#', (_name, body, length) => {
    expect(byteLength(body)).toBe(length);
  });
});

// ---------------------------------------------------------------- body decoding

describe('decodeBody', () => {
  test('UTF-8 by default', () => {
    expect(decodeBody(utf8('USER PIN=1\tName=Ana Pérez\n'))).toEqual({ text: 'USER PIN=1\tName=Ana Pérez\n', encoding: 'utf-8' });
  });

  test('strips a UTF-8 BOM', () => {
    expect(decodeBody(bytesOf([0xef, 0xbb, 0xbf], 'OK'))).toEqual({ text: 'OK', encoding: 'utf-8' });
  });

  test('GB18030 fallback on invalid UTF-8: 张三 = D5 C5 C8 FD', () => {
    const body = bytesOf('USER PIN=7\tName=', [0xd5, 0xc5, 0xc8, 0xfd], '\tPri=0\n');
    const decoded = decodeBody(body);
    expect(decoded.encoding).toBe('gb18030');
    expect(decoded.text).toBe('USER PIN=7\tName=张三\tPri=0\n');
    const user = only(parseOperlog(decoded.text).records, 'USER')[0];
    expect(user?.name).toBe('张三');
  });

  test('V05b variant: the same name sent in GB18030 with language=83 decodes identically', () => {
    // é is A8 A6 in GB18030 (and invalid as UTF-8).
    const body = bytesOf('USER PIN=1001\tName=Ana P', [0xa8, 0xa6], 'rez\tCard=[15CD5B07]\n');
    expect(decodeBody(body, { language: '83' })).toEqual({ text: 'USER PIN=1001\tName=Ana Pérez\tCard=[15CD5B07]\n', encoding: 'gb18030' });
    expect(decodeBody(body).text).toContain('Ana Pérez');
  });

  test('ASCII is ASCII under any language', () => {
    for (const language of [undefined, '83', '69']) {
      expect(decodeBody(utf8('1001\t2024-03-11 08:59:12\t0\t1\n'), { language })).toEqual({
        text: '1001\t2024-03-11 08:59:12\t0\t1\n',
        encoding: 'utf-8',
      });
    }
  });

  test('a language=83 terminal echoing the UTF-8 names it was sent: read as UTF-8, not GB18030', () => {
    // What the service sends (UTF-8) and what the terminal sends back, byte for byte.
    const body = utf8('USER PIN=10000\tName=Zoë Ångström 张\tPri=0\n');
    expect(decodeBody(body, { language: '83' })).toEqual({ text: 'USER PIN=10000\tName=Zoë Ångström 张\tPri=0\n', encoding: 'utf-8' });
  });

  test('a language=69 terminal writes Latin-1 (Windows-1252), not GB18030', () => {
    const body = bytesOf('USER PIN=7\tName=P', [0xe9], 'rez M', [0xfc], 'ller\n');
    expect(decodeBody(body, { language: '69' })).toEqual({ text: 'USER PIN=7\tName=Pérez Müller\n', encoding: 'windows-1252' });
    expect(decodeBody(bytesOf('Name=', [0x80, 0x8a], '\n'), { language: ' 71 ' }).text).toBe('Name=€Š\n');
  });

  test('per line: a GB18030 line and a UTF-8 line in one body each decode in their own encoding', () => {
    const body = bytesOf('USER PIN=7\tName=', [0xd5, 0xc5, 0xc8, 0xfd], '\tPri=0\r\n', 'USER PIN=8\tName=Zoë 张\tPri=0\n');
    expect(decodeBody(body, { language: '83' })).toEqual({
      text: 'USER PIN=7\tName=张三\tPri=0\r\nUSER PIN=8\tName=Zoë 张\tPri=0\n',
      encoding: 'gb18030',
    });
    // Bare CRs end lines too.
    expect(decodeBody(bytesOf('a=', [0xe9], '\rb=é\r'), { language: '70' }).text).toBe('a=é\rb=é\r');
  });

  test('other languages use their code page; none or an unknown one falls back to GB18030', () => {
    expect(decodeBody(bytesOf('Name=', [0xc8, 0xe2, 0xe0, 0xed]), { language: '82' }).text).toBe('Name=Иван');
    expect(decodeBody(bytesOf('Name=', [0xa4, 0xa4]), { language: '84' }).text).toBe('Name=中');
    expect(decodeBody(bytesOf('Name=', [0xd5, 0xc5, 0xc8, 0xfd])).text).toBe('Name=张三');
    expect(decodeBody(bytesOf('Name=', [0xd5, 0xc5, 0xc8, 0xfd]), { language: '999' }).text).toBe('Name=张三');
    expect(legacyEncodingOf('69')).toBe('windows-1252');
    expect(legacyEncodingOf('83')).toBe('gb18030');
    expect(legacyEncodingOf(undefined)).toBe('gb18030');
  });
});

describe('splitRecords', () => {
  test('LF-separated, trailing CR stripped, blank lines skipped', () => {
    expect(splitRecords('a\r\n\r\nb\n\n c\n\t\n')).toEqual(['a', 'b', ' c']);
    expect(splitRecords('')).toEqual([]);
  });
});

// ---------------------------------------------------------------- V02 / V21: options and registry

describe('V02 table=options', () => {
  const parsed = parseOptionsBody(V02);

  test('expected parse (selected keys)', () => {
    expect(parsed).toMatchObject({
      '~DeviceName': 'SpeedFace-V5L[TD]',
      FPVersion: '10',
      FaceVersion: '58',
      PvVersion: '12',
      '~OEMVendor': 'ZKTeco Co., Ltd.',
      FWVersion: 'ZAM170-NF-Ver1.1.27',
      PushVersion: 'Ver 2.0.32S-20200506',
      RegDeviceType: '',
      MultiBioDataSupport: '0:1:0:0:0:0:0:0:1:1',
      VideoTID: '',
    });
  });

  test('the comma inside ~OEMVendor does not create a " Ltd." key', () => {
    expect(Object.keys(parsed)).not.toContain(' Ltd.');
    expect(Object.keys(parsed)).not.toContain('Ltd.');
    expect(Object.keys(parsed)).toHaveLength(39);
  });

  test('tolerates a trailing LF, CRLF and one pair per line', () => {
    expect(parseOptionsBody('A=1,B=x, y\r\n')).toEqual({ A: '1', B: 'x, y' });
    expect(parseOptionsBody('A=1\nB=2\n')).toEqual({ A: '1', B: '2' });
    expect(parseOptionsBody('')).toEqual({});
  });
});

describe('V21 registry body', () => {
  test('parses with the options comma rule', () => {
    expect(parseRegistryBody(V21)).toEqual({
      DeviceType: 'acc',
      '~DeviceName': 'SpeedFace-V5L-RFID',
      FirmVer: 'ZAM180-NF-Ver1.1.17',
      PushVersion: '3.1.2',
      MAC: '00:17:61:12:f8:db',
      '~ZKFPVersion': '10',
      MultiBioDataSupport: '0:1:0:0:0:0:0:0:1:1',
    });
  });
});

// ---------------------------------------------------------------- V01 / V03: query and INFO

describe('parseQuery', () => {
  test('V01 handshake', () => {
    const q = parseQuery('/iclock/cdata?SN=CKJF201960996&options=all&language=69&pushver=2.4.1&PushOptionsFlag=1');
    expect(q).toMatchObject({ sn: 'CKJF201960996', options: 'all', language: '69', pushver: '2.4.1', pushOptionsFlag: '1', table: null });
  });

  test('V01b MB360 parameter order and legacy firmware without pushver', () => {
    const mb = parseQuery(new URL('http://h:8080/iclock/cdata?PushOptionsFlag=2&SN=CEZU202360241&language=69&options=all&pushver=2.4.0'));
    expect(mb).toMatchObject({ sn: 'CEZU202360241', pushver: '2.4.0', pushOptionsFlag: '2' });
    expect(parseQuery('/iclock/cdata?SN=0234567890123&options=all').pushver).toBeNull();
  });

  test('table case preserved, stamp from Stamp or OpStamp, sn tolerated', () => {
    expect(parseQuery('/iclock/cdata?SN=X&table=ATTLOG&Stamp=9999')).toMatchObject({ table: 'ATTLOG', stamp: '9999' });
    expect(parseQuery('/iclock/cdata?SN=X&table=OPERLOG&OpStamp=12')).toMatchObject({ table: 'OPERLOG', stamp: '12' });
    expect(parseQuery('/iclock/cdata?sn=low&table=rtlog')).toMatchObject({ sn: 'low', table: 'rtlog' });
    expect(parseQuery('SN=bare&table=tabledata&tablename=user&count=1')).toMatchObject({ sn: 'bare', tableName: 'user' });
    expect(parseQuery('/iclock/ping').sn).toBeNull();
    expect(parseQuery('/iclock/cdata?SN=').sn).toBeNull();
  });

  test('names tolerate sn but are otherwise case-sensitive; SN wins over sn', () => {
    expect(parseQuery('/iclock/cdata?sn=a&Table=b')).toMatchObject({ sn: 'a', table: null });
    expect(parseQuery('/iclock/cdata?sn=b&SN=A').sn).toBe('A');
    expect(parseQuery('/iclock/cdata?SN=A&sn=b').sn).toBe('A');
  });
});

describe('V03 INFO', () => {
  test('V5L form', () => {
    const q = parseQuery('/iclock/getrequest?SN=CKJF201960996&INFO=ZAM170-NF-Ver1.1.27,1,1,0,192.168.54.216,10,58,12,0,11110');
    expect(parseInfoParam(q.info ?? '')).toEqual({
      fwVersion: 'ZAM170-NF-Ver1.1.27',
      userCount: 1,
      fpCount: 1,
      attLogCount: 0,
      ip: '192.168.54.216',
      fpAlgVersion: '10',
      faceAlgVersion: '58',
      faceTemplatesPerEnroll: 12,
      faceCount: 0,
      funcBits: '11110',
    });
  });

  test('MB360 form with %20', () => {
    const q = parseQuery('/iclock/getrequest?SN=CEZU202360241&INFO=Ver%208.0.4.2-I113-02,143,1,109,172.16.12.182,10,7,12,141,111');
    expect(parseInfoParam(q.info ?? '')).toEqual({
      fwVersion: 'Ver 8.0.4.2-I113-02',
      userCount: 143,
      fpCount: 1,
      attLogCount: 109,
      ip: '172.16.12.182',
      fpAlgVersion: '10',
      faceAlgVersion: '7',
      faceTemplatesPerEnroll: 12,
      faceCount: 141,
      funcBits: '111',
    });
  });

  test('missing and garbled values are null', () => {
    expect(parseInfoParam('Ver 1,abc,,-3')).toEqual({
      fwVersion: 'Ver 1',
      userCount: null,
      fpCount: null,
      attLogCount: null,
      ip: null,
      fpAlgVersion: null,
      faceAlgVersion: null,
      faceTemplatesPerEnroll: null,
      faceCount: null,
      funcBits: null,
    });
    expect(parseInfoParam('').fwVersion).toBeNull();
  });
});

// ---------------------------------------------------------------- V04 / V04b: ATTLOG

describe('V04 ATTLOG', () => {
  const { records, errors } = parseAttlog(V04);

  test('three punches, no errors', () => {
    expect(errors).toEqual([]);
    expect(records.map((r) => [r.pin, r.localTime, r.state, r.verifyType, r.workCode])).toEqual([
      ['1001', '2024-03-11 08:59:12', 0, 1, '0'],
      ['1002', '2024-03-11 09:01:47', 0, 15, '0'],
      ['1001', '2024-03-11 18:02:03', 1, 1, '0'],
    ]);
    expect(records[0]?.extra).toEqual(['0', '0']);
    expect(records[0]?.raw).toBe('1001\t2024-03-11 08:59:12\t0\t1\t0\t0\t0');
  });

  test('Asia/Kolkata expected UTC', () => {
    const utc = records.map((r) => localWallTimeToUtc(r.localTime, 'Asia/Kolkata'));
    expect(utc.map((u) => u?.utc.toISOString())).toEqual(['2024-03-11T03:29:12.000Z', '2024-03-11T03:31:47.000Z', '2024-03-11T12:32:03.000Z']);
    expect(utc.every((u) => u?.offsetMinutes === 330 && u.resolution === 'exact')).toBe(true);
  });
});

describe('V04b ATTLOG edge cases', () => {
  test('11-field MB10 record keeps its extras, the record counter where it was', () => {
    const { records, errors } = parseAttlog('46\t2025-01-29 06:58:48\t0\t15\t0\t0\t0\t0\t0\t0\t10881\n');
    expect(errors).toEqual([]);
    // Fields 8-10 are the mask and temperature fields of thermal firmware: blank whatever they hold.
    expect(records[0]).toMatchObject({ pin: '46', verifyType: 15, state: 0, workCode: '0', extra: ['0', '0', '', '', '', '10881'] });
    expect(records[0]?.raw).toBe('46\t2025-01-29 06:58:48\t0\t15\t0\t0\t0\t\t\t\t10881');
  });

  test('empty workcode and trailing TAB are not errors', () => {
    const { records, errors } = parseAttlog('1234\t2026-08-12 09:55:55\t0\t1\t\t0\t0\t\n');
    expect(errors).toEqual([]);
    expect(records[0]).toMatchObject({ pin: '1234', localTime: '2026-08-12 09:55:55', state: 0, verifyType: 1, workCode: '', extra: ['0', '0'] });
  });

  test('CRLF line and blank final line give one record', () => {
    const { records, errors } = parseAttlog('1001\t2024-03-11 08:59:12\t0\t1\t0\t0\t0\r\n\r\n');
    expect(errors).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]?.raw).toBe('1001\t2024-03-11 08:59:12\t0\t1\t0\t0\t0');
  });

  test('bare CR line ends (a file saved Mac-style) give one record per line, none glued onto the one before', () => {
    const { records, errors } = parseAttlog('10000\t2026-11-27 12:00:01\t0\t1\t0\t0\t0\r10001\t2026-11-27 12:00:02\t0\t1\t0\t0\t0\r');
    expect(errors).toEqual([]);
    expect(records.map((r) => [r.pin, r.localTime, r.extra])).toEqual([
      ['10000', '2026-11-27 12:00:01', ['0', '0']],
      ['10001', '2026-11-27 12:00:02', ['0', '0']],
    ]);
    // Stray CRs before an LF are one line end, as before.
    expect(splitRecords('a\r\r\nb\rc')).toEqual(['a', 'b', 'c']);
  });

  test('thermal firmware: the mask flag and temperatures (health data) are not kept, the punch is', () => {
    const { records, errors } = parseAttlog('1001\t2024-03-11 08:59:12\t0\t15\t0\t0\t0\t1\t36.5\t97.7\n');
    expect(errors).toEqual([]);
    expect(records[0]).toMatchObject({ pin: '1001', localTime: '2024-03-11 08:59:12', verifyType: 15, extra: ['0', '0'] });
    expect(records[0]?.raw).toBe('1001\t2024-03-11 08:59:12\t0\t15\t0\t0\t0');
  });

  test('a line that cannot be read keeps no health data in the excerpt the device log keeps', () => {
    const rt = parseRtlog('time=2024-03-11 8h\tpin=7\tevent=0\ttemperature=38.9\tmaskflag=1\n');
    const att = parseAttlog('1001\tyesterday\t0\t15\t0\t0\t0\t1\t38.9\t102.0\n');
    const excerpts = attendanceErrors([...rt.errors, ...att.errors]).map((e) => e.excerpt);
    expect(excerpts).toHaveLength(2);
    for (const excerpt of excerpts) expect(excerpt).not.toMatch(/38\.9|102\.0|maskflag/i);
    expect(excerpts[1]).toBe('1001\tyesterday\t0\t15\t0\t0\t0');
  });

  test('the parsers quote a rejected line without its health data: the line error’s raw has none', () => {
    const att = parseAttlog('1001\tyesterday\t0\t15\t0\t0\t0\t1\t38.9\t102.0\t77\n');
    // Positions kept: the MB10's record counter after the health fields stays where it was.
    expect(att.errors).toEqual([{ line: 1, raw: '1001\tyesterday\t0\t15\t0\t0\t0\t\t\t\t77', reason: 'invalid time "yesterday"' }]);
    const usb = parseUsbAttlog('     1001\t2024-03-11 8h\t1\t0\t15\t0\t0\t0\t1\t38.9\t102.0\n');
    expect(usb.errors.map((e) => e.raw)).toEqual(['     1001\t2024-03-11 8h\t1\t0\t15\t0\t0\t0']);
    const rt = parseRtlog('time=2024-03-11 8h\tpin=7\tevent=0\ttemperature=38.9\tMaskFlag=1\tconvtemperature=102.0\n');
    expect(rt.errors.map((e) => e.raw)).toEqual(['time=2024-03-11 8h\tpin=7\tevent=0']);
    const stored = parseTransactions('transaction pin=7\tverified=xxxxxxxxx\ttime=2024-03-11 08:59:12\ttemperature=36.6\tmaskflag=1\n');
    expect(stored.errors.map((e) => e.raw)).toEqual(['transaction pin=7\tverified=xxxxxxxxx\ttime=2024-03-11 08:59:12']);
    // A line without health data is quoted as sent.
    expect(parseAttlog('1001\tyesterday\t0\t15\n').errors[0]?.raw).toBe('1001\tyesterday\t0\t15');
  });

  test('3.x real-time and stored records: maskflag, temperature and convtemperature are left out of raw', () => {
    const rt = parseRtlog(
      'time=2024-03-11 08:59:12\tpin=7\tcardno=0\tevent=0\tinoutstatus=0\tverifytype=15\tMaskFlag=1\ttemperature=38.9\tconvtemperature=102.0\n',
    );
    expect(rt.errors).toEqual([]);
    expect(rt.records[0]?.raw).toBe('time=2024-03-11 08:59:12\tpin=7\tcardno=0\tevent=0\tinoutstatus=0\tverifytype=15');
    const stored = parseTransactions('transaction pin=7\tverified=15\teventtype=0\tinoutstate=0\ttime=2024-03-11 08:59:12\ttemperature=36.6\n');
    expect(stored.records[0]?.raw).not.toContain('36.6');
  });

  test('a 3.x stored record whose first pair is health data keeps its table name, not the pair', () => {
    const first = parseTransactions('transaction temperature=36.6\tpin=7\tverified=15\ttime=2024-03-11 08:59:12\n');
    expect(first.errors).toEqual([]);
    expect(first.records[0]?.raw).toBe('transaction pin=7\tverified=15\ttime=2024-03-11 08:59:12');
    const rejected = parseTransactions('transaction MaskFlag=1\ttemperature=38.9\tpin=7\tverified=x\ttime=yesterday\n');
    expect(rejected.errors.map((e) => e.raw)).toEqual(['transaction pin=7\tverified=x\ttime=yesterday']);
  });

  test('accepted time forms are normalised', () => {
    const { records, errors } = parseAttlog('1\t2024-03-11T08:59:12\t0\t1\n2\t2024/03/11 08:59:12\n3\t2024-3-1 8:05:09\t\t\n');
    expect(errors).toEqual([]);
    expect(records.map((r) => r.localTime)).toEqual(['2024-03-11 08:59:12', '2024-03-11 08:59:12', '2024-03-01 08:05:09']);
    expect(records[2]).toMatchObject({ state: 0, verifyType: 0, workCode: '' });
  });

  test('a malformed line is reported and never costs its neighbours', () => {
    const body = [
      '1001\t2024-03-11 08:59:12\t0\t1\t0\t0\t0',
      '\t2024-03-11 08:59:12\t0\t1', // empty PIN
      '10 01\t2024-03-11 08:59:12\t0\t1', // whitespace in PIN
      `${'9'.repeat(25)}\t2024-03-11 08:59:12\t0\t1`, // PIN too long
      '1003\t2024-02-30 08:00:00\t0\t1', // not a calendar date
      '1004\t2024-03-11 24:00:00\t0\t1', // hour 24
      '1005\t2024-03-11 08:59:12\tPri=14\t1', // a key=value pair is no state
      '1006\t2024-03-11 08:59:12\t0\tPri=14', // a key=value pair is no verify mode
      '1007\t2024-03-11 08:59:12Z\t0\t1', // an explicit zone is not a device wall time
      'garbage',
      '1002\t2024-02-29 23:59:59\t1\t15\t0\t0\t0',
    ].join('\n');
    const { records, errors } = parseAttlog(body);
    expect(records.map((r) => r.pin)).toEqual(['1001', '1002']);
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(errors[5]?.reason).toContain('state');
    expect(errors[0]?.raw).toBe('\t2024-03-11 08:59:12\t0\t1');
  });

  test('a verify mode sent as a word keeps its punch as mode 0, flagged; a key=value pair or a long run is no mode', () => {
    const body = ['FP', 'face', '?', 'Card=1', 'x'.repeat(9), '15'].map((v, i) => `2401\t2024-03-16 10:0${i}:00\t0\t${v}\t0\t0\t0`).join('\n');
    const { records, errors } = parseAttlog(body);
    expect(records.map((r) => [r.verifyType, r.verifyUnknown ?? false, r.raw.split('\t')[3]])).toEqual([
      [0, true, 'FP'],
      [0, true, 'face'],
      [0, true, '?'],
      [15, false, '15'],
    ]);
    expect(errors.map((e) => [e.line, e.reason])).toEqual([
      [4, 'unreadable verify type "Card=1"'],
      [5, `unreadable verify type "${'x'.repeat(9)}"`],
    ]);
  });

  test('a letter of old firmware is a state: I/i check-in, O/o check-out; another state is kept as unknown', () => {
    const body = ['I', 'i', 'O', 'o', 'B', 'IN', '?', 'Pri=14', 'x'.repeat(9)].map((s, i) => `2401\t2024-03-16 10:0${i}:00\t${s}\t1\t0\t0\t0`).join('\n');
    const { records, errors } = parseAttlog(body);
    expect(records.map((r) => [r.state, r.stateUnknown ?? false, r.raw.split('\t')[2]])).toEqual([
      [0, false, 'I'],
      [0, false, 'i'],
      [1, false, 'O'],
      [1, false, 'o'],
      [0, true, 'B'],
      [0, true, 'IN'],
      [0, true, '?'],
    ]);
    // A key=value pair or a long run is no state: the line is something else, and is skipped.
    expect(errors.map((e) => [e.line, e.reason])).toEqual([
      [8, 'unreadable state "Pri=14"'],
      [9, `unreadable state "${'x'.repeat(9)}"`],
    ]);
  });

  test('normaliseLocalTime', () => {
    expect(normaliseLocalTime('2000-01-01 00:00:00')).toBe('2000-01-01 00:00:00');
    expect(normaliseLocalTime('1900-02-29 00:00:00')).toBeNull();
    expect(normaliseLocalTime('2000-02-29 00:00:60')).toBeNull();
    expect(normaliseLocalTime('2024-03-11 08:59')).toBeNull();
  });
});

// ---------------------------------------------------------------- V05: OPERLOG

describe('V05a verbatim USER record', () => {
  test('two extra keys are kept in fields', () => {
    const { records, errors } = parseOperlog(V05A);
    expect(errors).toEqual([]);
    const [user] = only(records, 'USER');
    expect(user).toMatchObject({ kind: 'USER', pin: '5', name: 'yyyy', privilege: 0, password: '1', card: '', cardNumber: '', group: '1' });
    expect(user?.fields).toMatchObject({ TZ: '0000000100000000', Verify: '-1', ViceCard: '', StartDatetime: '0', EndDatetime: '0' });
  });
});

describe('V05b USER + FP', () => {
  const { records, errors } = parseOperlog(V05B);

  test('expected parse', () => {
    expect(errors).toEqual([]);
    expect(records).toHaveLength(2);
    const [user] = only(records, 'USER');
    expect(user).toMatchObject({ pin: '1001', name: 'Ana Pérez', privilege: 0, password: '', card: '[15CD5B07]', cardNumber: '123456789', group: '1' });
    expect(user?.fields).toEqual({
      PIN: '1001',
      Name: 'Ana Pérez',
      Pri: '0',
      Passwd: '',
      Card: '[15CD5B07]',
      Grp: '1',
      TZ: '0000000100000000',
      Verify: '-1',
      ViceCard: '',
    });
    const [fp] = only(records, 'FP');
    expect(fp).toMatchObject({ pin: '1001', fingerIndex: 6, size: 128, valid: 1, template: FP_TEMPLATE, sizeMatches: true, templateBytes: 96 });
    expect(guessFingerprintAlgorithm(fp?.template ?? '')).toBe('v10');
  });

  test('PIN/Pin, TMP/Tmp and SIZE/Size are matched case-insensitively', () => {
    const { records } = parseOperlog(`fp Pin=1001\tfid=6\tSIZE=128\tVALID=1\tTmp=${FP_TEMPLATE}\n`);
    expect(only(records, 'FP')[0]).toMatchObject({ pin: '1001', fingerIndex: 6, size: 128, sizeMatches: true });
  });

  test('FP failures: bad base64, missing FID, Size mismatch is only flagged', () => {
    const body = [
      'FP PIN=1\tFID=6\tSize=4\tValid=1\tTMP=ab!d',
      'FP PIN=1\tSize=4\tValid=1\tTMP=abcd',
      'FP PIN=1\tFID=6\tSize=3\tValid=1\tTMP=abcd',
      'FP PIN=1\tFID=6\tSize=4\tValid=1\tTMP=',
    ].join('\n');
    const { records, errors } = parseOperlog(body);
    expect(errors.map((e) => e.line)).toEqual([1, 2, 4]);
    expect(errors[0]?.reason).toContain('base64');
    expect(only(records, 'FP')[0]).toMatchObject({ size: 3, sizeMatches: false });
  });
});

describe('V05c OPLOG batch', () => {
  test('six records, non-numeric Obj1 kept', () => {
    const { records, errors } = parseOperlog(V05C);
    expect(errors).toEqual([]);
    const oplogs = only(records, 'OPLOG');
    expect(oplogs.map((r) => r.opType)).toEqual([0, 3, 4, 5, 5, 5]);
    expect(oplogs[1]).toMatchObject({ operator: '0', localTime: '2020-06-23 13:19:37', objects: ['55', '0', '0', '0'] });
    expect(oplogs[3]?.objects).toEqual(['DHCP', '0', '0', '0']);
  });

  test('V10c OPLOG 6 enrollment log', () => {
    const [op] = only(parseOperlog('OPLOG 6\t0\t2024-03-11 10:21:09\t1001\t7\t96\t0\n').records, 'OPLOG');
    expect(op).toMatchObject({ opType: 6, localTime: '2024-03-11 10:21:09', objects: ['1001', '7', '96', '0'] });
  });

  test('bad OPLOG lines are errors, unknown keywords are OTHER', () => {
    const { records, errors } = parseOperlog('OPLOG x\t0\t2020-06-23 13:19:24\nOPLOG 1\t0\tyesterday\nERRORLOG ErrCode=D01E0001\tErrMsg=x\nnonsense\n');
    expect(errors.map((e) => e.line)).toEqual([1, 2]);
    expect(records).toEqual([
      { kind: 'OTHER', keyword: 'ERRORLOG', fields: { ErrCode: 'D01E0001', ErrMsg: 'x' }, raw: 'ERRORLOG ErrCode=D01E0001\tErrMsg=x' },
      { kind: 'OTHER', keyword: 'nonsense', fields: {}, raw: 'nonsense' },
    ]);
  });
});

describe('an OPERLOG upload', () => {
  test('a line of no kind is an error, not a record: garbage, FOO, an ERRORLOG line', () => {
    const { records, errors } = parseOperlogUpload(`${V05C}garbage\nFOO bar=1\nERRORLOG ErrCode=1\n${V05A}`);
    expect(records.map((r) => r.kind)).toEqual(['OPLOG', 'OPLOG', 'OPLOG', 'OPLOG', 'OPLOG', 'OPLOG', 'USER']);
    expect(errors.map((e) => [e.line, e.reason])).toEqual([
      [7, 'unknown record kind "garbage"'],
      [8, 'unknown record kind "FOO"'],
      [9, 'unknown record kind "ERRORLOG"'],
    ]);
  });
});

describe('V05d BIOPHOTO inside OPERLOG', () => {
  const jpeg = Uint8Array.from({ length: 300 }, (_, i) => (i * 37 + 0xd8) & 0xff);
  jpeg.set([0xff, 0xd8, 0xff], 0);
  const content = Buffer.from(jpeg).toString('base64');

  test('Size equals the base64 length, not the decoded length', () => {
    const line = `BIOPHOTO PIN=5\tFileName=5.jpg\tType=0\tSize=${content.length}\tContent=${content}\n`;
    const [photo] = parseOperlog(line).records;
    expect(photo).toMatchObject({ kind: 'BIOPHOTO', keyword: 'BIOPHOTO', pin: '5', sizeMatches: true });
    expect(photo?.kind === 'BIOPHOTO' ? photo.fields['FileName'] : undefined).toBe('5.jpg');
    const decodedSize = parseOperlog(`BIOPHOTO PIN=5\tFileName=5.jpg\tType=0\tSize=${jpeg.length}\tContent=${content}\n`);
    expect(decodedSize.records[0]).toMatchObject({ sizeMatches: false });
  });

  test('other generic kinds keep their fields and PIN', () => {
    const { records, errors } = parseOperlog(
      'FACE PIN=1\tFID=0\tSIZE=4\tVALID=1\tTMP=abcd\nFVEIN Pin=2\tFID=1\tIndex=0\tSize=4\tValid=1\tTmp=ab*d\nUSERPIC PIN=3\tFileName=3.jpg\tSize=0\tContent=\nIDCARD PIN=4\tSNNum=x\n',
    );
    expect(errors.map((e) => e.line)).toEqual([2]);
    expect(records.map((r) => [r.kind, 'pin' in r ? r.pin : undefined])).toEqual([
      ['FACE', '1'],
      ['USERPIC', '3'],
      ['IDCARD', '4'],
    ]);
    expect(records[0]).toMatchObject({ sizeMatches: true });
  });
});

// ---------------------------------------------------------------- V06: BIODATA

describe('V06 BIODATA', () => {
  test('expected parse', () => {
    const { records, errors } = parseBiodata(V06);
    expect(errors).toEqual([]);
    expect(records.map(({ template: _t, raw: _r, ...rest }) => rest)).toEqual([
      { kind: 'BIODATA', pin: '1001', no: 0, index: 0, valid: 1, duress: 0, type: 9, majorVer: '58', minorVer: '10', format: 0, templateBytes: 72 },
      { kind: 'BIODATA', pin: '1001', no: 0, index: 0, valid: 1, duress: 0, type: 8, majorVer: '12', minorVer: '0', format: 0, templateBytes: 48 },
    ]);
  });

  test('PIN=/TMP= spelling parses identically', () => {
    const variant = V06.replaceAll('Pin=', 'PIN=').replaceAll('Tmp=', 'TMP=');
    const strip = (r: { raw: string }): object => ({ ...r, raw: '' });
    expect(parseBiodata(variant).records.map(strip)).toEqual(parseBiodata(V06).records.map(strip));
  });

  test('BIODATA lines inside OPERLOG use the same parser', () => {
    const { records } = parseOperlog(V06);
    expect(only(records, 'BIODATA')).toEqual(parseBiodata(V06).records);
  });

  test('failures: missing Type, bad base64, non-numeric No, wrong keyword', () => {
    const { records, errors } = parseBiodata(
      'BIODATA Pin=1\tNo=0\tTmp=abcd\nBIODATA Pin=1\tType=1\tTmp=ab$c\nBIODATA Pin=1\tNo=x\tType=1\tTmp=abcd\nFP PIN=1\tFID=1\tTMP=abcd\nBIODATA Pin=9\tType=1\tTmp=abcd\n',
    );
    expect(errors.map((e) => e.line)).toEqual([1, 2, 3, 4]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ pin: '9', no: 0, index: 0, valid: 1, duress: 0, format: 0, majorVer: '', minorVer: '' });
  });
});

// ---------------------------------------------------------------- V08: commands and batches

describe('V08 command batch', () => {
  const queue = [
    { id: '1001', text: userInfoCommand({ pin: '1001', name: 'Ana Pérez' }) },
    { id: '1002', text: fingerTemplateCommand({ pin: '1001', fingerIndex: 6, template: FP_TEMPLATE }) },
    { id: '1003', text: enrollFingerCommand('1001', 7) },
    { id: '1004', text: checkCommand() },
  ];

  test('exact serialised bytes', () => {
    const batch = formatCommandBatch(queue, { maxCommands: 200, maxBytes: 40_000 });
    expect(batch.body).toBe(V08);
    expect(byteLength(batch.body)).toBe(377);
    expect(batch.included).toEqual(['1001', '1002', '1003', '1004']);
  });

  test('REBOOT is always last; what follows waits for the next poll', () => {
    const withReboot = [queue[0]!, { id: '1018', text: rebootCommand() }, queue[3]!];
    const batch = formatCommandBatch(withReboot, { maxCommands: 200, maxBytes: 40_000 });
    expect(batch.included).toEqual(['1001', '1018']);
    expect(batch.body.endsWith('C:1018:REBOOT\n')).toBe(true);
    expect(formatCommandBatch([{ id: 'r', text: 'REBOOT' }, queue[3]!], { maxCommands: 5, maxBytes: 999 }).included).toEqual(['r']);
  });

  test('caps: never more than maxCommands or maxBytes, but always at least one command', () => {
    expect(formatCommandBatch(queue, { maxCommands: 2, maxBytes: 40_000 }).included).toEqual(['1001', '1002']);
    const firstTwo = byteLength(V08.split('\n').slice(0, 2).join('\n') + '\n');
    expect(formatCommandBatch(queue, { maxCommands: 200, maxBytes: firstTwo }).included).toEqual(['1001', '1002']);
    expect(formatCommandBatch(queue, { maxCommands: 200, maxBytes: firstTwo - 1 }).included).toEqual(['1001']);
    expect(formatCommandBatch(queue, { maxCommands: 0, maxBytes: 1 }).included).toEqual(['1001']);
    expect(formatCommandBatch([], { maxCommands: 10, maxBytes: 10 })).toEqual({ body: '', included: [] });
  });

  test('other single-command lines', () => {
    const b64 = FP_TEMPLATE;
    expect(formatCommandLine('1010', deleteUserCommand('1001'))).toBe('C:1010:DATA DELETE USERINFO PIN=1001');
    expect(formatCommandLine('1011', deleteFingerCommand('1001', 6))).toBe('C:1011:DATA DELETE FINGERTMP PIN=1001\tFID=6');
    expect(deleteFingerCommand('1001')).toBe('DATA DELETE FINGERTMP PIN=1001');
    expect(formatCommandLine('1012', deleteBiodataCommand('1001', 9))).toBe('C:1012:DATA DELETE BIODATA Pin=1001\tType=9');
    expect(deleteBiodataCommand('1001')).toBe('DATA DELETE BIODATA Pin=1001');
    expect(deleteBiodataCommand('1001', 1, 6)).toBe('DATA DELETE BIODATA Pin=1001\tType=1\tNo=6');
    expect(() => deleteBiodataCommand('1001', undefined, 6)).toThrow(RangeError);
    // Security PUSH 3.x deletes: lower-case tables; BIODATA as ZKTeco's access-control push demo spells it.
    expect(formatCommandLine('1016', push3DeleteUserCommand('1001'))).toBe('C:1016:DATA DELETE user Pin=1001');
    expect(formatCommandLine('1017', push3DeleteTemplateCommand('1001', 6))).toBe('C:1017:DATA DELETE templatev10 pin=1001\tfingerid=6');
    expect(formatCommandLine('1018', push3DeleteBiodataCommand('1001', 9, 0))).toBe('C:1018:DATA DELETE biodata Type=9\tpin=1001\tno=0');
    expect(push3DeleteBiodataCommand('1001', 1, 6)).toBe('DATA DELETE biodata Type=1\tpin=1001\tno=6');
    expect(formatCommandLine('1013', biodataCommand({ pin: '1001', no: 0, type: 9, majorVer: '58', minorVer: 10, template: b64 }))).toBe(
      `C:1013:DATA UPDATE BIODATA Pin=1001\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=9\tMajorVer=58\tMinorVer=10\tFormat=0\tTmp=${b64}`,
    );
    expect(formatCommandLine('1014', enrollBioCommand('1001', 9))).toBe('C:1014:ENROLL_BIO TYPE=9\tPIN=1001\tCardNo=\tRETRY=3\tOVERWRITE=1');
    expect(enrollBioCommand('1001', 1, { no: 6, retry: 2, overwrite: 0 })).toBe('ENROLL_BIO TYPE=1\tPIN=1001\tNO=6\tCardNo=\tRETRY=2\tOVERWRITE=0');
    expect(formatCommandLine('1015', setOptionCommand('Delay', '10'))).toBe('C:1015:SET OPTION Delay=10');
    expect(formatCommandLine('1016', clearLogCommand())).toBe('C:1016:CLEAR LOG');
    expect(formatCommandLine('1017', infoCommand())).toBe('C:1017:INFO');
    expect(formatCommandLine('1018', rebootCommand())).toBe('C:1018:REBOOT');
    expect(formatCommandLine('info8487', infoCommand())).toBe('C:info8487:INFO');
    expect(isValidCommandId('info8487')).toBe(true);
    expect(isValidCommandId('a:b')).toBe(false);
    expect(isValidCommandId('x'.repeat(17))).toBe(false);
  });

  test('V11 and V12 poll responses', () => {
    expect(formatCommandBatch([{ id: '122', text: infoCommand() }], { maxCommands: 1, maxBytes: 100 }).body).toBe('C:122:INFO\n');
    const v12 = formatCommandBatch([{ id: 'Q20240311A', text: queryAttlogCommand('2024-03-11 00:00:00', '2024-03-11 23:59:59') }], {
      maxCommands: 200,
      maxBytes: 40_000,
    });
    expect(v12.body).toBe('C:Q20240311A:DATA QUERY ATTLOG StartTime=2024-03-11 00:00:00\tEndTime=2024-03-11 23:59:59\n');
    expect(byteLength(v12.body)).toBe(89);
  });

  test('values are sanitised: no TAB/LF/CR injection, name truncated on a character boundary', () => {
    const cmd = userInfoCommand({ pin: '1\n2', name: 'A\tB\r\nC', password: 'p\tw', card: '12\n3', group: 2, privilege: 14 });
    expect(cmd).toBe('DATA UPDATE USERINFO PIN=12\tName=ABC\tPri=14\tPasswd=pw\tCard=123\tGrp=2\tTZ=0000000100000000\tVerify=0\tViceCard=');
    expect(formatCommandLine('7', 'CHECK\nC:8:REBOOT')).toBe('C:7:CHECKC:8:REBOOT');
    expect(userInfoCommand({ pin: '1', name: '张三张三张三张三张三' })).toContain('Name=张三张三张三张三\t');
    expect(truncateUtf8('Ana Pérez Ana Pérez Ana Pérez', 24)).toBe('Ana Pérez Ana Pérez An');
    expect(truncateUtf8('Pe\u0301rez', 2)).toBe('P');
    expect(truncateUtf8('Pe\u0301rez', 4)).toBe('Pe\u0301');
    expect(byteLength(truncateUtf8('😀😀😀😀😀😀😀', 24))).toBe(24);
    expect(() => fingerTemplateCommand({ pin: '1', fingerIndex: 1.5, template: 'abcd' })).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------- V09 / V10 / V11 / V12: devicecmd

describe('devicecmd replies', () => {
  test('V09 two one-line results', () => {
    const { results, errors } = parseDeviceCmdBody('ID=1001&Return=0&CMD=DATA\nID=1002&Return=0&CMD=DATA\n');
    expect(errors).toEqual([]);
    expect(results).toEqual([
      { id: '1001', returnCode: 0, cmd: 'DATA', fields: {} },
      { id: '1002', returnCode: 0, cmd: 'DATA', fields: {} },
    ]);
  });

  test.each([
    ['ID=1002&Return=-9&CMD=DATA\n', '1002', -9, 'DATA'],
    ['ID=1002&Return=-11&CMD=DATA\n', '1002', -11, 'DATA'],
    ['ID=1010&Return=-10&CMD=DATA\n', '1010', -10, 'DATA'],
    ['ID=1014&Return=-1002&CMD=ENROLL_BIO\n', '1014', -1002, 'ENROLL_BIO'],
    ['ID=1013&Return=-30&CMD=DATA\n', '1013', -30, 'DATA'],
    ['ID=1003&Return=0&CMD=ENROLL_FP\n', '1003', 0, 'ENROLL_FP'], // V10a
    ['ID=1003&Return=6&CMD=ENROLL_FP\n', '1003', 6, 'ENROLL_FP'], // V10d
    ['ID=1004&Return=0&CMD=CHECK\n', '1004', 0, 'CHECK'], // V10e
    ['ID=Q20240311A&Return=0&CMD=DATA\n', 'Q20240311A', 0, 'DATA'], // V12
    ['ID=info8487&Return=0&CMD=INFO', 'info8487', 0, 'INFO'], // alphanumeric, no trailing LF
  ])('V09/V10/V12 %j', (body, id, returnCode, cmd) => {
    expect(parseDeviceCmdBody(body)).toEqual({ results: [{ id, returnCode, cmd, fields: {} }], errors: [] });
  });

  test('V10 ENROLL_FP other return codes', () => {
    for (const code of [2, 4, 5, 7]) {
      expect(parseDeviceCmdBody(`ID=1003&Return=${code}&CMD=ENROLL_FP\n`).results[0]?.returnCode).toBe(code);
    }
  });

  test('V10b the template upload after enrollment', () => {
    const [fp] = only(parseOperlog(V10B).records, 'FP');
    expect(fp).toMatchObject({ pin: '1001', fingerIndex: 7, size: 128, sizeMatches: true, templateBytes: 96 });
  });

  test('V11 INFO multi-line reply', () => {
    const { results, errors } = parseDeviceCmdBody(V11);
    expect(errors).toEqual([]);
    expect(results).toHaveLength(1);
    const [info] = results;
    expect(info).toMatchObject({ id: '122', returnCode: 0, cmd: 'INFO' });
    expect(info?.content).toBeUndefined();
    expect(info?.fields).toMatchObject({ FPVersion: '10', '~ZKFPVersion': '10', FaceVersion: '7', UserCount: '143', '~DSTF': '1', '~DeviceName': 'MB360/ID' });
    expect(Object.keys(info?.fields ?? {})).toHaveLength(23);
  });

  test('Shell multi-line form', () => {
    expect(parseDeviceCmdBody('ID=32\nReturn=0\nCMD=Shell\nContent=Tue Mar 24 16:12:26 GMT 2026\n')).toEqual({
      results: [{ id: '32', returnCode: 0, cmd: 'Shell', fields: {}, content: 'Tue Mar 24 16:12:26 GMT 2026' }],
      errors: [],
    });
  });

  test('Content is greedy up to the next ID=, then results continue', () => {
    const body = 'ID=33\r\nReturn=0\r\nCMD=Shell\r\nFILENAME=shellout.txt\r\nContent=line 1\r\n\r\nline=3\r\nID=34&Return=-1002&CMD=DATA\r\n';
    expect(parseDeviceCmdBody(body)).toEqual({
      results: [
        { id: '33', returnCode: 0, cmd: 'Shell', fields: { FILENAME: 'shellout.txt' }, content: 'line 1\n\nline=3' },
        { id: '34', returnCode: -1002, cmd: 'DATA', fields: {} },
      ],
      errors: [],
    });
  });

  test('VERIFY SUM extra keys, garbled return, lines outside a result', () => {
    const body = 'OK\nID=5&Return=0&CMD=VERIFY SUM&StartTime=2024-03-11 00:00:00&AttLogSum=12\nID=&Return=0\nID=6&Return=abc&CMD=DATA\nnot a pair\n';
    const { results, errors } = parseDeviceCmdBody(body);
    expect(results).toEqual([
      { id: '5', returnCode: 0, cmd: 'VERIFY SUM', fields: { StartTime: '2024-03-11 00:00:00', AttLogSum: '12' } },
      { id: '6', returnCode: null, cmd: 'DATA', fields: {} },
    ]);
    expect(errors.map((e) => e.line)).toEqual([1, 3, 5]);
  });
});

// ---------------------------------------------------------------- option block

describe('buildOptionBlock', () => {
  test('recommended block for a 2.4.1 device in India', () => {
    const block = buildOptionBlock({ sn: 'CKJF201960996', pushver: '2.4.1', timeZoneMinutes: 330, serverVersion: '2.4.1' });
    expect(block).toBe(
      [
        'GET OPTION FROM: CKJF201960996',
        'ATTLOGStamp=9999',
        'OPERLOGStamp=9999',
        'ATTPHOTOStamp=9999',
        'BIODATAStamp=9999',
        'ErrorDelay=30',
        'Delay=10',
        'TransTimes=00:00;14:05',
        'TransInterval=1',
        'TransFlag=TransData AttLog\tOpLog\tAttPhoto\tEnrollUser\tChgUser\tEnrollFP\tChgFP\tFPImag\tFACE\tUserPic\tWORKCODE\tBioPhoto',
        'TimeZone=330',
        'Realtime=1',
        'Encrypt=None',
        'ServerVer=2.4.1',
        'PushProtVer=2.4.1',
        'PushOptionsFlag=1',
        'MultiBioDataSupport=0:1:0:0:0:0:0:0:0:0',
        '',
      ].join('\n'),
    );
  });

  test('legacy device: both stamp sets, PushProtVer 2.2.14', () => {
    const block = buildOptionBlock({ sn: '0234567890123', timeZoneMinutes: 330, serverVersion: 'x', delaySeconds: 5, errorDelaySeconds: 60, realtime: false });
    for (const line of ['Stamp=9999', 'OpStamp=9999', 'PhotoStamp=9999', 'ATTLOGStamp=9999', 'PushProtVer=2.2.14', 'Delay=5', 'ErrorDelay=60', 'Realtime=0']) {
      expect(block.split('\n')).toContain(line);
    }
  });

  test('PushProtVer is the lower of device and server', () => {
    expect(negotiatePushVersion('2.4.0')).toBe('2.4.0');
    expect(negotiatePushVersion('2.4.2')).toBe('2.4.1');
    expect(negotiatePushVersion('3.1.2')).toBe('2.4.1');
    expect(negotiatePushVersion('2.10.0')).toBe('2.4.1');
    expect(negotiatePushVersion(undefined)).toBe('2.2.14');
    expect(negotiatePushVersion('garbage')).toBe('2.2.14');
  });

  test('TimeZone in minutes; ±60 sent as hours because 13..60 is undefined on the device', () => {
    expect(timeZoneOptionValue(330)).toBe(330);
    expect(timeZoneOptionValue(-180)).toBe(-180);
    expect(timeZoneOptionValue(60)).toBe(1);
    expect(timeZoneOptionValue(-60)).toBe(-1);
    expect(timeZoneOptionValue(0)).toBe(0);
    const berlin = buildOptionBlock({
      sn: 'S',
      pushver: '2.4.1',
      serverVersion: 'v',
      timeZoneMinutes: timeZoneOffsetMinutes('Europe/Berlin', new Date('2024-01-15T12:00:00Z')),
    });
    expect(berlin).toContain('\nTimeZone=1\n');
  });

  test('SN cannot inject lines', () => {
    expect(buildOptionBlock({ sn: 'A\nB', pushver: '2.4.1', timeZoneMinutes: 0, serverVersion: 'v' }).startsWith('GET OPTION FROM: AB\n')).toBe(true);
  });
});

// ---------------------------------------------------------------- time

describe('time zones and DST', () => {
  test('offsets', () => {
    expect(timeZoneOffsetMinutes('Asia/Kolkata', new Date('2024-03-11T00:00:00Z'))).toBe(330);
    expect(timeZoneOffsetMinutes('America/New_York', new Date('2024-01-15T12:00:00Z'))).toBe(-300);
    expect(timeZoneOffsetMinutes('America/New_York', new Date('2024-07-15T12:00:00Z'))).toBe(-240);
    expect(timeZoneOffsetMinutes('Australia/Lord_Howe', new Date('2024-01-15T12:00:00Z'))).toBe(660);
    expect(timeZoneOffsetMinutes('Australia/Lord_Howe', new Date('2024-07-15T12:00:00Z'))).toBe(630);
    expect(timeZoneOffsetMinutes('UTC', new Date('2024-07-15T12:00:00Z'))).toBe(0);
    expect(() => timeZoneOffsetMinutes('Mars/Olympus_Mons', new Date())).toThrow(RangeError);
  });

  test('isValidTimeZone', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    // Offsets Intl takes are no IANA names; Etc/GMT-2 is the name of UTC+2.
    for (const offset of ['+02:00', '+05:30', '-0800', '+02', 'UTC+2', 'GMT+2', 'Z']) expect(isValidTimeZone(offset)).toBe(false);
    expect(isValidTimeZone('Etc/GMT-2')).toBe(true);
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('+02:00')).toBeNull();
  });

  test('usableZoneOrUtc: a zone Intl computes with is kept (a stored offset too), any other is UTC', () => {
    expect(usableZoneOrUtc('Europe/Berlin')).toBe('Europe/Berlin');
    expect(usableZoneOrUtc('+02:00')).toBe('+02:00');
    for (const unusable of ['', '  ', 'Mars/Olympus_Mons']) expect(usableZoneOrUtc(unusable)).toBe('UTC');
  });

  const cases: [string, string, string, number, 'exact' | 'gap' | 'overlap'][] = [
    // zone, wall time, expected UTC, offset used, resolution
    ['Europe/Berlin', '2024-01-15 09:00:00', '2024-01-15T08:00:00.000Z', 60, 'exact'],
    ['Europe/Berlin', '2024-07-15 09:00:00', '2024-07-15T07:00:00.000Z', 120, 'exact'],
    ['Europe/Berlin', '2024-03-31 02:30:00', '2024-03-31T01:30:00.000Z', 60, 'gap'], // shows 03:30 CEST
    ['Europe/Berlin', '2024-10-27 02:30:00', '2024-10-27T00:30:00.000Z', 120, 'overlap'], // first occurrence
    ['Europe/Berlin', '2024-10-27 03:00:00', '2024-10-27T02:00:00.000Z', 60, 'exact'],
    ['America/New_York', '2024-03-10 02:30:00', '2024-03-10T07:30:00.000Z', -300, 'gap'],
    ['America/New_York', '2024-11-03 01:30:00', '2024-11-03T05:30:00.000Z', -240, 'overlap'],
    ['Australia/Lord_Howe', '2024-10-06 02:15:00', '2024-10-05T15:45:00.000Z', 630, 'gap'],
    ['Australia/Lord_Howe', '2024-04-07 01:45:00', '2024-04-06T14:45:00.000Z', 660, 'overlap'],
    ['Australia/Lord_Howe', '2024-04-07 02:00:00', '2024-04-06T15:30:00.000Z', 630, 'exact'],
    ['Asia/Kolkata', '2024-03-11 08:59:12', '2024-03-11T03:29:12.000Z', 330, 'exact'],
    ['UTC', '2024-03-31 02:30:00', '2024-03-31T02:30:00.000Z', 0, 'exact'],
  ];
  test.each(cases)('%s %s', (zone, wall, utc, offset, resolution) => {
    const r = localWallTimeToUtc(wall, zone);
    expect(r?.utc.toISOString()).toBe(utc);
    expect(r?.offsetMinutes).toBe(offset);
    expect(r?.resolution).toBe(resolution);
  });

  test('gap result shows the shifted wall time; overlap round-trips', () => {
    expect(formatLocalWallTime(localWallTimeToUtc('2024-03-31 02:30:00', 'Europe/Berlin')!.utc, 'Europe/Berlin')).toBe('2024-03-31 03:30:00');
    expect(formatLocalWallTime(localWallTimeToUtc('2024-10-06 02:15:00', 'Australia/Lord_Howe')!.utc, 'Australia/Lord_Howe')).toBe('2024-10-06 02:45:00');
    expect(formatLocalWallTime(new Date('2024-11-03T05:30:00Z'), 'America/New_York')).toBe('2024-11-03 01:30:00');
    expect(formatLocalWallTime(new Date('2024-11-03T06:30:00Z'), 'America/New_York')).toBe('2024-11-03 01:30:00');
  });

  test('invalid input gives null', () => {
    expect(localWallTimeToUtc('2024-02-30 00:00:00', 'UTC')).toBeNull();
    expect(localWallTimeToUtc('2024-03-11 08:59:12', 'Nowhere/Land')).toBeNull();
  });

  test('formatHttpDate is RFC 1123 GMT', () => {
    expect(formatHttpDate(new Date(Date.UTC(2020, 5, 23, 5, 20, 9)))).toBe('Tue, 23 Jun 2020 05:20:09 GMT');
    expect(formatHttpDate(new Date(Date.UTC(2024, 2, 11, 3, 29, 0)))).toBe('Mon, 11 Mar 2024 03:29:00 GMT');
    expect(() => formatHttpDate(new Date(NaN))).toThrow(RangeError);
  });

  test('V24 3.x clock: 583050990 ↔ 2018-02-22 06:36:30', () => {
    expect(decodePush3DateTime(583050990)).toEqual({ year: 2018, month: 2, day: 22, hour: 6, minute: 36, second: 30 });
    expect(encodePush3DateTime({ year: 2018, month: 2, day: 22, hour: 6, minute: 36, second: 30 })).toBe(583050990);
    expect(formatCommandLine('3', `SET OPTIONS DateTime=${encodePush3DateTime({ year: 2018, month: 2, day: 22, hour: 6, minute: 36, second: 30 })}`)).toBe(
      'C:3:SET OPTIONS DateTime=583050990',
    );
    expect(decodePush3DateTime(-1)).toBeNull();
    expect(decodePush3DateTime(1.5)).toBeNull();
    expect(decodePush3DateTime(encodePush3DateTime({ year: 2018, month: 2, day: 30, hour: 0, minute: 0, second: 0 }))).toBeNull();
  });
});

// ---------------------------------------------------------------- 3.x tables

describe('Security PUSH 3.x tables', () => {
  test('rtlog maps onto the ATTLOG shape', () => {
    const body =
      'time=2024-03-11 08:59:12\tpin=1001\tcardno=0\tsitecode=0\tlinkid=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=15\tindex=7\n' +
      'time=2024-03-11 09:00:00\tpin=0\tevent=8\tinoutstatus=1\tverifytype=200\n' +
      'pin=1002\tevent=0\n' +
      'time=2024-03-11 09:00:00\tpin=1003\tinoutstatus=x\tverifytype=FP\n' +
      `time=2024-03-11 09:00:00\tpin=1004\tinoutstatus=${'x'.repeat(9)}\n`;
    const { records, errors } = parseRtlog(body);
    expect(records[0]).toMatchObject({ pin: '1001', localTime: '2024-03-11 08:59:12', state: 0, verifyType: 15, workCode: '', event: 0, extra: [] });
    expect(records[0]?.fields).toMatchObject({ eventaddr: '1', index: '7' });
    expect(records[1]).toMatchObject({ pin: '0', state: 1, verifyType: 200, event: 8 });
    // A word for a state or a verify mode keeps the punch (as 0, flagged), as on an ATTLOG line.
    expect(records[2]).toMatchObject({ pin: '1003', state: 0, stateUnknown: true, verifyType: 0, verifyUnknown: true });
    expect(errors.map((e) => [e.line, e.reason])).toEqual([
      [3, 'invalid or missing time ""'],
      [5, `unreadable inoutstatus "${'x'.repeat(9)}"`],
    ]);
  });

  test('tabledata lines', () => {
    const { records, errors } = parseTabledata(
      'user uid=1\tcardno=\tpin=1001\tpassword=\tgroup=1\tstarttime=0\tendtime=0\tname=Ana\tprivilege=0\ntemplatev10 pin=1001\tfingerid=6\tsize=4\ttemplate=abcd\nnofields\n=x\n',
    );
    expect(records.map((r) => r.table)).toEqual(['user', 'templatev10']);
    expect(records[0]?.fields).toMatchObject({ pin: '1001', name: 'Ana', cardno: '' });
    expect(errors.map((e) => e.line)).toEqual([3, 4]);
  });
});

// ---------------------------------------------------------------- V14: ATTPHOTO

describe('V14 ATTPHOTO', () => {
  test('split at the first NUL; image bytes are bit-exact', () => {
    const jpeg = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x00, 0xc3, 0x28, 0xff, 0xd9];
    const body = bytesOf(`PIN=20240311085912-1001.jpg\nSN=CKJF201960996\nsize=${jpeg.length}\nCMD=uploadphoto`, [0], jpeg);
    const photo = parseAttPhoto(body);
    expect(photo?.headers).toEqual({ PIN: '20240311085912-1001.jpg', SN: 'CKJF201960996', size: String(jpeg.length), CMD: 'uploadphoto' });
    expect(Array.from(photo?.image ?? [])).toEqual(jpeg);
    expect(Number(photo?.headers['size'])).toBe(photo?.image.length ?? -1);
    expect(parseAttPhotoFileName(photo?.headers['PIN'] ?? '')).toEqual({ localTime: '2024-03-11 08:59:12', pin: '1001' });
  });

  test('no NUL → null; bad file names → null', () => {
    expect(parseAttPhoto(utf8('PIN=x.jpg\nSN=1'))).toBeNull();
    expect(parseAttPhotoFileName('20240230085912-1001.jpg')).toBeNull();
    expect(parseAttPhotoFileName('photo.jpg')).toBeNull();
  });
});

// ---------------------------------------------------------------- small helpers

describe('helpers', () => {
  test('card numbers', () => {
    expect(decodeCardNumber('[15CD5B07]')).toBe('123456789');
    expect(decodeCardNumber('[15cd5b0700]')).toBe('123456789');
    expect(decodeCardNumber('123456789')).toBe('123456789');
    expect(decodeCardNumber('')).toBe('');
    expect(decodeCardNumber('[15CD5B0]')).toBe('');
    expect(decodeCardNumber('abc')).toBe('');
  });

  test('device keys such as __proto__ or toString stay plain data', () => {
    const [user] = only(parseOperlog('USER PIN=1\t__proto__=x\ttoString=y\tconstructor=z\n').records, 'USER');
    expect(Object.keys(user?.fields ?? {})).toEqual(['PIN', '__proto__', 'toString', 'constructor']);
    expect(user?.fields['toString']).toBe('y');
    expect(user?.name).toBe('');
    const opts = parseOptionsBody('__proto__=1,hasOwnProperty=2');
    expect(Object.keys(opts)).toEqual(['__proto__', 'hasOwnProperty']);
    expect(parseOptionsBody('valueOf=')['valueOf']).toBe('');
    expect(parseOptionsBody('A=1')['toString']).toBeUndefined();
  });

  test('base64 validation', () => {
    expect(isValidBase64(FP_TEMPLATE)).toBe(true);
    expect(isValidBase64('abc=')).toBe(true);
    expect(isValidBase64('abc')).toBe(true);
    expect(isValidBase64('a')).toBe(false);
    expect(isValidBase64('ab=c')).toBe(false);
    expect(isValidBase64('ab c')).toBe(false);
    expect(guessFingerprintAlgorithm(Buffer.from([0xa1, 0xca, 1, 2, 3, 4]).toString('base64'))).toBe('v9');
    expect(guessFingerprintAlgorithm('')).toBeNull();
  });
});
