/**
 * Whether a terminal request comes from the terminal that was approved (docs/api.md, "Terminals:
 * identity"). A serial number is printed on the terminal's label: it names a terminal, it does
 * not prove one. A request is trusted with people's data (users, cards, templates) when:
 * - it presents a valid communication key (required on every request once one was issued,
 *   whatever the mode: keys.ts), from any address; or, for a terminal without a key,
 * - ADMS_TRUST=address (default): it comes from the address the terminal is pinned to: the one
 *   it was approved from (a pending terminal's pin follows it until approval), or for a terminal
 *   pre-registered by an administrator, or approved before this release, the first address it
 *   connects from. From another address its punches are still stored, flagged `new_address`, but
 *   it is sent nothing and nothing else it uploads is taken (refused, so the terminal keeps it),
 *   until an administrator confirms the new address (`POST devices/{sn}/confirm-address/`, naming
 *   the address checked); such a request does not count as the terminal being seen either
 *   (registration.ts `touch`, `seen: false`);
 * - ADMS_TRUST=key: never (a terminal without a key gets no people's data and its uploads are
 *   refused with 403, so it keeps its punches until it is given a key);
 * - ADMS_TRUST=serial: always (the first releases' behaviour, warning W006).
 */
import { and, eq, isNull, ne, or } from 'drizzle-orm';
import { BoundedMap } from '../../platform/bounded-map';
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { isIpAddress, sameAddress } from '../../platform/net/ip';
import { type AreaScope, EVERYWHERE } from '../../platform/scope';
import { audit } from '../audit';
import type { EventChannel } from '../events';
import type { DeviceEvents } from './events';
import type { KeyCheck } from './keys';
import type { DeviceRuntime } from './runtime';
import { refuseIfSharedTerminal } from './scope';
import { type DeviceRow, deviceEvents, devices } from './tables';

export type TrustMode = 'address' | 'key' | 'serial';

export interface Trust {
  /** May be sent people's data and have its uploads taken as the terminal's. */
  trusted: boolean;
  /** What decided: a key, the pinned address, the serial alone, or why not trusted. */
  basis: 'key' | 'address' | 'serial' | 'not_approved' | 'new_address' | 'no_key';
  /** ADMS_TRUST=address and an address other than the pinned one: its punches are flagged `new_address`. */
  newAddress: boolean;
}

/** Flag of punches from an address the terminal is not pinned to. */
export const NEW_ADDRESS_FLAG = 'new_address';

/** An IPv4 peer of a dual-stack listener shows as `::ffff:a.b.c.d`: one terminal, one address. */
export function normalAddress(ip: string | null): string | null {
  if (!ip) return null;
  const lower = ip.trim().toLowerCase();
  return lower.startsWith('::ffff:') && lower.includes('.') ? lower.slice(7) : lower;
}

/**
 * How long one terminal's new address is news once said: a sender alternating two addresses (or a
 * terminal behind a NAT with two public addresses) changed the unconfirmed address on every
 * request, and each change wrote a device log entry, an event and a warning. Kept per instance
 * (a few instances each say it once an hour): it decides only what is said, not what is trusted.
 */
const ADDRESS_NEWS_QUIET_MS = 3_600_000;
const MAX_ADDRESS_NEWS = 10_000;

/** A terminal's address in `addressNews`. */
const newsKey = (deviceId: string, ip: string) => `${deviceId} ${ip}`;

export class DeviceIdentity {
  /** `deviceId ip` → until when a change to that address is not said again. */
  private readonly addressNews = new BoundedMap<string, number>(MAX_ADDRESS_NEWS);

  constructor(
    private readonly ctx: DeviceRuntime,
    private readonly events: EventChannel<DeviceEvents>,
    private readonly get: (serial: string, q?: Queryable) => Promise<DeviceRow>,
    private readonly invalidate: (serial: string) => void,
  ) {}

  get mode(): TrustMode {
    return this.ctx.settings.ADMS_TRUST as TrustMode;
  }

  /**
   * The trust of one request for `device` (already found or registered), given what its keys
   * said (`invalid` is refused before this) and its source address.
   */
  async assess(device: DeviceRow, keys: KeyCheck, peer: string | null): Promise<Trust> {
    if (keys === 'valid') return { trusted: true, basis: 'key', newAddress: false };
    const ip = normalAddress(peer);
    if (device.status !== 'approved') {
      // Nothing goes to a pending terminal: its pin follows it, so it is pinned where it is approved from.
      if (device.status === 'pending_approval' && ip && ip !== device.pinnedIp) await this.pin(device, ip, null);
      return { trusted: false, basis: 'not_approved', newAddress: false };
    }
    if (this.mode === 'serial') return { trusted: true, basis: 'serial', newAddress: false };
    if (this.mode === 'key') return { trusted: false, basis: 'no_key', newAddress: false };
    if (device.pinnedIp === null) {
      // Pre-registered, or approved before addresses were pinned: the first address it connects from.
      if (ip) await this.pin(device, ip, 'pinned to the first address it connected from');
      return { trusted: true, basis: 'address', newAddress: false };
    }
    if (ip === device.pinnedIp) return { trusted: true, basis: 'address', newAddress: false };
    if (ip && ip !== device.unconfirmedIp) await this.unconfirmed(device, ip);
    return { trusted: false, basis: 'new_address', newAddress: true };
  }

  /**
   * `POST devices/{sn}/confirm-address/ {"address"}`: the address the administrator checked
   * becomes the pinned one; data flows to the terminal again from there (and no longer from the
   * old address). It must be the unconfirmed address at this moment: every request from a new
   * address replaces it, so confirming "whatever it holds now" would pin a stranger who sent a
   * request for the serial between the check and the click (409, nothing changed).
   */
  async confirmAddress(serial: string, address: string, by: string, scope: AreaScope = EVERYWHERE): Promise<DeviceRow> {
    if (!isIpAddress(address)) throw new FpaError('validation_error', 'address must be an IPv4 or IPv6 address', { field: 'address' });
    const row = await this.ctx.db.write(async ({ tx }) => {
      const now = this.ctx.clock.now();
      const device = await this.get(serial, tx);
      // The pinned address is sent every area's people the terminal serves: its areas' administrators all decide.
      await refuseIfSharedTerminal(tx, device.id, scope, 'confirm the address of');
      const current = device.unconfirmedIp;
      if (!current || !sameAddress(current, address)) {
        const message = current
          ? `the terminal's unconfirmed address is now ${current}, not ${address}: check it again before confirming`
          : 'no unconfirmed address to confirm';
        throw new FpaError('conflict', message, { serial_number: serial, address, unconfirmed_address: current });
      }
      const set = { pinnedIp: current, unconfirmedIp: null, unconfirmedIpAt: null, updatedAt: now };
      await tx.update(devices).set(set).where(eq(devices.id, device.id));
      const details = { from: device.pinnedIp, to: current };
      await tx.insert(deviceEvents).values({
        deviceId: device.id,
        kind: 'address_confirmed',
        message: `new address ${current} confirmed by ${by}`,
        details,
        createdAt: now,
      });
      await audit(tx, now, { actor: by, action: 'device.address_confirmed', targetType: 'device', targetId: serial, details });
      return { ...device, ...set };
    });
    this.invalidate(serial);
    return row;
  }

  private async pin(device: DeviceRow, ip: string, note: string | null): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      // Only while it is still unpinned (approved) or pending: another instance may have pinned it meanwhile.
      const updated = await tx
        .update(devices)
        .set({ pinnedIp: ip })
        .where(and(eq(devices.id, device.id), or(isNull(devices.pinnedIp), eq(devices.status, 'pending_approval'))))
        .returning({ id: devices.id });
      if (note && updated.length > 0) {
        await tx.insert(deviceEvents).values({ deviceId: device.id, kind: 'address_pinned', message: `${note}: ${ip}`, details: { ip }, createdAt: now });
      }
    });
    this.invalidate(device.serialNumber);
  }

  /**
   * Recorded once per new address (not on every poll): the device view shows it until confirmed.
   * The change is said (device log, event, warning) once an hour per address (isNews).
   */
  private async unconfirmed(device: DeviceRow, ip: string): Promise<void> {
    const now = this.ctx.clock.now();
    const said = await this.ctx.db.write(async (w) => {
      const updated = await w.tx
        .update(devices)
        .set({ unconfirmedIp: ip, unconfirmedIpAt: now })
        .where(and(eq(devices.id, device.id), or(isNull(devices.unconfirmedIp), ne(devices.unconfirmedIp, ip))))
        .returning({ id: devices.id });
      if (updated.length === 0 || !this.isNews(device.id, ip, now)) return false;
      // Marked said once it is: a write rolled back must not silence the address for an hour.
      w.afterCommit(() => this.addressNews.set(newsKey(device.id, ip), now));
      await w.tx.insert(deviceEvents).values({
        deviceId: device.id,
        kind: 'address_changed',
        message: `a request came from ${ip}, not from its address ${device.pinnedIp}: no people's data is sent there until an administrator confirms it`,
        details: { pinned_ip: device.pinnedIp, ip },
        createdAt: now,
      });
      await this.events.record(w, 'device_address_changed', {
        device: { id: device.id, serial_number: device.serialNumber },
        pinned_ip: device.pinnedIp,
        ip,
      });
      return true;
    });
    this.invalidate(device.serialNumber);
    if (!said) return;
    this.ctx.log.warn('a request for an approved terminal came from another address; nothing is sent there until it is confirmed', {
      serial: device.serialNumber,
      pinned: device.pinnedIp,
      ip,
    });
  }

  /** Whether a change of the unconfirmed address to `ip` is to be said (ADDRESS_NEWS_QUIET_MS). */
  private isNews(deviceId: string, ip: string, now: number): boolean {
    const said = this.addressNews.get(newsKey(deviceId, ip));
    return said === undefined || said + ADDRESS_NEWS_QUIET_MS <= now;
  }
}
