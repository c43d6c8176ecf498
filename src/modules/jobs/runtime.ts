/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const JOB_SETTINGS = ['TASK_BACKEND'] as const satisfies readonly (keyof Settings)[];

export type JobRuntime = ModuleRuntime<(typeof JOB_SETTINGS)[number]>;
