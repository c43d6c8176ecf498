/**
 * Security PUSH 3.x (access-control firmware, ADMS.md §3): far enough that such a terminal
 * registers and uploads attendance. A 3.x terminal that is not registered is answered `OK` on
 * the handshake, which tells it to register; `POST registry` gets a RegistryCode that stays the
 * same for the device; `POST push` gets the configuration block.
 */
import { eq } from 'drizzle-orm';
import type { Core } from '../../app/core';
import { devices } from '../../app/schema';
import type { DeviceRow } from '../devices/service';
import { encodePush3DateTime, sanitizeValue, wallTimeAt, type OptionBlockInput } from '../../protocol/adms';

const SERVER_PUSH3_VERSION = '3.1.2';

/** The device's registry code, created once and kept (devices.registryCode). */
export async function registryCodeOf(core: Core, device: DeviceRow): Promise<string> {
  if (device.registryCode) return device.registryCode;
  const fresh = alphanumeric(10);
  const code = await core.ctx.db.write(async ({ tx }) => {
    const row = await tx.query.devices.findFirst({ where: eq(devices.id, device.id) });
    if (row?.registryCode) return row.registryCode;
    await tx.update(devices).set({ registryCode: fresh, updatedAt: core.ctx.clock.now() }).where(eq(devices.id, device.id));
    return fresh;
  });
  core.devices.invalidate(device.serialNumber);
  return code;
}

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** Letters and digits only: the code travels in a cookie and in an MD5 input on the terminal. */
function alphanumeric(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
}

/** `+0530` style offset. */
function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(Math.round(minutes));
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** `POST push` reply: LF-separated `key=value` lines. */
export function push3Config(o: Pick<OptionBlockInput, 'delaySeconds' | 'errorDelaySeconds' | 'timeZoneMinutes' | 'serverVersion' | 'multiBioDataSupport'> & { sessionId: string }): string {
  const lines = [
    `ServerVersion=${SERVER_PUSH3_VERSION}`,
    `ServerName=${sanitizeValue(o.serverVersion)}`,
    `PushVersion=${SERVER_PUSH3_VERSION}`,
    `ErrorDelay=${o.errorDelaySeconds ?? 30}`,
    `RequestDelay=${o.delaySeconds ?? 10}`,
    'TransTimes=00:00;14:05',
    'TransInterval=1',
    'TransTables=User Transaction',
    'Realtime=1',
    `SessionID=${sanitizeValue(o.sessionId)}`,
    'TimeoutSec=10',
    'BioPhotoFun=0',
    'BioDataFun=1',
    `MultiBioDataSupport=${sanitizeValue(o.multiBioDataSupport ?? '0:1:0:0:0:0:0:0:0:0')}`,
    `TimeZone=${offsetText(o.timeZoneMinutes)}`,
  ];
  return lines.map((l) => `${l}\n`).join('');
}

/** `GET rtdata?type=time`: the device clock in its own encoding, plus the zone offset. */
export function push3Time(now: number, timeZone: string, offsetMinutes: number): string {
  return `DateTime=${encodePush3DateTime(wallTimeAt(now, timeZone))},ServerTZ=${offsetText(offsetMinutes)}`;
}
