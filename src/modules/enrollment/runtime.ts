/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime, Sealing } from '../../platform/runtime';

export const ENROLLMENT_SETTINGS = [
  'AGENT_RATE_LIMIT',
  'ALGORITHM_COMPATIBILITY_MAP',
  'ALLOWED_FINGER_INDEXES',
  'BIOMETRIC_MAX_BYTES',
  'BIOMETRIC_TYPES',
  'DELETE_REJECTED_DEVICE_TEMPLATES',
  'ENROLLMENT_REQUIRE_CONSENT',
  'ENROLLMENT_SESSION_TTL',
  'FINGERS_ALLOWED_MAX',
  'FINGERS_REQUIRED_MIN',
  'TEMPLATE_MAX_BYTES',
] as const satisfies readonly (keyof Settings)[];

export type EnrollmentRuntime = ModuleRuntime<(typeof ENROLLMENT_SETTINGS)[number]> & Sealing;
