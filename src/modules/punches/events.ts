/** What the punches module announces. */
import type { DeviceRef } from '../devices';
import type { PunchView } from './view';

/** Handed to in-process `punch_received` listeners only (docs/spec.md `payload`); not kept in the log. */
export interface PunchPayload {
  /** The parsed attendance line (the ADMS record without its raw text). */
  line: { pin: string; localTime: string; state: number; verifyType: number; workCode: string; extra: string[] };
  /** The raw line as the terminal sent it. */
  raw: string;
}

/**
 * What readers of the log get (./logged.ts): the punch as it is when read, so a later void or
 * attribution shows; null once retention has purged it.
 */
export interface LoggedPunchEvents {
  punch_received: Omit<PunchEvents['punch_received'], 'punch'> & { punch: PunchView | null };
  punch_voided: Omit<PunchEvents['punch_voided'], 'punch'> & { punch: PunchView | null };
}

export interface PunchEvents {
  /**
   * A punch was stored. `punch.source` says where it came from; `sender` is the terminal that
   * sent it (null for manual and imported punches, which carry `by`, who entered them).
   */
  punch_received: { punch: PunchView; sender: DeviceRef | null; by?: string };
  /** An administrator voided a punch: it stays listed and no longer counts for attendance. */
  punch_voided: { punch: PunchView; reason: string; by: string };
  /** Earlier punches of a PIN were attributed to an enrollee (their attendance days follow). */
  punches_attributed: {
    enrollee: string;
    employee: string;
    device_pin: string;
    count: number;
    /** Absent from events an earlier version logged. */
    first_punched_at?: string;
    last_punched_at?: string;
  };
}
