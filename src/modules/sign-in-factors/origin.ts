/**
 * The console's own origin as a browser sees it: the WebAuthn relying party (its host name and
 * origin) and single sign-on's redirect URI. CONSOLE_URL when set (the address people type);
 * otherwise the request's host, over HTTPS when the request came in over it (X-Forwarded-Proto
 * and X-Forwarded-Host only when CONSOLE_TRUST_PROXY believes the proxy in front).
 */
import type { Settings } from '../../platform/config/settings';
import { CONSOLE_PATH } from '../console';
import type { RequestOrigin } from './ports';

const firstOf = (value: string | null) => value?.split(',')[0]?.trim() || null;

function consoleBase(request: Request, settings: Readonly<Settings>): URL {
  if (settings.CONSOLE_URL) {
    const url = new URL(settings.CONSOLE_URL);
    return new URL(url.pathname.endsWith('/') ? url.href : `${url.href}/`);
  }
  const seen = new URL(request.url);
  const trust = settings.CONSOLE_TRUST_PROXY;
  const proto = (trust && firstOf(request.headers.get('x-forwarded-proto'))?.toLowerCase()) || seen.protocol.replace(':', '');
  const host = (trust && firstOf(request.headers.get('x-forwarded-host'))) || request.headers.get('host') || seen.host;
  return new URL(`${proto === 'https' ? 'https' : 'http'}://${host}${CONSOLE_PATH}/`);
}

export function requestOrigin(request: Request, settings: Readonly<Settings>, address: string): RequestOrigin {
  const base = consoleBase(request, settings);
  return { address, origin: base.origin, rpId: base.hostname };
}

/** Where the OpenID provider sends the browser back: `<console>/sso/callback`. */
export function ssoRedirectUri(request: Request, settings: Readonly<Settings>): string {
  return new URL('sso/callback', consoleBase(request, settings)).href;
}
