/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const ATTENDANCE_SETTINGS = [
  'ATTENDANCE_OVERTIME_MINIMUM',
  'ATTENDANCE_REPEAT_PUNCH_WINDOW',
  'ATTENDANCE_SHIFT_SLACK',
  'ATTENDANCE_TIME_ZONE',
] as const satisfies readonly (keyof Settings)[];

export type AttendanceRuntime = ModuleRuntime<(typeof ATTENDANCE_SETTINGS)[number]>;
