/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const REPORT_SETTINGS = ['COMPANY_NAME', 'REPORT_FONT', 'REPORT_FONT_BOLD'] as const satisfies readonly (keyof Settings)[];

export type ReportRuntime = ModuleRuntime<(typeof REPORT_SETTINGS)[number]>;
