/** Operations: `health/`, `/metrics`, `/readyz`. */

export type { HealthView } from './model';
export { healthRoutes, operationsRoutes } from './routes';
export { HealthService } from './service';
