/** `console-links/`: a one-time console sign-in link (what `bun run fpa:console-link` asks a running server for). */
import { FpaError } from '../../platform/errors';
import type { Caller } from '../../platform/http/caller';
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { ConsoleLink, ConsoleLinkCreate } from './model';
import { signInPath } from './paths';
import type { ConsoleService } from './service';

/**
 * Whom a link may sign in: the operator (scripts on the server) may name anyone; any other
 * caller only themself, and the session it opens never outlives the caller's credential. An API
 * key opens no console session (it is for programs, and would outlive its revocation in a cookie).
 */
function linkActor(admin: Caller, asked: string | undefined): string {
  if (admin.actor.kind === 'api_key') throw new FpaError('forbidden', 'an API key cannot open console sessions', {});
  if (asked !== undefined && asked !== admin.by && admin.actor.kind !== 'operator') {
    throw new FpaError('forbidden', 'a console link may only be made for yourself (the operator, on the server, may name anyone)', { actor: asked });
  }
  return asked ?? admin.by;
}

export function consoleLinkRoutes(http: Http, sessions: ConsoleService) {
  return adminRouter(http, 'console-links', { allowOperatorToken: true }).post(
    '/console-links',
    async ({ body, admin, set }) => {
      const link = await sessions.createLink(linkActor(admin, body?.actor), admin);
      set.status = 201;
      return {
        actor: link.actor,
        sign_in_path: signInPath(link.token),
        expires_at: new Date(link.expiresAt).toISOString(),
      };
    },
    {
      body: ConsoleLinkCreate,
      response: { 201: ConsoleLink, ...errors('conflict') },
      detail: { summary: 'A one-time sign-in link to the console (valid CONSOLE_LINK_TTL); the token is shown this once', tags: ['console'] },
    },
  );
}
