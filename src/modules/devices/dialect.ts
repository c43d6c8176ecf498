/**
 * Which protocol dialect a terminal is spoken to in: Security PUSH 3.x (lower-case `user`
 * tables, `templatev10`, `SET OPTIONS`, the bit-string TransFlag) or attendance 2.x. It follows
 * what the terminal declared: a `pushver` of 3.x on its handshake, or `DeviceType=acc` /
 * `PushVersion=3.x` at `registry` (remembered on the device row), so an access-control terminal
 * whose handshake carries no 3.x `pushver` is not sent 2.x commands it rejects. And in which
 * format templates go to it (BIODATA or FINGERTMP).
 */
import { isSecurityPush } from '../../protocol/adms';
import type { DeviceRow } from './tables';

/** The DeviceType of a security (access-control) module ([SEC] §4.4). */
export const SECURITY_MODULE = 'acc';

export function speaksSecurityPush(device: Pick<DeviceRow, 'pushVersion' | 'deviceType'>): boolean {
  return device.deviceType === SECURITY_MODULE || isSecurityPush(device.pushVersion);
}

/**
 * Whether templates go to this terminal as BIODATA: it speaks BIODATA, or its fingerprint
 * algorithm (or the template's) is above 10; FINGERTMP carries only v10 and older.
 */
export function takesBiodata(device: DeviceRow, algorithmVersion: string | null): boolean {
  if (device.speaksBiodata) return true;
  return [device.algorithmVersion, algorithmVersion].some((v) => {
    const major = Number.parseFloat(v ?? '');
    return Number.isFinite(major) && major > 10;
  });
}
