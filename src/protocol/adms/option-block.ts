import { sanitizeValue } from './commands';
import { negotiatePushVersion } from './push-version';

/** The data kinds a terminal is asked to push, by name. */
const TRANS_FLAG_KINDS = ['AttLog', 'OpLog', 'AttPhoto', 'EnrollUser', 'ChgUser', 'EnrollFP', 'ChgFP', 'FPImag', 'FACE', 'UserPic', 'WORKCODE', 'BioPhoto'];

/** Named TransFlag ([ATT] says servers should prefer it to the bit string); the separators are TABs. */
export const TRANS_FLAG = TRANS_FLAG_KINDS.join('\t');

/** The positions of the TransFlag bit string ([ATT] §2.1): position 1 is AttLog, 12 is BioPhoto. */
const TRANS_FLAG_BITS = ['AttLog', 'OpLog', 'AttPhoto', 'EnrollFP', 'EnrollUser', 'FPImag', 'ChgUser', 'ChgFP', 'FACE', 'UserPic', 'WORKCODE', 'BioPhoto'];

/**
 * The same kinds as TRANS_FLAG in the bit-string form (`111111111111`): Security PUSH 3.x
 * firmware (a SenseFace 2A in access mode) and pre-2.0 firmware read only this form, and a
 * terminal that cannot read its TransFlag transmits nothing.
 */
export const TRANS_FLAG_BITSTRING = TRANS_FLAG_BITS.map((kind) => (TRANS_FLAG_KINDS.includes(kind) ? '1' : '0')).join('');

/**
 * The parameters a Security PUSH terminal is asked to upload (`PushOptions=`): 3.3.x firmware
 * uploads `table=options` only with this list, and only the keys named. These are the ones the
 * service reads (devices/reports.ts, biometrics kinds, the capability list of DeviceService)
 * and those shown to identify a terminal.
 */
export const PUSH_OPTIONS = [
  '~DeviceName',
  'MAC',
  'FWVersion',
  'PushVersion',
  'IPAddress',
  'Language',
  'UserCount',
  '~MaxUserCount',
  'TransactionCount',
  'FingerFunOn',
  'FPVersion',
  '~ZKFPVersion',
  'FPCount',
  '~MaxFingerCount',
  'FaceFunOn',
  'FaceVersion',
  'FaceCount',
  '~MaxFaceCount',
  'VisilightFun',
  'PvFunOn',
  'PvVersion',
  'FvFunOn',
  'FvVersion',
  'BioDataFun',
  'BioPhotoFun',
  'MultiBioDataSupport',
  'MultiBioVersion',
].join(',');

/** Accept fingerprint BIODATA (type 1) only; the device still sends palm/face, which we tolerate. */
export const DEFAULT_MULTI_BIO_DATA_SUPPORT = '0:1:0:0:0:0:0:0:0:0';

/**
 * The device reads `TimeZone` as hours when −12 < v < 12 and as minutes when |v| > 60; 13..60 is
 * undefined (§7). Minutes are sent, except for ±60 (UTC±1), which only hours express unambiguously.
 */
export function timeZoneOptionValue(offsetMinutes: number): number {
  const m = Math.round(offsetMinutes);
  return Math.abs(m) === 60 ? m / 60 : m;
}

export interface OptionBlockInput {
  sn: string;
  /** The device's `pushver`; absent on pre-2.0 firmware, which also gets the legacy stamp names. */
  pushver?: string;
  /**
   * The terminal speaks Security PUSH 3.x (its `pushver`, or what it declared at `registry`):
   * TransFlag as a bit string, `Encrypt=0`, and the `PushOptions` it is to upload.
   */
  securityPush?: boolean;
  /** Current UTC offset of the site's zone (use timeZoneOffsetMinutes at handshake time). */
  timeZoneMinutes: number;
  /** Poll interval; [ATT] recommends 2–60. */
  delaySeconds?: number;
  /** Retry delay after an error; [ATT] recommends 30–300. */
  errorDelaySeconds?: number;
  serverVersion: string;
  /** 1 = push each record as it happens (default). */
  realtime?: boolean;
  multiBioDataSupport?: string;
}

/**
 * Handshake reply (§2.1): `GET OPTION FROM: <SN>` then `Key=Value` lines, LF after every line.
 * Stamps are 9999: modern firmware ignores them, and 0 would ask for a full re-upload.
 */
export function buildOptionBlock(o: OptionBlockInput): string {
  const legacy = !o.securityPush && (o.pushver === undefined || o.pushver.trim() === '');
  // 2.x reads the named TransFlag; 3.x and pre-2.0 firmware read only the bit string. `0` means
  // no encryption everywhere ([ATT] §2.1); 3.3.x firmware does not read `None` as off.
  const bitString = o.securityPush === true || legacy;
  const lines = [
    `GET OPTION FROM: ${sanitizeValue(o.sn)}`,
    'ATTLOGStamp=9999',
    'OPERLOGStamp=9999',
    'ATTPHOTOStamp=9999',
    'BIODATAStamp=9999',
    ...(legacy ? ['Stamp=9999', 'OpStamp=9999', 'PhotoStamp=9999'] : []),
    `ErrorDelay=${o.errorDelaySeconds ?? 30}`,
    `Delay=${o.delaySeconds ?? 10}`,
    'TransTimes=00:00;14:05',
    'TransInterval=1',
    bitString ? `TransFlag=${TRANS_FLAG_BITSTRING}` : `TransFlag=TransData ${TRANS_FLAG}`,
    `TimeZone=${timeZoneOptionValue(o.timeZoneMinutes)}`,
    `Realtime=${o.realtime === false ? 0 : 1}`,
    bitString ? 'Encrypt=0' : 'Encrypt=None',
    `ServerVer=${sanitizeValue(o.serverVersion)}`,
    `PushProtVer=${negotiatePushVersion(o.pushver)}`,
    'PushOptionsFlag=1',
    // 3.x names the poll interval RequestDelay and the uploaded tables TransTables ([SEC] §4.1).
    ...(o.securityPush ? [`PushOptions=${PUSH_OPTIONS}`, `RequestDelay=${o.delaySeconds ?? 10}`, 'TransTables=User Transaction'] : []),
    `MultiBioDataSupport=${sanitizeValue(o.multiBioDataSupport ?? DEFAULT_MULTI_BIO_DATA_SUPPORT)}`,
  ];
  return lines.map((l) => `${l}\n`).join('');
}
