/**
 * Whether an agent's fingerprint upload can go anywhere: at least one in-scope approved terminal
 * must take its algorithm, directly or through ALGORITHM_COMPATIBILITY_MAP. When none does,
 * `algorithm_incompatible` says why (`details.reason`) and lists each terminal with its own
 * reason: `algorithm_differs` (its reported algorithm), or `no_fingerprint_reader` (it said
 * FingerFunOn=0: a card-only or face-only terminal, listed without the FPVersion some of them
 * report all the same, which it never uses).
 */
import { FpaError } from '../../platform/errors';
import type { DeviceRow } from '../devices';
import { readsKind, terminalTakes } from './kinds';

type Terminal = Pick<DeviceRow, 'serialNumber' | 'algorithmVersion' | 'parameters'>;

/**
 * Refuses an upload no in-scope terminal could use: none in scope (`no_device_in_scope`), none
 * with a fingerprint reader (`no_fingerprint_reader`), or none of the readers running an
 * algorithm that takes it (`no_device_accepts`).
 */
export function checkDevicesAccept(devices: readonly Terminal[], compatibility: Record<string, string[]>, algorithmVersion: string): void {
  if (devices.length === 0) {
    throw new FpaError('algorithm_incompatible', 'the enrollee has no approved device in scope that could use the template', {
      reason: 'no_device_in_scope',
      algorithm_version: algorithmVersion,
    });
  }
  if (devices.some((d) => terminalTakes(compatibility, d, 'fingerprint', algorithmVersion).ok)) return;
  const listed = devices.map((d) =>
    readsKind(d, 'fingerprint')
      ? { serial_number: d.serialNumber, algorithm_version: d.algorithmVersion, reason: 'algorithm_differs' }
      : { serial_number: d.serialNumber, algorithm_version: null, reason: 'no_fingerprint_reader' },
  );
  const readerless = listed.every((d) => d.reason === 'no_fingerprint_reader');
  throw new FpaError('algorithm_incompatible', readerless ? 'no in-scope device has a fingerprint reader' : 'no in-scope device accepts this algorithm', {
    reason: readerless ? 'no_fingerprint_reader' : 'no_device_accepts',
    algorithm_version: algorithmVersion,
    devices: listed,
  });
}
