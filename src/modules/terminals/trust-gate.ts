/**
 * What a terminal request may send and be sent, by its trust (devices/identity.ts) and its
 * terminal's status: the checks every endpoint makes before it reads a body.
 */
import { type DeviceContact, type DeviceRow, NEW_ADDRESS_FLAG, type Trust } from '../devices';
import { AdmsRefusal } from './reply';

/** Attendance tables: kept from an unconfirmed address, flagged `new_address`. */
export const PUNCH_TABLES = new Set(['ATTLOG', 'RTLOG']);

/** An approved terminal's request that is not trusted (an unconfirmed address, or no key under ADMS_TRUST=key). */
export function withheld(trust: Trust): boolean {
  return !trust.trusted && trust.basis !== 'not_approved';
}

/**
 * What a request records of the terminal's contact (devices.registration.touch): all of it, its
 * peer address included (`ip_address` is the address the service sees the terminal at, from every
 * request, not only from its handshake, which a terminal makes only when it starts), or nothing
 * when it is withheld (an unconfirmed address, no key under ADMS_TRUST=key): it then neither
 * changes the shown address nor counts as the terminal being seen (last seen, online, offline
 * alarms), so whoever read the serial off the label cannot keep a dead or stolen terminal online.
 * Its new address is still recorded for the diagnostics (devices/identity.ts).
 */
export function contactOf(req: { trust: Trust; ip: string | null }, contact: DeviceContact = {}): DeviceContact {
  return withheld(req.trust) ? { seen: false } : { peer: req.ip, ...contact };
}

/**
 * What only the approved terminal may send (users, templates, photos, command results, its
 * parameters) is refused from elsewhere, never acknowledged and dropped: the terminal keeps it and
 * sends it again once its address is confirmed or its key entered.
 */
export function trustedOnly(trust: Trust): void {
  if (!withheld(trust)) return;
  throw new AdmsRefusal(403, trust.basis === 'no_key' ? 'device key required' : 'device address not confirmed');
}

/**
 * The flags of punches a request carries: `new_address` from an unconfirmed address; under
 * ADMS_TRUST=key a terminal without a key is refused, so it keeps its punches until it has one.
 */
export function punchFlags(trust: Trust): string[] {
  if (trust.basis === 'no_key') throw new AdmsRefusal(403, 'device key required');
  return trust.newAddress ? [NEW_ADDRESS_FLAG] : [];
}

/** Data of a pending or disabled terminal is refused, never acknowledged and dropped. */
export function approved(device: DeviceRow): DeviceRow {
  if (device.status !== 'approved') throw new AdmsRefusal(403, `device ${device.status.replace('_', ' ')}`);
  return device;
}
