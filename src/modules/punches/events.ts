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

export interface PunchEvents {
  punch_received: { punch: PunchView; sender: DeviceRef };
  /** Earlier punches of a PIN were attributed to an enrollee (their attendance days follow). */
  punches_attributed: { enrollee: string; employee: string; device_pin: string; count: number };
}
