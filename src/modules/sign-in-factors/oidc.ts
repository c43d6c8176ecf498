/**
 * Single sign-on with the company's OpenID Connect provider (CONSOLE_OIDC_ISSUER, _CLIENT_ID,
 * _CLIENT_SECRET) through oauth4webapi: discovery, the authorization code flow with PKCE (S256),
 * `state` and `nonce`, the ID token checked (issuer, audience, signature, nonce, expiry). The
 * person is the user whose email is the provider's VERIFIED `email` (from the ID token, else
 * from the userinfo endpoint): nobody is created by a sign-in, and a disabled user is refused.
 */
import * as oauth from 'oauth4webapi';
import { FpaError } from '../../platform/errors';
import { audit } from '../audit';
import type { FactorUser, FactorUserDirectory } from './ports';
import type { FactorRuntime } from './runtime';
import type { SignInStates } from './states';

/** How long a person has at the provider before the trip's state is forgotten. */
const TRIP_MS = 10 * 60_000;
/** The provider's metadata is fetched again after this (keys rotate; the jwks are fetched by need). */
const DISCOVERY_TTL_MS = 60 * 60_000;

/** A refusal the callback page explains (no session is opened). */
export class SsoRefused extends Error {
  constructor(
    readonly reason: 'unknown_email' | 'unverified_email' | 'disabled' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

export class SingleSignOn {
  private discovered: { at: number; as: oauth.AuthorizationServer } | null = null;

  constructor(
    private readonly ctx: FactorRuntime,
    private readonly states: SignInStates,
    private readonly users: FactorUserDirectory,
  ) {}

  get configured(): boolean {
    const s = this.ctx.settings;
    return s.CONSOLE_OIDC_ISSUER !== '' && s.CONSOLE_OIDC_CLIENT_ID !== '';
  }

  /** What the sign-in button says: CONSOLE_OIDC_NAME, else the issuer's host. */
  get providerName(): string {
    const s = this.ctx.settings;
    if (s.CONSOLE_OIDC_NAME) return s.CONSOLE_OIDC_NAME;
    try {
      return new URL(s.CONSOLE_OIDC_ISSUER).host;
    } catch {
      return 'your company account';
    }
  }

  private get options() {
    // An `http:` issuer is the operator's explicit choice (a provider on the LAN, a test); fpa:check warns about it.
    return { [oauth.allowInsecureRequests]: this.ctx.settings.CONSOLE_OIDC_ISSUER.startsWith('http:') };
  }

  private get client(): oauth.Client {
    return { client_id: this.ctx.settings.CONSOLE_OIDC_CLIENT_ID };
  }

  private get clientAuth(): oauth.ClientAuth {
    const secret = this.ctx.settings.CONSOLE_OIDC_CLIENT_SECRET;
    return secret ? oauth.ClientSecretBasic(secret) : oauth.None();
  }

  private async server(): Promise<oauth.AuthorizationServer> {
    const now = this.ctx.clock.now();
    if (this.discovered && now - this.discovered.at < DISCOVERY_TTL_MS) return this.discovered.as;
    const issuer = new URL(this.ctx.settings.CONSOLE_OIDC_ISSUER);
    try {
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...this.options }));
      this.discovered = { at: now, as };
      return as;
    } catch (error) {
      this.ctx.log.warn('the OpenID provider could not be discovered', { issuer: issuer.href, error: String(error) });
      throw new FpaError('unavailable', 'the company sign-in provider cannot be reached now: sign in with your password', {});
    }
  }

  /** Where to send the browser: the provider's authorization endpoint with this trip's state, nonce and PKCE challenge. */
  async start(redirectUri: string): Promise<string> {
    if (!this.configured) throw new FpaError('not_found', 'single sign-on is not configured', {});
    const as = await this.server();
    if (!as.authorization_endpoint) throw new FpaError('unavailable', 'the sign-in provider names no authorization endpoint', {});
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    await this.states.putOidc(state, { verifier, nonce, redirect_uri: redirectUri }, TRIP_MS);
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set('client_id', this.client.client_id);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', 'openid email profile');
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    url.searchParams.set('nonce', nonce);
    return url.href;
  }

  /** The provider sent the browser back: the user it signed in, or SsoRefused. */
  async finish(callbackUrl: URL): Promise<FactorUser> {
    const trip = await this.states.takeOidc(callbackUrl.searchParams.get('state') ?? '');
    if (!trip?.verifier || !trip.nonce || !trip.redirect_uri) throw new SsoRefused('failed', 'this sign-in has expired or was already used: start again');
    const email = await this.verifiedEmail(callbackUrl, trip as { verifier: string; nonce: string; redirect_uri: string });
    const user = await this.users.byEmail(email);
    const now = this.ctx.clock.now();
    const refuse = async (reason: SsoRefused['reason'], message: string) => {
      await this.ctx.db.write(async ({ tx }) => {
        await audit(tx, now, { actor: email, action: 'user.sso_refused', targetType: 'user', targetId: user?.id ?? null, details: { reason } });
      });
      return new SsoRefused(reason, message);
    };
    if (!user) throw await refuse('unknown_email', `no user of the console has the email ${email}: ask an administrator to invite you`);
    if (user.disabled) throw await refuse('disabled', 'your account is disabled');
    return user;
  }

  private async verifiedEmail(callbackUrl: URL, trip: { verifier: string; nonce: string; redirect_uri: string }): Promise<string> {
    const as = await this.server();
    const state = callbackUrl.searchParams.get('state') ?? undefined;
    let claims: Record<string, unknown>;
    let accessToken: string;
    try {
      const params = oauth.validateAuthResponse(as, this.client, callbackUrl.searchParams, state);
      const response = await oauth.authorizationCodeGrantRequest(as, this.client, this.clientAuth, params, trip.redirect_uri, trip.verifier, this.options);
      const result = await oauth.processAuthorizationCodeResponse(as, this.client, response, { expectedNonce: trip.nonce, requireIdToken: true });
      claims = { ...(oauth.getValidatedIdTokenClaims(result) ?? {}) };
      accessToken = result.access_token;
      if (typeof claims.email !== 'string' && as.userinfo_endpoint) {
        const info = await oauth.processUserInfoResponse(
          as,
          this.client,
          String(claims.sub),
          await oauth.userInfoRequest(as, this.client, accessToken, this.options),
        );
        claims = { ...claims, ...info };
      }
    } catch (error) {
      this.ctx.log.warn('a single sign-on was refused by the protocol checks', { error: error instanceof Error ? error.message : String(error) });
      throw new SsoRefused('failed', 'the sign-in provider’s answer could not be verified: start again');
    }
    const email = typeof claims.email === 'string' ? claims.email.trim() : '';
    if (!email) throw new SsoRefused('unverified_email', 'the sign-in provider gave no email address');
    if (claims.email_verified !== true) throw new SsoRefused('unverified_email', `the sign-in provider has not verified the email ${email}`);
    return email;
  }
}
