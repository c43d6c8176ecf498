/** What anomalies do when something happens elsewhere (wired in src/app/reactions.ts). */
import type { ReactionTo } from '../events';
import type { PunchEvents } from '../punches';
import type { Anomalies } from './service';

/** punch_received: every stored punch is looked at in the write that stores it (detect.ts). */
export const lookAtStoredPunches =
  (anomalies: Anomalies): ReactionTo<PunchEvents, 'punch_received'> =>
  async (w, received) => {
    await anomalies.punchesStored(
      w,
      received.map((e) => e.data),
    );
  };
