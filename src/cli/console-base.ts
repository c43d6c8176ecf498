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
