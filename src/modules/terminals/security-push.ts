/**
 * Security PUSH 3.x (access-control firmware, docs/protocol/adms.md §3): far enough that such a terminal
 * registers and uploads attendance. A 3.x terminal that is not registered is answered `OK` on
 * the handshake, which tells it to register; `POST registry` gets a RegistryCode that stays the
 * same for the device (devices.registration.registryCode); `POST push` gets the configuration block.
 */

import { wallTimeAt } from '../../platform/time/zone';
import { encodePush3DateTime, type OptionBlockInput, sanitizeValue } from '../../protocol/adms';

const SERVER_PUSH3_VERSION = '3.1.2';

/** `+0530` style offset. */
function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(Math.round(minutes));
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** `POST push` reply: LF-separated `key=value` lines. */
export function push3Config(
  o: Pick<OptionBlockInput, 'delaySeconds' | 'errorDelaySeconds' | 'timeZoneMinutes' | 'serverVersion' | 'multiBioDataSupport'> & { sessionId: string },
): string {
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
