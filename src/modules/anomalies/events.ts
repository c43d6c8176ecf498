/** What anomalies announce (modules/events). */
import type { AnomalyView } from './model';

export interface AnomalyEvents {
  /** A punch that deserves a look (never a change to attendance): the anomaly as `anomalies/` lists it. */
  anomaly_detected: { anomaly: AnomalyView };
  /** An anomaly that no longer holds (a `while_on_leave` whose leave was removed or changed kind): as it was listed; its punch lost the flag. */
  anomaly_removed: { anomaly: AnomalyView };
}
