/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const ANOMALY_SETTINGS = ['ATTENDANCE_TIME_ZONE', 'DUPLICATE_WINDOW', 'TRAVEL_MINUTES'] as const satisfies readonly (keyof Settings)[];

export type AnomalyRuntime = ModuleRuntime<(typeof ANOMALY_SETTINGS)[number]>;
