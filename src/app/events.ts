/** Every event type the service records, with its data: the typed surface of `fpa.events`. */
import type { AnomalyEvents } from '../modules/anomalies';
import type { AttendanceEvents } from '../modules/attendance';
import type { CalendarEvents } from '../modules/calendar';
import type { CommandEvents } from '../modules/commands';
import type { CompletenessEvents } from '../modules/completeness';
import type { DeviceEvents } from '../modules/devices';
import type { EnrolleeEvents } from '../modules/enrollees';
import type { EnrollmentEvents } from '../modules/enrollment';
import type { FleetEvents } from '../modules/fleet';
import type { ProofEvents } from '../modules/proofs';
import type { LoggedPunchEvents, PunchEvents, PunchPayload } from '../modules/punches';

/** In-process `punch_received` listeners also get the parsed line (docs/spec.md `payload`), which the log does not keep. */
interface InProcessExtras {
  punch_received: PunchEvents['punch_received'] & { payload: PunchPayload };
}

export type FpaEvents = AttendanceEvents &
  CalendarEvents &
  DeviceEvents &
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
export type LoggedEvents = Omit<FpaEvents, 'punch_received' | 'punch_voided'> & LoggedPunchEvents;
