import { sanitizeValue } from './commands';
import { negotiatePushVersion } from './push-version';

/** Named TransFlag ([ATT] says servers should prefer it to the bit string); the separators are TABs. */
export const TRANS_FLAG = [
  'AttLog',
  'OpLog',
  'AttPhoto',
  'EnrollUser',
  'ChgUser',
  'EnrollFP',
  'ChgFP',
  'FPImag',
  'FACE',
  'UserPic',
  'WORKCODE',
  'BioPhoto',
].join('\t');

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
  const legacy = o.pushver === undefined || o.pushver.trim() === '';
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
    `TransFlag=TransData ${TRANS_FLAG}`,
    `TimeZone=${timeZoneOptionValue(o.timeZoneMinutes)}`,
    `Realtime=${o.realtime === false ? 0 : 1}`,
    'Encrypt=None',
    `ServerVer=${sanitizeValue(o.serverVersion)}`,
    `PushProtVer=${negotiatePushVersion(o.pushver)}`,
    'PushOptionsFlag=1',
    `MultiBioDataSupport=${sanitizeValue(o.multiBioDataSupport ?? DEFAULT_MULTI_BIO_DATA_SUPPORT)}`,
  ];
  return lines.map((l) => `${l}\n`).join('');
}
