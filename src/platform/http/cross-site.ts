/**
 * Changes another site asks for. A browser attaches cookies (and whatever else a host's sign-in
 * reads) to a form another site posts here, or to its `fetch`; the service must not take them as
 * the administrator's word for a change. Such a request says where it comes from:
 * `Sec-Fetch-Site: cross-site`, or an `Origin` that is not this service's own. A request without
 * either is no browser's cross-site request (a browser sends `Origin` with every cross-site POST),
 * so scripts and servers are not affected.
 */
import type { Settings } from '../config/settings';
import { FpaError } from '../errors';

type OriginSettings = Readonly<Pick<Settings, 'CONSOLE_URL' | 'CONSOLE_TRUST_PROXY'>>;

/** Methods that only read: never refused for where they come from (a WebSocket handshake is a GET, checked on its own). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

const firstOf = (value: string | null) => value?.split(',')[0]?.trim() || null;

function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The hosts this service is reached at: the one the request was sent to (`Host`), the one a
 * proxy says it was sent to (`X-Forwarded-Host`, when CONSOLE_TRUST_PROXY believes the proxy),
 * and the configured public address (CONSOLE_URL), so that a proxy that rewrites `Host` still
 * lets the service's own pages through.
 */
function ownHosts(request: Request, settings: OriginSettings): Set<string> {
  const hosts = [request.headers.get('host'), hostOf(request.url)];
  if (settings.CONSOLE_TRUST_PROXY) hosts.push(firstOf(request.headers.get('x-forwarded-host')));
  if (settings.CONSOLE_URL) hosts.push(hostOf(settings.CONSOLE_URL));
  return new Set(hosts.filter((h): h is string => Boolean(h)).map((h) => h.toLowerCase()));
}

/**
 * The site a browser's request was sent from, when it is not this service (`null`: the
 * service's own pages, or no browser's request). `Sec-Fetch-Site: same-origin` is the browser's
 * word that the page is this service's, whatever a proxy did to `Host`; an `Origin` of `null`
 * (a sandboxed or file page) is nobody's own.
 */
export function askedFromElsewhere(request: Request, settings: OriginSettings): string | null {
  const site = request.headers.get('sec-fetch-site')?.toLowerCase() ?? null;
  const origin = request.headers.get('origin');
  if (site === 'cross-site') return origin ?? 'another site';
  if (site === 'same-origin' || origin === null) return null;
  const host = origin === 'null' ? null : hostOf(origin);
  return host !== null && ownHosts(request, settings).has(host) ? null : origin;
}

/** The site a change was asked from, when it is not this service (`null` for reads too). */
export function changeFromElsewhere(request: Request, settings: OriginSettings): string | null {
  if (READS.has(request.method.toUpperCase())) return null;
  return askedFromElsewhere(request, settings);
}

/** A sign-in step asked from another site is refused (403): it would sign the browser in as someone the other site chose. */
export function refuseSignInFromElsewhere(request: Request, settings: OriginSettings): void {
  if (askedFromElsewhere(request, settings) !== null) throw new FpaError('forbidden', 'sign-in was asked from another site', {});
}

/** A WebSocket handshake (a GET, which carries no CSRF header) opened by this service's own page: a browser always sends its `Origin`. */
export function openedHere(request: Request, settings: OriginSettings): boolean {
  return request.headers.has('origin') && askedFromElsewhere(request, settings) === null;
}
