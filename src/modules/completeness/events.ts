/** What completeness announces (modules/events). */
import type { DeviceRef } from '../devices';
import type { RecoveryReason } from './tables';

/** A re-upload asked of a terminal, as events show it. */
export interface RecoveryRef {
  id: string;
  /** The range asked, in the terminal's wall time. */
  from: string;
  to: string;
  /** The `reupload_logs` command that carries it. */
  command: number | null;
}

export interface CompletenessEvents {
  /**
   * The attendance record count a terminal reports grew more than the punches stored from it,
   * and stayed so: `missing` punches; a re-upload of the range was queued (`recovery`, null when
   * PUNCH_RECOVERY is off or one is already under way).
   */
  punch_gap_found: { device: DeviceRef; reason: RecoveryReason; missing: number; reported: number; stored: number; recovery: RecoveryRef | null };
  /**
   * A re-upload ended: `recovered` punches were new; `remaining` of those the counts said were
   * missing were not found (0: the record is complete). An outage check is announced only
   * when it found something.
   */
  punch_gap_closed: {
    device: DeviceRef;
    reason: RecoveryReason;
    recovery: RecoveryRef;
    status: 'done' | 'failed';
    recovered: number;
    remaining: number;
    return_code: number | null;
  };
}
