/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const IMPORT_SETTINGS = ['AREAS_CREATED_ON_USE'] as const satisfies readonly (keyof Settings)[];

export type ImportRuntime = ModuleRuntime<(typeof IMPORT_SETTINGS)[number]>;
