/**
 * "Set up a second factor first": a signed-in user whose role requires a second factor (the
 * owner's choice, `users/second-factor-policy/`) and who has none may, with their console
 * session, only read who they are, set up a factor, and sign out. Everything else answers 403
 * `forbidden` with `reason: second_factor_required` until a factor is set up, so the rule holds
 * for the API as for the console's pages. Wraps the console's BrowserSessions (create.ts).
 */
import { FpaError } from '../../platform/errors';
import type { BrowserSessions } from '../../platform/http/admin-auth';
import { API_PREFIX } from '../../platform/http/api-prefix';
import { CONSOLE_PATH } from '../console';
import type { FactorUserDirectory } from './ports';
import type { SecondFactors } from './service';

/** What an enrolling user may still reach. */
function allowedWhileEnrolling(pathname: string): boolean {
  return (
    pathname === `${CONSOLE_PATH}/session` ||
    pathname === `${CONSOLE_PATH}/sign-out` ||
    pathname === `${API_PREFIX}/users/me` ||
    pathname.startsWith(`${API_PREFIX}/users/me/`)
  );
}

export function enrollmentGate(sessions: BrowserSessions, factors: SecondFactors, users: FactorUserDirectory): BrowserSessions {
  return {
    async identify(request) {
      const identity = await sessions.identify(request);
      if (identity?.actor.kind !== 'user') return identity;
      const path = new URL(request.url).pathname;
      // Matched after any mount prefix of a host: the tail is what counts.
      const at = Math.max(path.indexOf(`${API_PREFIX}/`), path.indexOf(`${CONSOLE_PATH}/`));
      if (allowedWhileEnrolling(at >= 0 ? path.slice(at) : path)) return identity;
      if (!(await factors.isRequired(identity.role))) return identity;
      const user = await users.byId(identity.actor.id);
      if (user && (await factors.mustEnroll(user))) {
        throw new FpaError('forbidden', `your role (${identity.role}) requires a second factor: set one up on your profile first`, {
          reason: 'second_factor_required',
        });
      }
      return identity;
    },
    sessionIdOf: (request) => sessions.sessionIdOf(request),
  };
}
