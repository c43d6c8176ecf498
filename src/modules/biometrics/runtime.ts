/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime, Sealing } from '../../platform/runtime';

export const BIOMETRIC_SETTINGS = [
  'ALGORITHM_COMPATIBILITY_MAP',
  'ALLOWED_FINGER_INDEXES',
  'BIOMETRIC_MAX_BYTES',
  'BIOMETRIC_TYPES',
  'ENROLLMENT_REQUIRE_CONSENT',
  'FINGERS_ALLOWED_MAX',
  'TEMPLATE_MAX_BYTES',
] as const satisfies readonly (keyof Settings)[];

export type BiometricRuntime = ModuleRuntime<(typeof BIOMETRIC_SETTINGS)[number]> & Sealing;
