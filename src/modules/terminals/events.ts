/** What the terminals module announces. */
import type { BiometricType } from '../../protocol/adms';
import type { DeviceRef } from '../devices';

export interface TerminalEvents {
  /** A walk-up template was refused (unknown PIN, no consent, finger not allowed…); nothing was stored. */
  template_rejected: { device: DeviceRef; pin: string; index: number; type: BiometricType; reason: string };
}
