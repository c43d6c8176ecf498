/** Operations: `health/`, `/metrics`, `/readyz`. */
export { healthRoutes, operationsRoutes } from './routes';
export { HealthService } from './service';
