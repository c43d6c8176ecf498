/**
 * Single sign-on's console routes (not part of the API document): `GET /console/sso` (whether it
 * is offered, and the button's name), `/console/sso/start` (off to the provider, the trip bound to
 * this browser by a cookie holding its `state`) and `/console/sso/callback` (back from it: the
 * session opens, or the sign-in page says why not).
 */
import { Elysia } from 'elysia';
import { FpaError } from '../../platform/errors';
import { apiRouter, type Http } from '../../platform/http/router';
import { CONSOLE_PATH, isHttps } from '../console';
import { pendingCookie } from './cookies';
import { SsoView } from './model';
import { type SingleSignOn, SsoRefused } from './oidc';
import { ssoRedirectUri } from './origin';
import type { FactorUser } from './ports';
import { type FactorSignIn, SECOND_FACTOR_TTL_MS } from './second-step';

/** The browser's trip to the provider is bound to it: this cookie holds the trip's `state` (Lax: the callback is a cross-site navigation). */
const TRIP_COOKIE = 'fpa_console_sso';
const tripCookieOf = (request: Request) =>
  (request.headers.get('cookie') ?? '')
    .split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${TRIP_COOKIE}=`))
    ?.slice(TRIP_COOKIE.length + 1) ?? null;

const backToSignIn = (reason: string) => new Response(null, { status: 303, headers: { location: `../?sso_error=${reason}`, 'cache-control': 'no-store' } });

interface SsoDeps {
  sso: SingleSignOn;
  signIn: FactorSignIn;
  openSession: (request: Request, user: FactorUser, how: 'sso') => Promise<string>;
}

export function ssoRoutes(http: Http, deps: SsoDeps) {
  const { sso } = deps;
  const info = apiRouter(http, 'console-sso').get(
    `${CONSOLE_PATH}/sso`,
    () => ({ configured: sso.configured, name: sso.configured ? sso.providerName : null }),
    {
      response: { 200: SsoView },
      detail: { hide: true },
    },
  );
  // The trips sit beside `info`, not inside it: its closed query would reach them too.
  return new Elysia({ name: 'fpa-console-sso', seed: http.runtime.instanceId }).use(info).use(tripRoutes(http, deps));
}

/**
 * Off to the provider and back. The provider's redirect carries what it likes (`code`, `state`,
 * `iss`, `session_state`…; OAuth 2.0 says a client ignores what it does not know): these routes
 * take any query.
 */
function tripRoutes(http: Http, deps: SsoDeps) {
  const settings = http.runtime.settings;
  const { sso } = deps;
  const secure = (request: Request) => (isHttps(request, settings.CONSOLE_TRUST_PROXY) ? '; Secure' : '');
  return apiRouter(http, 'console-sso-trips', { anyQuery: true })
    .get(`${CONSOLE_PATH}/sso/start`, async ({ request }) => {
      if (!sso.configured) return backToSignIn('not_configured');
      let target: string;
      try {
        target = await sso.start(ssoRedirectUri(request, settings));
      } catch (error) {
        // The provider cannot be reached (logged where discovery failed): the sign-in page says so.
        if (error instanceof FpaError) return backToSignIn('unavailable');
        throw error;
      }
      const state = new URL(target).searchParams.get('state') ?? '';
      const headers = new Headers({ location: target, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      headers.append('set-cookie', `${TRIP_COOKIE}=${state}; Path=${CONSOLE_PATH}/sso; HttpOnly; SameSite=Lax; Max-Age=600${secure(request)}`);
      return new Response(null, { status: 302, headers });
    })
    .get(`${CONSOLE_PATH}/sso/callback`, async ({ request }) => {
      const url = new URL(request.url);
      const headers = new Headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      headers.append('set-cookie', `${TRIP_COOKIE}=; Path=${CONSOLE_PATH}/sso; HttpOnly; SameSite=Lax; Max-Age=0${secure(request)}`);
      try {
        // The trip must be this browser's own: a callback link someone else started signs nobody in here.
        if (!url.searchParams.get('state') || tripCookieOf(request) !== url.searchParams.get('state')) {
          throw new SsoRefused('failed', 'this sign-in was not started in this browser: start again');
        }
        const user = await sso.finish(url);
        // The provider's sign-in stands for the password, not for the second factor: a user with
        // one gives it next, on the console's second step, as after a password (the owner's
        // policy of roles that must have one would otherwise not hold for single sign-on).
        const pending = await deps.signIn.afterFirstFactor(user, 'sso');
        headers.append(
          'set-cookie',
          pending ? pendingCookie(request, settings, pending.token, SECOND_FACTOR_TTL_MS) : await deps.openSession(request, user, 'sso'),
        );
        headers.set('location', '../');
      } catch (error) {
        if (!(error instanceof SsoRefused)) throw error;
        http.runtime.log.info('single sign-on refused', { reason: error.reason, message: error.message });
        // Back to the sign-in page, which says why (by reason: nothing the provider sent is echoed).
        headers.set('location', `../?sso_error=${error.reason}`);
      }
      return new Response(null, { status: 303, headers });
    });
}
