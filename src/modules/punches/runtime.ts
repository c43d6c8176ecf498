/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime, UploadGate } from '../../platform/runtime';

export const PUNCH_SETTINGS = ['ATTENDANCE_TIME_ZONE', 'DEVICE_CLOCK_DRIFT_MAX', 'RETENTION_PUNCHES_DAYS'] as const satisfies readonly (keyof Settings)[];

export type PunchRuntime = ModuleRuntime<(typeof PUNCH_SETTINGS)[number]> & UploadGate;
