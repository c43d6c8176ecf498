/** Operations: `health/`, `/metrics`, `/readyz`. */
export { healthRoutes, operationsRoutes } from './routes';
export { HEALTH_SETTINGS } from './runtime';
export { HealthService } from './service';
