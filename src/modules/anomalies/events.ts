/** What anomalies announce (modules/events). */
import type { Static } from '@sinclair/typebox';
import type { Anomaly } from './model';

export interface AnomalyEvents {
  /** A punch that deserves a look (never a change to attendance): the anomaly as `anomalies/` lists it. */
  anomaly_detected: { anomaly: Static<typeof Anomaly> };
}
