/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const HEALTH_SETTINGS = ['ATTENDANCE_TIME_ZONE'] as const satisfies readonly (keyof Settings)[];

export type HealthRuntime = ModuleRuntime<(typeof HEALTH_SETTINGS)[number]>;
