/** Operations: `health/`, `/metrics`, `/readyz`. */

export type { HealthView } from './model';
export { healthRoutes, operationsRoutes } from './routes';
export { HEALTH_SETTINGS } from './runtime';
export { HealthService } from './service';
