/** What the enrollment module announces. */
import type { BiometricType } from '../../protocol/adms';
import type { DeviceRef } from '../devices';

export interface EnrollmentEvents {
  enrollment_session_closed: {
    session: string;
    kind: 'agent' | 'remote';
    status: 'completed' | 'cancelled' | 'expired' | 'failed';
    enrollee: string;
    reason: string | null;
  };
  /** A walk-up template was refused (unknown PIN, no consent, finger not allowed…); nothing was stored. */
  template_rejected: { device: DeviceRef; pin: string; index: number; type: BiometricType; reason: string };
}
