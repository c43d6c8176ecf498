/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const RETENTION_SETTINGS = [
  'ATTENDANCE_TIME_ZONE',
  'RESTORE_KEEP_REPLACED',
  'RETENTION_COMMANDS_DAYS',
  'RETENTION_DELETION_PROOFS_DAYS',
  'RETENTION_DELIVERIES_DAYS',
  'RETENTION_DEVICE_EVENTS_DAYS',
  'RETENTION_EVENTS_DAYS',
  'RETENTION_PUNCHES_DAYS',
  'RETENTION_TEMPLATES_AFTER_DEACTIVATION',
] as const satisfies readonly (keyof Settings)[];

export type RetentionRuntime = ModuleRuntime<(typeof RETENTION_SETTINGS)[number]>;
