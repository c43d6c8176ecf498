/** The events' names in the console (Integrations' checkboxes, Operations' recent events). */
import { words } from './format';

/** Event types in the words of the people who run attendance (the type itself is the hint). */
const EVENT_WORDS: Record<string, string> = {
  device_registered: 'New terminal waiting',
  device_approved: 'Terminal approved',
  device_disabled: 'Terminal disabled',
  device_removed: 'Terminal removed',
  device_online: 'Terminal back online',
  device_offline: 'Terminal offline',
  device_updated: 'Terminal changed',
  device_clock_drifting: 'Terminal clock wrong',
  device_command_finished: 'Terminal command done',
  device_resynced: 'Terminal resynced',
  device_address_changed: 'Terminal heard from a new address',
  terminal_user_conflict: 'PIN taken on a terminal',
  terminal_user_adopted: 'Terminal user adopted',
  enrollee_created: 'Person added',
  enrollee_updated: 'Person changed',
  enrollee_deleted: 'Person deleted',
  enrollee_card_changed: 'Card filled at a terminal',
  consent_given: 'Consent recorded',
  consent_withdrawn: 'Consent withdrawn',
  template_stored: 'Biometric stored',
  templates_destroyed: 'Biometrics destroyed',
  template_rejected: 'Biometric refused',
  enrollment_session_closed: 'Enrollment ended',
  punch_received: 'Punch received',
  punch_voided: 'Punch voided',
  punches_attributed: 'Punches attributed',
  calendar_changed: 'Calendar changed',
  attendance_day_changed: 'Attendance day changed',
  attendance_day_removed: 'Attendance day removed',
  pay_period_locked: 'Pay period locked',
};
/** An event type as the pages name it: the same words on Integrations and on Operations. */
export const eventWords = (type: string): string => EVENT_WORDS[type] ?? words(type);
