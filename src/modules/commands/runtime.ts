/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const COMMAND_SETTINGS = [
  'ADMS_MAX_COMMANDS_PER_REQUEST',
  'ADMS_RAW_COMMANDS',
  'COMMAND_ACK_TIMEOUT',
  'COMMAND_EXPIRY',
  'COMMAND_MAX_RETRIES',
  'COMMAND_RETRY_BACKOFF',
] as const satisfies readonly (keyof Settings)[];

export type CommandRuntime = ModuleRuntime<(typeof COMMAND_SETTINGS)[number]>;
