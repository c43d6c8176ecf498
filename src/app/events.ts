/** Every event type the service records, with its data: the typed surface of `fpa.events`. */
import type { AttendanceEvents } from '../modules/attendance';
import type { BiometricEvents } from '../modules/biometrics';
import type { CalendarEvents } from '../modules/calendar';
import type { CommandEvents } from '../modules/commands';
import type { DeviceEvents } from '../modules/devices';
import type { EnrolleeEvents } from '../modules/enrollees';
import type { EnrollmentEvents } from '../modules/enrollment';
import type { FleetEvents } from '../modules/fleet';
import type { PunchEvents, PunchPayload } from '../modules/punches';
import type { TerminalEvents } from '../modules/terminals';

/** In-process `punch_received` listeners also get the parsed line (docs/spec.md `payload`), which the log does not keep. */
interface InProcessExtras {
  punch_received: PunchEvents['punch_received'] & { payload: PunchPayload };
}

export type FpaEvents = AttendanceEvents &
  CalendarEvents &
  DeviceEvents &
  CommandEvents &
  EnrolleeEvents &
  BiometricEvents &
  EnrollmentEvents &
  FleetEvents &
  Omit<PunchEvents, 'punch_received'> &
  TerminalEvents &
  InProcessExtras;
export type FpaEventName = keyof FpaEvents;

/**
 * Every event type by name, at run time (webhook endpoints subscribe to these). A record over
 * the keys of FpaEvents, so a type added to a module's events and not here fails the type check.
 */
const EVENT_TYPES: Record<FpaEventName, true> = {
  device_registered: true,
  device_approved: true,
  device_disabled: true,
  device_online: true,
  device_offline: true,
  device_updated: true,
  device_clock_drifting: true,
  device_removed: true,
  device_command_finished: true,
  enrollee_created: true,
  enrollee_updated: true,
  enrollee_deleted: true,
  consent_given: true,
  consent_withdrawn: true,
  template_stored: true,
  templates_destroyed: true,
  template_rejected: true,
  terminal_user_conflict: true,
  terminal_user_adopted: true,
  device_resynced: true,
  enrollment_session_closed: true,
  punch_received: true,
  punch_voided: true,
  punches_attributed: true,
  calendar_changed: true,
  attendance_day_changed: true,
  attendance_day_removed: true,
  pay_period_locked: true,
};

export const FPA_EVENT_TYPES: readonly FpaEventName[] = Object.keys(EVENT_TYPES) as FpaEventName[];
