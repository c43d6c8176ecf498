/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime } from '../../platform/runtime';

export const DIAGNOSTIC_SETTINGS = [
  'ADMS_MAX_PENDING_DEVICES',
  'ADMS_MAX_PENDING_PER_ADDRESS',
  'ADMS_PENDING_EXPIRY',
  'ADMS_TRUST',
  'ATTENDANCE_TIME_ZONE',
  'TIME_ZONE',
] as const satisfies readonly (keyof Settings)[];

export type DiagnosticRuntime = ModuleRuntime<(typeof DIAGNOSTIC_SETTINGS)[number]>;
