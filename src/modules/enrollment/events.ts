/** What the enrollment module announces: ids and facts, never template bytes. */
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
  /**
   * A walk-up template was refused (unknown PIN, no consent, finger not allowed…); nothing was
   * stored. `enrollee`: the person it was taken to be (null: an unknown PIN, nobody's). `type`: a
   * kind of template (BiometricType), or, for a person whose deletion was asked, a biometric the service does not
   * keep that a terminal reported on their user (`face_photo`, `user_photo`, `finger_vein`…).
   */
  template_rejected: { device: DeviceRef; pin: string; index: number; type: string; reason: string; enrollee: string | null };
  consent_given: { enrollee: string; version: string; method: string; by: string };
  consent_withdrawn: { enrollee: string; by: string };
  template_stored: {
    enrollee: string;
    /** `fingerprint`, `face`, `visible_face`, `palm`, `finger_vein`. */
    type: BiometricType;
    /** The body part: finger 0–9, palm 0/1, face 0. */
    index: number;
    /** Position in a multi-template set (0 for a fingerprint). */
    part: number;
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
