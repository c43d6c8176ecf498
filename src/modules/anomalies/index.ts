/** Anomalies: punches that deserve a look, found as they are stored (and `while_on_leave` as leave changes), listed at `anomalies/`. */
export type { AnomalyEvents } from './events';
export type { AnomalyView } from './model';
export * as anomalyReactions from './reactions';
export { anomalyRoutes } from './routes';
export { ANOMALY_SETTINGS } from './runtime';
export { Anomalies } from './service';
