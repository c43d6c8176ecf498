/**
 * The console at `/console/`: the shell page and its assets (public: they hold nothing), the
 * sign-in page of a one-time link, sign-out, and `session` (who is signed in, the CSRF token,
 * the attendance zone). None of these is part of the API document. A host's own sign-in
 * (`authorizeAdmin`) is honoured where the console starts: opening `/console/` while the host
 * vouches for the request opens a console session for that person.
 */
import { Elysia } from 'elysia';
import { FpaError } from '../../platform/errors';
import { apiBodyLimit, TERMINAL_FILE_LIMIT } from '../../platform/http/body';
import { askedFromElsewhere, refuseSignInFromElsewhere } from '../../platform/http/cross-site';
import { otherMethodsRefused } from '../../platform/http/other-methods';
import { IMMUTABLE } from '../../platform/http/pages';
import { actionsOf } from '../../platform/http/policy';
import { readCapped } from '../../platform/http/read-capped';
import { adminRouter, apiRouter, type Http } from '../../platform/http/router';
import { type ConsoleAsset, type ConsoleFiles, consoleFiles, LINK_PAGE_HEADERS, PAGE_HEADERS } from './assets';
import { ConsoleSessionView, LinkActor, LinkToken } from './model';
import { CONSOLE_PATH } from './paths';
import { type ConsoleService, CSRF_HEADER } from './service';

const SIGN_IN_BODY_LIMIT = 4096;

function assetResponse(found: ConsoleAsset, request: Request): Response {
  const headers: Record<string, string> = {
    'content-type': found.contentType,
    'cache-control': IMMUTABLE,
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  };
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    return new Response(found.gzipped, { headers: { ...headers, 'content-encoding': 'gzip' } });
  }
  return new Response(found.bytes, { headers });
}

const html = (text: string, status = 200, extra: Headers = new Headers(), pageHeaders: Record<string, string> = PAGE_HEADERS) => {
  for (const [k, v] of Object.entries(pageHeaders)) extra.set(k, v);
  return new Response(text, { status, headers: extra });
};

/** The pages of a one-time link: no Referer at all (their address is the link). */
const linkPage = (text: string, status: number) => html(text, status, new Headers(), LINK_PAGE_HEADERS);

export function consoleRoutes(http: Http, sessions: ConsoleService, options: { admsUrlPrefix: string }) {
  return pageRoutes(http, sessions)
    .use(linkCheckRoute(http, sessions))
    .use(sessionRoutes(http, sessions, options))
    .use(
      otherMethodsRefused('fpa-console-methods', http.runtime.instanceId, {
        [CONSOLE_PATH]: ['GET'],
        [`${CONSOLE_PATH}/`]: ['GET'],
        [`${CONSOLE_PATH}/sign-in`]: ['GET', 'POST'],
        [`${CONSOLE_PATH}/sign-in/check`]: ['POST'],
        [`${CONSOLE_PATH}/session`]: ['GET'],
        [`${CONSOLE_PATH}/sign-out`]: ['POST'],
      }),
    );
}

/**
 * An address under the console that no route serves (a bookmark of a page's path, a typing
 * mistake): a page in the console's own style, not Elysia's bare `NOT_FOUND`, whose relative
 * links lead back to `console/` however deep the address was.
 */
function notFoundPage(built: ConsoleFiles, request: Request): Response {
  const path = new URL(request.url).pathname;
  const depth = path.slice(path.indexOf(`${CONSOLE_PATH}/`) + CONSOLE_PATH.length + 1).split('/').length - 1;
  return html(built.notFound('../'.repeat(depth)), 404);
}

/** The shell page, its assets and the sign-in page of a one-time link: public, plain HTML. */
function pageRoutes(http: Http, sessions: ConsoleService) {
  const files = consoleFiles();
  const shell = async (request: Request): Promise<Response> => {
    const built: ConsoleFiles = await files();
    const headers = new Headers();
    // The host's sign-in starts a console session where none is open (an embedding host's users never see a link).
    const id = sessions.sessionIdOf(request);
    const open = id ? await sessions.session(id) : null;
    if (!open) {
      const identity = await http.auth.hostIdentity(request);
      if (identity) headers.append('set-cookie', sessions.cookieFor(request, await sessions.startHostSession(identity)));
    }
    return html(built.shell, 200, headers);
  };

  return (
    new Elysia({ name: 'fpa-console-pages', seed: http.runtime.instanceId })
      .get(CONSOLE_PATH, ({ request }) => {
        // The page's URLs are relative to `console/`.
        if (!new URL(request.url).pathname.endsWith('/'))
          return new Response(null, { status: 302, headers: { location: 'console/', 'cache-control': 'no-store' } });
        return shell(request);
      })
      .get(`${CONSOLE_PATH}/assets/:name`, async ({ params, request }) => {
        const found = (await files()).assets.get(params.name);
        return found ? assetResponse(found, request) : new Response('not found', { status: 404, headers: { 'cache-control': 'no-store' } });
      })
      // Every real route is more specific than this wildcard, and the 405s of the console's paths are routes too.
      .get(`${CONSOLE_PATH}/*`, async ({ request }) => notFoundPage(await files(), request))
      .get(`${CONSOLE_PATH}/sign-in`, async ({ request }) => {
        const built = await files();
        // A link of the old form (`?token=`): its token is in this request's line, so in every
        // access log on the way and in the Referer of what the page loads. It signs nobody in, and
        // is spent now so that a copy out of a log cannot either.
        const old = new URL(request.url).searchParams.get('token');
        if (old !== null) {
          if (old) await sessions.cancelLink(old);
          return linkPage(built.linkRefused(true), 410);
        }
        return linkPage(built.signIn, 200);
      })
      .post(
        `${CONSOLE_PATH}/sign-in`,
        async ({ request }) => {
          const built = await files();
          if (askedFromElsewhere(request, http.runtime.settings) !== null) return html(built.notice('Refused', 'Sign-in was asked from another site.'), 403);
          const raw = request.body ? await readCapped(request.body, SIGN_IN_BODY_LIMIT) : null;
          const token = raw ? (new URLSearchParams(new TextDecoder().decode(raw)).get('token') ?? '') : '';
          const session = token ? await sessions.redeemLink(token) : null;
          if (!session) return linkPage(built.linkRefused(false), 410);
          const headers = new Headers({ location: './', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
          headers.append('set-cookie', sessions.cookieFor(request, session));
          return new Response(null, { status: 303, headers });
        },
        { parse: 'none' },
      )
  );
}

/**
 * `POST /console/sign-in/check {token}`: whom a link signs in, without spending it (the link
 * page's script asks, having read the token after `#`); 404 when it signs nobody in. The API's
 * error body; asked from another site, 403.
 */
function linkCheckRoute(http: Http, sessions: ConsoleService) {
  return apiRouter(http, 'console-link-check').post(
    `${CONSOLE_PATH}/sign-in/check`,
    async ({ body, request }) => {
      refuseSignInFromElsewhere(request, http.runtime.settings);
      const link = await sessions.peekLink(body.token);
      if (!link) throw new FpaError('not_found', 'this sign-in link has been used, has expired, or is no longer valid', {});
      return { actor: link.actor };
    },
    { body: LinkToken, response: { 200: LinkActor }, detail: { hide: true } },
  );
}

// `session` and `sign-out` answer the API's error body; any administrator may call them
// (a JWT caller simply has no cookie to end and no CSRF token to read).
function sessionRoutes(http: Http, sessions: ConsoleService, options: { admsUrlPrefix: string }) {
  const zone = http.runtime.settings.ATTENDANCE_TIME_ZONE;
  const consentRequired = http.runtime.settings.ENROLLMENT_REQUIRE_CONSENT;
  const importMaxBytes = apiBodyLimit(http.runtime.settings);
  return adminRouter(http, 'console-session')
    .get(
      `${CONSOLE_PATH}/session`,
      async ({ request, admin }) => {
        const id = sessions.sessionIdOf(request);
        const open = id ? await sessions.session(id) : null;
        return {
          actor: admin.by,
          role: admin.role,
          areas: [...admin.areas],
          actions: actionsOf(admin),
          csrf_token: open?.csrf ?? null,
          csrf_header: CSRF_HEADER,
          expires_at: admin.expiresAt ? new Date(admin.expiresAt).toISOString() : null,
          time_zone: zone,
          adms_path: options.admsUrlPrefix,
          consent_required: consentRequired,
          import_max_bytes: importMaxBytes,
          terminal_file_max_bytes: TERMINAL_FILE_LIMIT,
        };
      },
      { response: { 200: ConsoleSessionView }, detail: { hide: true } },
    )
    .post(
      `${CONSOLE_PATH}/sign-out`,
      async ({ request }) => {
        const id = sessions.sessionIdOf(request);
        if (id) await sessions.end(id);
        const headers = new Headers({ 'cache-control': 'no-store' });
        for (const cookie of sessions.clearCookies(request)) headers.append('set-cookie', cookie);
        return new Response(null, { status: 204, headers });
      },
      { detail: { hide: true } },
    );
}
