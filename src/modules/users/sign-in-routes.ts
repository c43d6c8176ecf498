/**
 * The console's own sign-in endpoints (not in the API document): `POST /console/password`
 * (username and password) and the invite page's `POST /console/invite/check` and
 * `POST /console/invite` (choose a password). Each answers the API's error body; a success sets
 * the session cookie and answers 204. Posts from another site are refused.
 */
import { t } from 'elysia';
import { FpaError } from '../../platform/errors';
import { clientAddress } from '../../platform/http/client-address';
import { refuseSignInFromElsewhere } from '../../platform/http/cross-site';
import { apiRouter, type Http } from '../../platform/http/router';
import { CONSOLE_PATH, type ConsoleService, type StartedSession } from '../console';
import type { Invites } from './invites';
import { InviteComplete, InviteInfo, InviteToken, PasswordSignIn as PasswordSignInBody } from './model';
import type { PasswordSignIn } from './sign-in';

export function signInRoutes(http: Http, deps: { signIn: PasswordSignIn; invites: Invites; sessions: ConsoleService }) {
  const { signIn, invites, sessions } = deps;
  const started = (request: Request, session: StartedSession) => {
    const headers = new Headers({ 'cache-control': 'no-store' });
    headers.append('set-cookie', sessions.cookieFor(request, session));
    return new Response(null, { status: 204, headers });
  };
  const sameSite = (request: Request) => refuseSignInFromElsewhere(request, http.runtime.settings);
  const hidden = { detail: { hide: true } };
  return apiRouter(http, 'console-sign-in')
    .post(
      `${CONSOLE_PATH}/password`,
      async ({ body, request, server }) => {
        sameSite(request);
        const outcome = await signIn.signIn(body.username, body.password, clientAddress(server, request, http.runtime.settings.CONSOLE_TRUST_PROXY));
        if ('pending' in outcome) {
          const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
          if (outcome.pending.cookie) headers.append('set-cookie', outcome.pending.cookie(request));
          return new Response(JSON.stringify(outcome.pending.answer), { status: 200, headers });
        }
        return started(request, outcome.session);
      },
      { body: PasswordSignInBody, ...hidden },
    )
    .post(
      `${CONSOLE_PATH}/invite/check`,
      async ({ body, request }) => {
        sameSite(request);
        const info = await invites.peek(body.token);
        if (!info) throw new FpaError('not_found', 'this link has been used, has expired, or was replaced by a newer one', {});
        return info;
      },
      { body: InviteToken, response: { 200: InviteInfo }, ...hidden },
    )
    .post(
      `${CONSOLE_PATH}/invite`,
      async ({ body, request }) => {
        sameSite(request);
        const done = await invites.complete(body.token, body.password);
        if (!done) throw new FpaError('not_found', 'this link has been used, has expired, or was replaced by a newer one', {});
        return started(request, done.session);
      },
      { body: InviteComplete, response: { 204: t.Void() }, ...hidden },
    );
}
