/** Diagnostics: what an installer must fix, from what the service already knows about its terminals. */
export { diagnosticRoutes } from './routes';
export { DIAGNOSTIC_SETTINGS } from './runtime';
export { Diagnostics, type DiagnosticView } from './service';
