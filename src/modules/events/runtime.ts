/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const EVENT_SETTINGS = [] as const satisfies readonly (keyof Settings)[];

export type EventRuntime = ModuleRuntime<(typeof EVENT_SETTINGS)[number]>;
