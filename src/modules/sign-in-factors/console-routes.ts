/**
 * The console's sign-in steps after the password (not part of the API document):
 * `GET/POST /console/sign-in/second-factor` (a code or a recovery code),
 * `POST /console/sign-in/passkey/options` and `/console/sign-in/passkey`, `POST
 * /console/sign-in/cancel`; and single sign-on's (sso-routes.ts). A finished sign-in opens the
 * session through the users module (SessionOpener); the pending cookie goes.
 */
import type { Static } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { FpaError } from '../../platform/errors';
import { clientAddress } from '../../platform/http/client-address';
import { refuseSignInFromElsewhere } from '../../platform/http/cross-site';
import { apiRouter, type Http } from '../../platform/http/router';
import { CONSOLE_PATH } from '../console';
import { clearPendingCookie, pendingTokenOf } from './cookies';
import { PasskeyAnswerBody, PendingSignInView, SecondFactorAnswerBody, type SignedInView, WebAuthnOptions } from './model';
import type { SingleSignOn } from './oidc';
import { requestOrigin } from './origin';
import type { FactorUser } from './ports';
import type { CompletedSignIn, FactorSignIn } from './second-step';
import type { SecondFactors } from './service';
import { ssoRoutes } from './sso-routes';

/** Opens the console session of a user who has finished signing in; answers its `Set-Cookie`. */
export type SessionOpener = (request: Request, user: FactorUser, how: 'second_factor' | 'sso') => Promise<string>;

export interface ConsoleFactorDeps {
  signIn: FactorSignIn;
  factors: SecondFactors;
  sso: SingleSignOn;
  openSession: SessionOpener;
}

type Ctx = { request: Request; server: Parameters<typeof clientAddress>[0] };

const expired = () => new FpaError('unauthorized', 'this sign-in has expired: sign in again', { reason: 'sign_in_expired' });

/** The session opens (recording how the sign-in began); the pending cookie goes; the client is told whether the role still needs a factor set up. */
async function signedInResponse(
  request: Request,
  { user, first }: CompletedSignIn,
  deps: ConsoleFactorDeps,
  settings: Http['runtime']['settings'],
): Promise<Response> {
  const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
  headers.append('set-cookie', await deps.openSession(request, user, first === 'sso' ? 'sso' : 'second_factor'));
  headers.append('set-cookie', clearPendingCookie(request, settings));
  const body: Static<typeof SignedInView> = { signed_in: true, must_enroll: await deps.factors.mustEnroll(user) };
  return new Response(JSON.stringify(body), { status: 200, headers });
}

/** The second step: its credential is the pending cookie a right password set. */
function stepRoutes(http: Http, deps: ConsoleFactorDeps) {
  const settings = http.runtime.settings;
  const { signIn } = deps;
  const originOf = (c: Ctx) => requestOrigin(c.request, settings, clientAddress(c.server, c.request, settings.CONSOLE_TRUST_PROXY) ?? '');
  const signedIn = (c: Ctx, completed: CompletedSignIn) => signedInResponse(c.request, completed, deps, settings);

  // The pending cookie is the credential of these steps: checked before the body is (401 first, as any credential).
  const steps = apiRouter(http, 'console-second-factor')
    .derive(({ request }) => {
      const pendingToken = pendingTokenOf(request, settings);
      if (!pendingToken) throw expired();
      return { pendingToken };
    })
    .get(
      `${CONSOLE_PATH}/sign-in/second-factor`,
      async ({ pendingToken }) => {
        const pending = await signIn.pending(pendingToken);
        if (!pending) throw expired();
        return { username: pending.username, first: pending.first, methods: pending.methods, expires_at: new Date(pending.expiresAt).toISOString() };
      },
      { response: { 200: PendingSignInView }, detail: { hide: true } },
    )
    .post(
      `${CONSOLE_PATH}/sign-in/second-factor`,
      async (c) => {
        refuseSignInFromElsewhere(c.request, settings);
        const { code, recovery_code: recoveryCode } = c.body;
        if (!code === !recoveryCode) throw new FpaError('validation_error', 'give either `code` or `recovery_code`', {});
        const answer = code ? { code } : { recoveryCode: recoveryCode as string };
        return signedIn(c, await signIn.withCode(c.pendingToken, answer, originOf(c).address));
      },
      { body: SecondFactorAnswerBody, detail: { hide: true } },
    )
    .post(
      `${CONSOLE_PATH}/sign-in/passkey/options`,
      async (c) => {
        refuseSignInFromElsewhere(c.request, settings);
        // A copy as a plain object: the library's options type is an interface, which the
        // response model's record does not take as it is.
        return { ...(await signIn.passkeyOptions(c.pendingToken, originOf(c))) };
      },
      { response: { 200: WebAuthnOptions }, detail: { hide: true } },
    )
    .post(
      `${CONSOLE_PATH}/sign-in/passkey`,
      async (c) => {
        refuseSignInFromElsewhere(c.request, settings);
        return signedIn(c, await signIn.withPasskey(c.pendingToken, c.body.response, originOf(c)));
      },
      { body: PasskeyAnswerBody, detail: { hide: true } },
    );

  return steps;
}

/** Gives up a pending sign-in (the person chose to start again): needs no credential, ends what the cookie names. */
function cancelRoute(http: Http, signIn: FactorSignIn) {
  const settings = http.runtime.settings;
  return apiRouter(http, 'console-sign-in-cancel').post(
    `${CONSOLE_PATH}/sign-in/cancel`,
    async ({ request }) => {
      const token = pendingTokenOf(request, settings);
      if (token) await signIn.cancel(token);
      return new Response(null, { status: 204, headers: { 'set-cookie': clearPendingCookie(request, settings), 'cache-control': 'no-store' } });
    },
    { detail: { hide: true } },
  );
}

export function consoleFactorRoutes(http: Http, deps: ConsoleFactorDeps) {
  return new Elysia({ name: 'fpa-console-sign-in-steps', seed: http.runtime.instanceId })
    .use(stepRoutes(http, deps))
    .use(cancelRoute(http, deps.signIn))
    .use(ssoRoutes(http, { sso: deps.sso, signIn: deps.signIn, openSession: deps.openSession }));
}
