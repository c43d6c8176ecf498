import { parameterValue, parseIntStrict } from './fields';

/**
 * The 10 comma-separated values of `getrequest?INFO=` (§2.3). Missing or garbled values are null:
 * this is informational and must never fail a poll.
 */
export interface DeviceInfo {
  fwVersion: string | null;
  userCount: number | null;
  fpCount: number | null;
  attLogCount: number | null;
  ip: string | null;
  /** Algorithm versions stay text (`10`, `58`): compared for equality, never as numbers. */
  fpAlgVersion: string | null;
  faceAlgVersion: string | null;
  faceTemplatesPerEnroll: number | null;
  faceCount: number | null;
  /** Left to right: fingerprint, face, user photo, bio-photo, visible-light face. */
  funcBits: string | null;
}

function text(value: string | undefined): string | null {
  const t = parameterValue(value ?? '');
  return t === '' ? null : t;
}

function count(value: string | undefined): number | null {
  const n = parseIntStrict(value === undefined ? undefined : parameterValue(value));
  return n !== null && n >= 0 ? n : null;
}

/** Parse the (already URL-decoded) INFO value. */
export function parseInfoParam(value: string): DeviceInfo {
  const p = value.split(',');
  const bits = text(p[9]);
  return {
    fwVersion: text(p[0]),
    userCount: count(p[1]),
    fpCount: count(p[2]),
    attLogCount: count(p[3]),
    ip: text(p[4]),
    fpAlgVersion: text(p[5]),
    faceAlgVersion: text(p[6]),
    faceTemplatesPerEnroll: count(p[7]),
    faceCount: count(p[8]),
    funcBits: bits !== null && /^[01]+$/.test(bits) ? bits : null,
  };
}
