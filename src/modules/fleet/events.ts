/** What the fleet module announces. */
import type { DeviceRef } from '../devices';

export interface FleetEvents {
  /** A terminal's own user became an enrollee (a new one, or the enrollee that has their PIN). */
  terminal_user_adopted: { device: DeviceRef; pin: string; enrollee: string; punches: number; by: string };
  /**
   * Every in-scope user and template was queued to the terminal again, and the enrollees outside
   * its scope deleted from it; with `drift`, only the users (and their templates) the terminal no
   * longer reported holding.
   */
  device_resynced: { device: DeviceRef; full: boolean; queued: number; reason: 'requested' | 'approved' | 'returned' | 'cleared' | 'drift' };
}
