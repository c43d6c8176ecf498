/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { Digesting, ModuleRuntime } from '../../platform/runtime';

export const USER_SETTINGS = ['CONSOLE_SIGN_IN_ADDRESS_LIMIT', 'CONSOLE_SIGN_IN_LIMIT', 'USER_INVITE_TTL'] as const satisfies readonly (keyof Settings)[];

export type UserRuntime = ModuleRuntime<(typeof USER_SETTINGS)[number]> & Digesting;
