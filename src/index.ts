/**
 * The package's public entry: what an embedding host imports. See src/app/create.ts.
 */

/** `fpa.servedAt(…)`: where a host serving the plugin some other way listens. */
export type { ServedAt } from './app/addresses';
export * from './app/create';
/** `fpa.service.addCalendarProvider(…)`: the host's leave and rosters. */
export type { CalendarProvider, HostCalendarEntries } from './modules/calendar';
/** `createFingerprintAttendance` refuses a configuration with errors with this (`issues`: each with its code and hint). */
export { ConfigurationError } from './platform/config/check';
/** A second instance on a `file:` database another process holds: `holder` names it (pid, API address, start). */
export { DatabaseLockedError } from './platform/db/lock';
/** `authorizeAdmin`: the host's own check of who the administrator is. */
export type { AuthorizeAdmin, HostIdentity } from './platform/http/admin-auth';
export type { Role } from './platform/http/caller';
/** For a host serving the plugin on its own app: terminals then reach it by a short server name, or none (HTTP/1.0). */
export { servePathsWhateverTheHost } from './platform/http/routable-url';
/** `logger`: where the instance writes its log lines (the default is JSON lines on stdout). */
export type { Logger } from './platform/log';
