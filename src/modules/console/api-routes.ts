/** `console-links/`: a one-time console sign-in link (what `bun run fpa:console-link` asks a running server for). */
import { errors } from '../../platform/http/model';
import { adminRouter, type Http } from '../../platform/http/router';
import { ConsoleLink, ConsoleLinkCreate } from './model';
import { CONSOLE_PATH } from './paths';
import type { ConsoleService } from './service';

export function consoleLinkRoutes(http: Http, sessions: ConsoleService) {
  return adminRouter(http, 'console-links', { allowOperatorToken: true }).post(
    '/console-links',
    async ({ body, admin, set }) => {
      const link = await sessions.createLink(body?.actor ?? admin.by, admin.by);
      set.status = 201;
      return {
        actor: link.actor,
        sign_in_path: `${CONSOLE_PATH}/sign-in?token=${encodeURIComponent(link.token)}`,
        expires_at: new Date(link.expiresAt).toISOString(),
      };
    },
    {
      body: ConsoleLinkCreate,
      response: { 201: ConsoleLink, ...errors() },
      detail: { summary: 'A one-time sign-in link to the console (valid CONSOLE_LINK_TTL); the token is shown this once', tags: ['console'] },
    },
  );
}
