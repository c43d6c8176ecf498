/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const FLEET_SETTINGS = ['ATTENDANCE_TIME_ZONE'] as const satisfies readonly (keyof Settings)[];

export type FleetRuntime = ModuleRuntime<(typeof FLEET_SETTINGS)[number]>;
