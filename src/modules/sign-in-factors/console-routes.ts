/**
 * The console's sign-in steps after the password, and single sign-on (not part of the API
 * document): `GET/POST /console/sign-in/second-factor` (a code or a recovery code),
 * `POST /console/sign-in/passkey/options` and `/console/sign-in/passkey`, `POST
 * /console/sign-in/cancel`; `GET /console/sso` (whether it is offered), `/console/sso/start`
 * (off to the provider) and `/console/sso/callback` (back from it). A finished sign-in opens the
 * session through the users module (SessionOpener); the pending cookie goes.
 */
import type { Static } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { FpaError } from '../../platform/errors';
import { peerAddress } from '../../platform/http/routable-url';
import { apiRouter, type Http } from '../../platform/http/router';
import { CONSOLE_PATH, isHttps } from '../console';
import { clearPendingCookie, pendingTokenOf } from './cookies';
import { PasskeyAnswerBody, PendingSignInView, SecondFactorAnswerBody, type SignedInView, SsoView, WebAuthnOptions } from './model';
import { type SingleSignOn, SsoRefused } from './oidc';
import { requestOrigin, ssoRedirectUri } from './origin';
import type { FactorUser } from './ports';
import type { SecondFactors } from './service';
import type { FactorSignIn } from './sign-in';

/** Opens the console session of a user who has finished signing in; answers its `Set-Cookie`. */
export type SessionOpener = (request: Request, user: FactorUser, how: 'second_factor' | 'sso') => Promise<string>;

export interface ConsoleFactorDeps {
  signIn: FactorSignIn;
  factors: SecondFactors;
  sso: SingleSignOn;
  openSession: SessionOpener;
}

/** The browser's trip to the provider is bound to it: this cookie holds the trip's `state` (Lax: the callback is a cross-site navigation). */
const TRIP_COOKIE = 'fpa_console_sso';
const tripCookieOf = (request: Request) =>
  (request.headers.get('cookie') ?? '')
    .split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${TRIP_COOKIE}=`))
    ?.slice(TRIP_COOKIE.length + 1) ?? null;

/** A JSON step from another site is refused: the Origin, when sent, must be ours. */
function refuseOtherOrigin(request: Request): void {
  const origin = request.headers.get('origin');
  if (!origin) return;
  let host = '';
  try {
    host = new URL(origin).host;
  } catch {
    // `null` or garbage: refused below
  }
  if (host !== (request.headers.get('host') ?? new URL(request.url).host)) throw new FpaError('forbidden', 'sign-in was asked from another site', {});
}

export function consoleFactorRoutes(http: Http, deps: ConsoleFactorDeps) {
  const settings = http.runtime.settings;
  const { signIn, factors, sso } = deps;
  const tokenOf = (request: Request) => {
    const token = pendingTokenOf(request, settings);
    if (!token) throw new FpaError('unauthorized', 'this sign-in has expired: sign in again with your password', { reason: 'sign_in_expired' });
    return token;
  };
  type Ctx = { request: Request; server: Parameters<typeof peerAddress>[0] };
  const originOf = (c: Ctx) => requestOrigin(c.request, settings, peerAddress(c.server, c.request) ?? '');
  /** The session opens; the pending cookie goes; the client is told whether the role still needs a factor set up. */
  const signedIn = async (c: Ctx, user: FactorUser, how: 'second_factor' | 'sso'): Promise<Response> => {
    const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    headers.append('set-cookie', await deps.openSession(c.request, user, how));
    headers.append('set-cookie', clearPendingCookie(c.request, settings));
    const body: Static<typeof SignedInView> = { signed_in: true, must_enroll: await factors.mustEnroll(user) };
    return new Response(JSON.stringify(body), { status: 200, headers });
  };

  // The pending cookie is the credential of these steps: checked before the body is (401 first, as any credential).
  const steps = apiRouter(http, 'console-second-factor')
    .derive(({ request }) => ({ pendingToken: tokenOf(request) }))
    .get(
      `${CONSOLE_PATH}/sign-in/second-factor`,
      async ({ pendingToken }) => {
        const pending = await signIn.pending(pendingToken);
        if (!pending) throw new FpaError('unauthorized', 'this sign-in has expired: sign in again with your password', { reason: 'sign_in_expired' });
        return { username: pending.username, methods: pending.methods, expires_at: new Date(pending.expiresAt).toISOString() };
      },
      { response: { 200: PendingSignInView }, detail: { hide: true } },
    )
    .post(
      `${CONSOLE_PATH}/sign-in/second-factor`,
      async (c) => {
        refuseOtherOrigin(c.request);
        const { code, recovery_code: recoveryCode } = c.body;
        if (!code === !recoveryCode) throw new FpaError('validation_error', 'give either `code` or `recovery_code`', {});
        const answer = code ? { code } : { recoveryCode: recoveryCode as string };
        const user = await signIn.withCode(c.pendingToken, answer, originOf(c).address);
        return signedIn(c, user, 'second_factor');
      },
      { body: SecondFactorAnswerBody, detail: { hide: true } },
    )
    .post(
      `${CONSOLE_PATH}/sign-in/passkey/options`,
      async (c) => {
        refuseOtherOrigin(c.request);
        return (await signIn.passkeyOptions(c.pendingToken, originOf(c))) as unknown as Record<string, unknown>;
      },
      { response: { 200: WebAuthnOptions }, detail: { hide: true } },
    )
    .post(
      `${CONSOLE_PATH}/sign-in/passkey`,
      async (c) => {
        refuseOtherOrigin(c.request);
        const response = c.body.response as unknown as Parameters<FactorSignIn['withPasskey']>[1];
        const user = await signIn.withPasskey(c.pendingToken, response, originOf(c));
        return signedIn(c, user, 'second_factor');
      },
      { body: PasskeyAnswerBody, detail: { hide: true } },
    );

  const open = apiRouter(http, 'console-sign-in-open')
    .post(
      `${CONSOLE_PATH}/sign-in/cancel`,
      async ({ request }) => {
        const token = pendingTokenOf(request, settings);
        if (token) await signIn.cancel(token);
        return new Response(null, { status: 204, headers: { 'set-cookie': clearPendingCookie(request, settings), 'cache-control': 'no-store' } });
      },
      { detail: { hide: true } },
    )
    .get(`${CONSOLE_PATH}/sso`, () => ({ configured: sso.configured, name: sso.configured ? sso.providerName : null }), {
      response: { 200: SsoView },
      detail: { hide: true },
    });

  const secure = (request: Request) => (isHttps(request, settings.CONSOLE_TRUST_PROXY) ? '; Secure' : '');
  const trips = new Elysia({ name: 'fpa-console-sso', seed: http.runtime.instanceId })
    .get(`${CONSOLE_PATH}/sso/start`, async ({ request }) => {
      if (!sso.configured) return new Response(null, { status: 303, headers: { location: '../?sso_error=not_configured', 'cache-control': 'no-store' } });
      let target: string;
      try {
        target = await sso.start(ssoRedirectUri(request, settings));
      } catch (error) {
        // The provider cannot be reached (logged by the client): the sign-in page says so.
        if (error instanceof FpaError)
          return new Response(null, { status: 303, headers: { location: '../?sso_error=unavailable', 'cache-control': 'no-store' } });
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
        headers.append('set-cookie', await deps.openSession(request, user, 'sso'));
        // The provider's own sign-in (and its second factor) vouches for the person: no second step here.
        headers.set('location', '../');
        return new Response(null, { status: 303, headers });
      } catch (error) {
        if (!(error instanceof SsoRefused)) throw error;
        http.runtime.log.info('single sign-on refused', { reason: error.reason, message: error.message });
        // Back to the sign-in page, which says why (by reason: nothing the provider sent is echoed).
        headers.set('location', `../?sso_error=${error.reason}`);
        return new Response(null, { status: 303, headers });
      }
    });

  return new Elysia({ name: 'fpa-console-sign-in-steps', seed: http.runtime.instanceId }).use(steps).use(open).use(trips);
}
