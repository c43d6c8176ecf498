/**
 * The second step of a sign-in. A first factor (a correct password, or the company's provider
 * through single sign-on) for a user with a second factor opens no session: it earns a "second
 * factor pending" state (a random token in its own short-lived cookie, SECOND_FACTOR_TTL_MS) that
 * grants nothing but this step. A TOTP code, a recovery code or a passkey then completes it, and
 * only then does the users module open the session. Wrong codes count toward the same limit as
 * wrong passwords (per username and per address: 429).
 */
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { FpaError } from '../../platform/errors';
import type { FactorUser, FactorUserDirectory, RequestOrigin, SignInThrottle } from './ports';
import type { SecondFactorKind, SecondFactors } from './service';
import type { FirstFactor } from './states';

/** How long a person has, after their password, to give the second factor. */
export const SECOND_FACTOR_TTL_MS = 5 * 60_000;

export interface PendingSecondStep {
  username: string;
  /** How the sign-in began (the step's words say so). */
  first: FirstFactor;
  /** What this user can complete the sign-in with. */
  methods: ('totp' | 'recovery_code' | 'passkey')[];
  expiresAt: number;
}

export type SecondFactorAnswer = { code: string } | { recoveryCode: string };

/** A sign-in completed: whose, and how it began (the session records it). */
export interface CompletedSignIn {
  user: FactorUser;
  first: FirstFactor;
}

export class FactorSignIn {
  constructor(
    private readonly factors: SecondFactors,
    private readonly users: FactorUserDirectory,
    private readonly throttle: SignInThrottle,
  ) {}

  /**
   * After a first factor (a correct password, a provider's sign-in): null when the user has no
   * second factor (the session may open now), else the pending token for the cookie.
   */
  async afterFirstFactor(user: FactorUser, first: FirstFactor): Promise<{ token: string; expiresAt: number; kind: SecondFactorKind } | null> {
    const kind = await this.factors.kind(user.id);
    if (kind === 'none') return null;
    return { ...(await this.factors.states.beginSecondFactor(user.id, SECOND_FACTOR_TTL_MS, first)), kind };
  }

  /** What the second-factor step shows; null when the token is unknown or over. */
  async pending(token: string): Promise<PendingSecondStep | null> {
    const found = await this.open(token);
    if (!found) return null;
    const { user, expiresAt, first } = found;
    const [totp, keys, left] = await Promise.all([
      this.factors.totp.confirmedAt(user.id),
      this.factors.passkeys.list(user.id),
      this.factors.totp.recoveryCodesLeft(user.id),
    ]);
    const methods: PendingSecondStep['methods'] = [];
    if (keys.length > 0) methods.push('passkey');
    if (totp !== null) methods.push('totp');
    if (left > 0) methods.push('recovery_code');
    return { username: user.username, first, methods, expiresAt };
  }

  /** A TOTP code or a recovery code: the user, whose session may open now; 401 when wrong. */
  async withCode(token: string, answer: SecondFactorAnswer, address: string): Promise<CompletedSignIn> {
    const { user, first } = await this.required(token);
    await this.throttle.check(user.username, address);
    const right =
      'code' in answer ? await this.factors.totp.verify(user.id, answer.code) : await this.factors.totp.spendRecoveryCode(user, answer.recoveryCode);
    if (!right) {
      await this.throttle.failed(user.username, address);
      throw new FpaError('unauthorized', 'code' in answer ? 'that code is not right' : 'that recovery code is not right or was used already', {
        field: 'code' in answer ? 'code' : 'recovery_code',
      });
    }
    return this.finish(token, { user, first });
  }

  /** Options for the browser's passkey prompt; the challenge is kept with the pending sign-in. */
  async passkeyOptions(token: string, origin: RequestOrigin): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { user } = await this.required(token);
    const options = await this.factors.passkeys.authenticationOptions(user.id, origin);
    await this.factors.states.setChallenge(token, options.challenge);
    return options;
  }

  async withPasskey(token: string, response: AuthenticationResponseJSON, origin: RequestOrigin): Promise<CompletedSignIn> {
    const { user, challenge, first } = await this.required(token);
    await this.throttle.check(user.username, origin.address);
    if (!challenge || !(await this.factors.passkeys.verify(user.id, response, challenge, origin))) {
      await this.throttle.failed(user.username, origin.address);
      throw new FpaError('unauthorized', 'the passkey was not accepted', {});
    }
    return this.finish(token, { user, first });
  }

  /** Gives up a pending sign-in (the person chose to start again). */
  async cancel(token: string): Promise<void> {
    await this.factors.states.end(token);
  }

  private async open(token: string): Promise<{ user: FactorUser; challenge: string | null; expiresAt: number; first: FirstFactor } | null> {
    const state = await this.factors.states.secondFactor(token);
    if (!state) return null;
    const user = await this.users.byId(state.userId);
    // A user disabled or removed meanwhile has nothing to complete.
    if (!user || user.disabled) return null;
    return { user, challenge: state.challenge, expiresAt: state.expiresAt, first: state.first };
  }

  private async required(token: string) {
    const found = await this.open(token);
    if (!found) throw new FpaError('unauthorized', 'this sign-in has expired: sign in again', { reason: 'sign_in_expired' });
    return found;
  }

  /** Single use: of two requests completing one pending sign-in, one opens a session. */
  private async finish(token: string, completed: CompletedSignIn): Promise<CompletedSignIn> {
    if (!(await this.factors.states.end(token))) {
      throw new FpaError('unauthorized', 'this sign-in has expired: sign in again', { reason: 'sign_in_expired' });
    }
    return completed;
  }
}
