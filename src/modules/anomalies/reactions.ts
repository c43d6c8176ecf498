/** What anomalies do when something happens elsewhere; wired once by the composition root (app/modules.ts). */
import type { PunchService } from '../punches';
import type { Anomalies } from './service';

/** Every stored punch is looked at in the write that stores it (detect.ts). */
export function lookAtStoredPunches(punches: PunchService, anomalies: Anomalies): void {
  punches.events.react('punch_received', async (w, received) => {
    await anomalies.punchesStored(
      w,
      received.map((e) => e.data.punch),
    );
  });
}
