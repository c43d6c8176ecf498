/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const COMPLETENESS_SETTINGS = [
  'ADMS_POLL_DELAY',
  'DEVICE_OFFLINE_AFTER',
  'PUNCH_RECOVERY',
  'PUNCH_RECOVERY_LOOKBACK',
] as const satisfies readonly (keyof Settings)[];

export type CompletenessRuntime = ModuleRuntime<(typeof COMPLETENESS_SETTINGS)[number]>;
