/** Where the console's links (sign-in, invitations) printed by the scripts open. */
import { CONSOLE_PATH } from '../modules/console';
import { consoleUrlProblem } from '../platform/config/check';
import type { Settings } from '../platform/config/settings';
import { reachableHost } from '../platform/net/lan';

/** CONSOLE_URL's origin and any path before `/console`, or the server's reachable address and port. */
export function consoleBaseOf(settings: Pick<Settings, 'CONSOLE_URL' | 'HOST'>, port: number): string {
  // A link starting `notaurl/console/…` opens nowhere: refused, as the configuration check refuses it (fpa.E025).
  const problem = consoleUrlProblem(settings.CONSOLE_URL);
  if (problem) throw new Error(`${problem} Fix FPA_CONSOLE_URL (npm run fpa:check).`);
  if (settings.CONSOLE_URL) return settings.CONSOLE_URL.replace(/\/+$/, '').replace(new RegExp(`${CONSOLE_PATH}$`), '');
  return `http://${reachableHost(settings.HOST)}:${port}`;
}

/** The script's own settings runningServerBase reads: they apply to a link the running server made (the others do not). */
export const LINK_BASE_SETTINGS = ['CONSOLE_URL', 'HOST', 'PORT'] as const satisfies readonly (keyof Settings)[];
type LinkBaseSetting = (typeof LINK_BASE_SETTINGS)[number];

/**
 * Where a link made by the running server opens, for a script that asked it: CONSOLE_URL (the
 * script's, else the server's), else the address that server listens on as people reach it, as
 * its lock file says (the script's own HOST may say another: a server started with
 * FPA_HOST=127.0.0.1 printed links at the LAN address, where nothing answers). A lock file of an
 * older release does not say it: then the script's settings and the server's port.
 */
export function runningServerBase(settings: Pick<Settings, LinkBaseSetting>, server: { apiUrl: string; consoleBase: string }): string {
  if (settings.CONSOLE_URL || !server.consoleBase) return consoleBaseOf(settings, Number(new URL(server.apiUrl).port || settings.PORT));
  return server.consoleBase;
}
