/**
 * What terminals say about themselves (getrequest `INFO=`, `table=options`, the INFO command
 * reply, the 3.x registry body), mapped onto one DeviceReport for devices.reports.recordReport.
 */

import { isIP } from 'node:net';
import { createDict, type DeviceInfo, type Dict, parameterValue, parseIntStrict } from '../../protocol/adms';
import { type DeviceReport, type DeviceRow, nextParameters, type ParameterMode, sameParameters } from '../devices';

function first(d: Dict, ...keys: string[]): string | null {
  for (const k of keys) {
    const v = d[k]?.trim();
    if (v) return v;
  }
  return null;
}

function count(d: Dict, ...keys: string[]): number | null {
  const n = parseIntStrict(first(d, ...keys) ?? undefined);
  return n !== null && n >= 0 ? n : null;
}

/** An address the terminal reports of itself, when it is one (`999.1.1.1` from a garbled INFO is not). */
function addressOf(value: string | null | undefined): string | null {
  const v = value?.trim();
  return v && isIP(v) !== 0 ? v : null;
}

/**
 * BIODATA is how templates must travel when the terminal accepts fingerprint BIODATA
 * (`MultiBioDataSupport` with a 1 at index 1, or `BioDataFun=1`) or its algorithm is above 10.
 * Undefined when the parameters say nothing either way.
 */
export function speaksBiodataFrom(d: Dict): boolean | undefined {
  const multi = d.MultiBioDataSupport?.trim();
  const fun = d.BioDataFun?.trim();
  const fp = Number.parseFloat(first(d, 'FPVersion', '~ZKFPVersion') ?? '');
  if ((multi && multi.split(':')[1] === '1') || fun === '1' || (Number.isFinite(fp) && fp > 10)) return true;
  if (multi || fun) return false;
  return undefined;
}

/** The parameters with their values as parameterValue reads them: an INFO reply's `UserCount=7\0` is 7. */
function cleaned(sent: Dict): Dict {
  const d = createDict();
  for (const [key, value] of Object.entries(sent)) d[key] = parameterValue(value);
  return d;
}

/**
 * Key-value parameters → report. A options body or registry is the terminal's full list
 * (`replace`); an INFO reply adds to it (`merge`). Values lose NULs and surrounding spaces.
 */
export function reportFromParameters(sent: Dict, mode: ParameterMode): DeviceReport {
  const d = cleaned(sent);
  const report: DeviceReport = {
    firmware: first(d, 'FWVersion', 'FirmVer', '~FirmVer'),
    userCount: count(d, 'UserCount'),
    fingerprintCount: count(d, 'FPCount'),
    attendanceCount: count(d, 'TransactionCount'),
    reportedAddress: addressOf(first(d, 'IPAddress', '~IPAddress')),
    algorithmVersion: first(d, 'FPVersion', '~ZKFPVersion', '~AlgVer'),
    faceAlgorithmVersion: first(d, 'FaceVersion'),
    parameters: { ...d },
    parametersMode: mode,
  };
  const biodata = speaksBiodataFrom(d);
  if (biodata !== undefined) report.speaksBiodata = biodata;
  return report;
}

/** getrequest `INFO=` → report. */
export function reportFromInfo(info: DeviceInfo): DeviceReport {
  const report: DeviceReport = {
    firmware: info.fwVersion,
    userCount: info.userCount,
    fingerprintCount: info.fpCount,
    attendanceCount: info.attLogCount,
    reportedAddress: addressOf(info.ip),
    algorithmVersion: info.fpAlgVersion,
    faceAlgorithmVersion: info.faceAlgVersion,
  };
  const fp = Number.parseFloat(info.fpAlgVersion ?? '');
  if (Number.isFinite(fp) && fp > 10) report.speaksBiodata = true;
  return report;
}

/**
 * Whether recording the report would change the device row: INFO rides on polls, the hottest
 * path, so an unchanged report costs no write.
 */
export function reportChanges(device: DeviceRow, r: DeviceReport): boolean {
  const differs = <T>(value: T | null | undefined, current: T | null) => value !== undefined && value !== null && value !== '' && value !== current;
  if (differs(r.firmware, device.firmware)) return true;
  if (differs(r.userCount, device.userCount)) return true;
  if (differs(r.fingerprintCount, device.fingerprintCount)) return true;
  if (differs(r.attendanceCount, device.attendanceCount)) return true;
  if (differs(r.reportedAddress, device.reportedAddress)) return true;
  if (differs(r.faceAlgorithmVersion, device.faceAlgorithmVersion)) return true;
  if (device.algorithmSource !== 'admin' && differs(r.algorithmVersion, device.algorithmVersion)) return true;
  if (r.speaksBiodata !== undefined && r.speaksBiodata !== device.speaksBiodata) return true;
  if (r.parameters && !sameParameters(nextParameters(device.parameters, r.parameters, r.parametersMode ?? 'merge'), device.parameters ?? {})) return true;
  if (r.clockOffsetMinutes !== undefined && r.clockOffsetMinutes !== device.clockOffsetMinutes) return true;
  if (differs(r.deviceType, device.deviceType) || differs(r.pushVersion, device.pushVersion)) return true;
  return false;
}
