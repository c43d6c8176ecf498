/** What anomalies announce (modules/events). */
import type { AnomalyView } from './model';

export interface AnomalyEvents {
  /** A punch that deserves a look (never a change to attendance): the anomaly as `anomalies/` lists it. */
  anomaly_detected: { anomaly: AnomalyView };
}
