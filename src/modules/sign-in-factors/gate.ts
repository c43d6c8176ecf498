/**
 * The password sign-in's gate (users module, `PasswordSignIn.addGate`): a user with a second
 * factor gets no session from their password, but a pending step: its token in a short-lived
 * cookie (cookies.ts), and for the client what they may complete it with.
 */
import type { Settings } from '../../platform/config/settings';
import { accountOf, type PendingSignIn } from '../users';
import { pendingCookie } from './cookies';
import { type FactorSignIn, SECOND_FACTOR_TTL_MS } from './second-step';

type UserRowOf = Parameters<typeof accountOf>[0];

export function secondFactorGate(signIn: FactorSignIn, settings: Readonly<Settings>) {
  return async (row: UserRowOf): Promise<PendingSignIn | null> => {
    const user = accountOf(row);
    const started = await signIn.afterFirstFactor(user, 'password');
    if (!started) return null;
    const view = await signIn.pending(started.token);
    return {
      answer: {
        second_factor_required: true,
        second_factor: started.kind,
        methods: view?.methods ?? [],
        expires_at: new Date(started.expiresAt).toISOString(),
      },
      cookie: (request) => pendingCookie(request, settings, started.token, SECOND_FACTOR_TTL_MS),
    };
  };
}
