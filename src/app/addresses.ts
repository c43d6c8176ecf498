/**
 * Where the instance is served, written into the lock file of its database once its server
 * listens: the scripts (`fpa:*`) find the API there and hand it their work, and a second
 * instance's `DatabaseLockedError` names it. The standalone server writes it after `listen`; in
 * a host's app the plugin writes it when the host's server starts (Elysia's `onStart`), and a
 * host serving it some other way says it with `fpa.servedAt`.
 */
import { type Settings, settingDigests } from '../platform/config/settings';
import type { HeldLock } from '../platform/db/lock';
import { API_PREFIX } from '../platform/http/api-prefix';
import { consoleBaseOf } from './console-base';

export interface ServedAt {
  /** The address listened on: `0.0.0.0` or `::` (every interface) is reached at 127.0.0.1 from this machine. */
  hostname: string;
  port: number;
}

/** The API's base URL as a script on this machine reaches it. */
export function localApiBase({ hostname, port }: ServedAt): string {
  const local = hostname === '0.0.0.0' || hostname === '::' || hostname === '' ? '127.0.0.1' : hostname;
  // An IPv6 address goes in brackets in a URL (the lock file's API address for the scripts).
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}`;
}

/**
 * Writes the addresses into the lock: the API's for the scripts, where the console's links open
 * (empty when CONSOLE_URL is unusable), and the settings' digests, so a script handing it work
 * says which of its own FPA_* variables do not apply here.
 */
export function recordServedAt(lock: HeldLock | null, settings: Readonly<Settings>, at: ServedAt): void {
  if (!lock) return;
  lock.setAddresses({
    apiUrl: `${localApiBase(at)}${API_PREFIX}/`,
    consoleBase: linksBase(settings, at),
    settings: settingDigests(settings, lock.info.token),
  });
}

/** Where the console's links open (console-base.ts); empty when CONSOLE_URL is unusable. */
function linksBase(settings: Pick<Settings, 'CONSOLE_URL'>, { hostname, port }: ServedAt): string {
  try {
    return consoleBaseOf({ CONSOLE_URL: settings.CONSOLE_URL, HOST: hostname }, port);
  } catch {
    return '';
  }
}
