/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { Digesting, ModuleRuntime, Sealing } from '../../platform/runtime';

export const DEVICE_SETTINGS = [
  'ADMS_AUTO_APPROVE',
  'ADMS_MAX_PENDING_DEVICES',
  'ADMS_MAX_PENDING_PER_ADDRESS',
  'ADMS_PENDING_EXPIRY',
  'ADMS_TRUST',
  'AREAS_CREATED_ON_USE',
  'DEVICE_CLOCK_DRIFT_MAX',
  'DEVICE_OFFLINE_AFTER',
  'TIME_ZONE',
] as const satisfies readonly (keyof Settings)[];

/**
 * Digests of the communication keys (keys.ts); the key ring seals the passwords terminals report
 * for their users (user-passwords.ts), which must be sent back to them, so cannot be digests.
 */
export type DeviceRuntime = ModuleRuntime<(typeof DEVICE_SETTINGS)[number]> & Digesting & Sealing;
