/**
 * The "second factor pending" cookie: the token of a sign-in whose password was right, for the
 * few minutes the second factor may take. HttpOnly, SameSite=Strict, path `/`, `__Host-` and
 * Secure over HTTPS (as the session cookie). It is no session: nothing but the second-factor
 * step reads it.
 */
import type { Settings } from '../../platform/config/settings';
import { isHttps } from '../console';

const NAME = 'fpa_console_2fa';
const SECURE_NAME = `__Host-${NAME}`;

const isHttpsFor = (request: Request, settings: Readonly<Settings>) => isHttps(request, settings.CONSOLE_TRUST_PROXY);

/** The pending token the request carries (over HTTPS only the `__Host-` name counts). */
export function pendingTokenOf(request: Request, settings: Readonly<Settings>): string | null {
  const secure = isHttpsFor(request, settings);
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if ((name === SECURE_NAME || (!secure && name === NAME)) && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return null;
}

export function pendingCookie(request: Request, settings: Readonly<Settings>, token: string, maxAgeMs: number): string {
  const secure = isHttpsFor(request, settings);
  const age = Math.max(0, Math.floor(maxAgeMs / 1000));
  return `${secure ? SECURE_NAME : NAME}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${age}${secure ? '; Secure' : ''}`;
}

export function clearPendingCookie(request: Request, settings: Readonly<Settings>): string {
  const secure = isHttpsFor(request, settings);
  return `${secure ? SECURE_NAME : NAME}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
