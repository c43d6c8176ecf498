/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const CALENDAR_SETTINGS = [
  'AREAS_CREATED_ON_USE',
  'ATTENDANCE_TIME_ZONE',
  'DEFAULT_SCHEDULE',
  'HOLIDAYS',
  'WEEKEND_DAYS',
] as const satisfies readonly (keyof Settings)[];

export type CalendarRuntime = ModuleRuntime<(typeof CALENDAR_SETTINGS)[number]>;
