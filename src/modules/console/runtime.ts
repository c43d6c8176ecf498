/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const CONSOLE_SETTINGS = [
  'CONSOLE_LINK_TTL',
  'CONSOLE_SESSION_IDLE_TIMEOUT',
  'CONSOLE_SESSION_TTL',
  'CONSOLE_TRUST_PROXY',
  'CONSOLE_URL',
] as const satisfies readonly (keyof Settings)[];

export type ConsoleRuntime = ModuleRuntime<(typeof CONSOLE_SETTINGS)[number]>;
