/** Every event type the service records, with its data: the typed surface of `fpa.events`. */
import type { AnomalyEvents } from '../modules/anomalies';
import type { AttendanceEvents } from '../modules/attendance';
import type { CalendarEvents } from '../modules/calendar';
import type { CommandEvents } from '../modules/commands';
import type { CompletenessEvents } from '../modules/completeness';
import type { DeviceEvents } from '../modules/devices';
import type { EnrolleeEvents, LoggedEnrolleeEvents } from '../modules/enrollees';
import type { EnrollmentEvents } from '../modules/enrollment';
import type { FleetEvents } from '../modules/fleet';
import type { ProofEvents } from '../modules/proofs';
import type { LoggedPunchEvents, PunchEvents, PunchPayload } from '../modules/punches';

/**
 * What in-process listeners get beside the logged data, which the log does not keep: the parsed
 * line of `punch_received` (docs/spec.md `payload`); for a terminal an administrator registered
 * (`POST devices/`, registered and approved in one request) who did (`registered_by`) and that its
 * `device_approved` is that registration's (`registered`).
 */
interface InProcessExtras {
  punch_received: PunchEvents['punch_received'] & { payload: PunchPayload };
  device_registered: DeviceEvents['device_registered'] & { registered_by?: string };
  device_approved: DeviceEvents['device_approved'] & { registered?: boolean };
}

export type FpaEvents = AttendanceEvents &
  CalendarEvents &
  Omit<DeviceEvents, 'device_registered' | 'device_approved'> &
  CommandEvents &
  EnrolleeEvents &
  EnrollmentEvents &
  FleetEvents &
  ProofEvents &
  Omit<PunchEvents, 'punch_received'> &
  CompletenessEvents &
  AnomalyEvents &
  InProcessExtras;
export type FpaEventName = keyof FpaEvents;

/** The data of each event as the log shows it (what `events/`, streams and webhooks carry). */
export type LoggedEvents = Omit<
  FpaEvents,
  'punch_received' | 'punch_voided' | 'enrollee_created' | 'enrollee_updated' | 'enrollee_deleted' | 'device_registered' | 'device_approved'
> &
  LoggedPunchEvents &
  LoggedEnrolleeEvents &
  Pick<DeviceEvents, 'device_registered' | 'device_approved'>;
