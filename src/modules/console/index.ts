/** The administrators' web console: sign-in links, sessions, and the pages and client under `/console/`. */
export { consoleLinkRoutes } from './api-routes';
export type { ConsoleSessionView } from './model';
export { CONSOLE_PATH, signInPath } from './paths';
export { consoleRoutes } from './routes';
export { CONSOLE_SETTINGS } from './runtime';
export { ConsoleService, isHttps, type StartedSession } from './service';
