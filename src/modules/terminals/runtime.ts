/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const TERMINAL_SETTINGS = [
  'ADMS_ALLOWED_IPS',
  'ADMS_DEVICE_TOKENS',
  'ADMS_ERROR_DELAY',
  'ADMS_MAX_COMMANDS_PER_REQUEST',
  'ADMS_MAX_COMMAND_BYTES',
  'ADMS_MAX_REQUEST_BYTES',
  'ADMS_POLL_DELAY',
  'ADMS_URL_PREFIX',
  'BIOMETRIC_TYPES',
  'DEVICE_CLOCK_DRIFT_MAX',
  'RETENTION_PUNCHES_DAYS',
] as const satisfies readonly (keyof Settings)[];

export type TerminalRuntime = ModuleRuntime<(typeof TERMINAL_SETTINGS)[number]>;
