/** What the biometrics module announces: ids and facts, never template bytes. */
import type { DeviceRef } from '../devices';

export interface BiometricEvents {
  consent_given: { enrollee: string; version: string; method: string; by: string };
  consent_withdrawn: { enrollee: string; by: string };
  template_stored: {
    enrollee: string;
    type: 'fingerprint';
    index: number;
    algorithm_version: string;
    version: number;
    source: string;
    /** The terminal it came from (walk-up, remote), if any. */
    device: DeviceRef | null;
  };
  templates_destroyed: { enrollee: string; count: number; reason: string };
  /**
   * The enrollee was not written to a terminal because a user of that terminal already has
   * their PIN and is someone else; an administrator adopts or removes that user.
   */
  terminal_user_conflict: { device: DeviceRef; pin: string; enrollee: string };
}
