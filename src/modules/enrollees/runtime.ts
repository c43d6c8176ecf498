/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const ENROLLEE_SETTINGS = ['AREAS_CREATED_ON_USE', 'ATTENDANCE_TIME_ZONE', 'ENROLLEE_PIN_START'] as const satisfies readonly (keyof Settings)[];

export type EnrolleeRuntime = ModuleRuntime<(typeof ENROLLEE_SETTINGS)[number]>;
