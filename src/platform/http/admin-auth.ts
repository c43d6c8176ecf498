/**
 * Administrator authentication (docs/design.md): `Authorization: Bearer <JWT>` verified with jose,
 * HS256 with ADMIN_JWT_SECRET or any algorithm from ADMIN_JWKS_URL, `exp` required, optional
 * issuer and audience; the token's `scope` must hold ADMIN_SCOPE and `by` is its `sub`.
 * A host may pass its own `authorizeAdmin(request)` instead. The local operator token of the
 * lock file is accepted for job runs, agent creation and console links only, and only from a loopback peer:
 * the server binds 0.0.0.0 by default, and the token is meant for scripts on the same host.
 * A browser session (the console's cookie) is injected as `BrowserSessions`: the platform knows
 * no module, so the console module decides what its cookie means, including its CSRF check.
 * Neither that cookie nor the host's sign-in authorizes a change another site asked for
 * (cross-site.ts): a browser sends them by itself, also with a form posted from elsewhere.
 */
import { createRemoteJWKSet, type JWTPayload, type JWTVerifyOptions, jwtVerify } from 'jose';
import type { Settings } from '../config/settings';
import { constantTimeEqual } from '../crypto/secrets';
import { FpaError } from '../errors';
import { isLoopbackAddress } from '../net/ip';
import { type Caller, isRole, OPERATOR, ROLES, type Role } from './caller';
import { changeFromElsewhere } from './cross-site';

/** Who an administrator is, once checked: see caller.ts. */
export type AdminIdentity = Caller;

/** What a host's own check returns: who it is, and optionally the role and areas (default: an owner everywhere). */
export interface HostIdentity {
  by: string;
  role?: Role;
  areas?: readonly string[];
  expiresAt?: number;
}

/** A host's own check: return who the administrator is, or null to refuse. */
export type AuthorizeAdmin = (request: Request) => Promise<HostIdentity | null> | HostIdentity | null;

const hostCaller = (identity: HostIdentity): Caller => {
  checkHostIdentity(identity);
  return {
    actor: { kind: 'host', id: identity.by },
    by: identity.by,
    role: identity.role ?? 'owner',
    areas: identity.areas ?? [],
    ...(identity.expiresAt !== undefined ? { expiresAt: identity.expiresAt } : {}),
  };
};

/**
 * Refuses a host's answer that is not a `HostIdentity` (a host in JavaScript, or one that returns
 * its own session object): the error names the host's mistake, where the answer would otherwise
 * fail deep in a write (a session without an actor) or grant a role that does not exist.
 */
function checkHostIdentity(identity: HostIdentity): void {
  const { by, role, areas, expiresAt } = identity as Partial<Record<keyof HostIdentity, unknown>>;
  const problems = [
    typeof by === 'string' && by.trim() !== '' ? null : '`by` must be a non-empty string (who the administrator is)',
    role === undefined || isRole(role) ? null : `\`role\` must be one of ${ROLES.join(', ')}`,
    areas === undefined || (Array.isArray(areas) && areas.every((a) => typeof a === 'string')) ? null : '`areas` must be a list of area names',
    expiresAt === undefined || Number.isFinite(expiresAt) ? null : '`expiresAt` must be a time in ms since the epoch',
  ].filter((p) => p !== null);
  if (problems.length > 0) throw new Error(`authorizeAdmin returned what is not { by, role?, areas? } or null: ${problems.join('; ')}`);
}

/** `fpa_role` and `fpa_areas` of a token's claims; a token without them is an owner everywhere (the first releases' tokens). */
function roleOfClaims(payload: JWTPayload): { role: Role; areas: string[] } {
  const claimed = payload.fpa_role;
  if (claimed !== undefined && !isRole(claimed))
    throw new FpaError('forbidden', `the token's fpa_role is not one of ${ROLES.join(', ')}`, { roles: [...ROLES] });
  const areas = payload.fpa_areas;
  if (areas !== undefined && !(Array.isArray(areas) && areas.every((a) => typeof a === 'string'))) {
    throw new FpaError('forbidden', "the token's fpa_areas must be a list of area names", {});
  }
  return { role: claimed ?? 'owner', areas: areas ?? [] };
}

export const OPERATOR_TOKEN_HEADER = 'x-fpa-operator-token';

/** The last `exp` (seconds) whose instant is RFC 3339 (a four-digit year): 9999-12-31T23:59:59Z. */
const LAST_NAMEABLE_EXP = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000;

/**
 * Sessions of a browser (the console): the identity a request's session cookie stands for, or
 * null when it carries none that is valid. It throws (403) when the session is valid but the
 * request may not ride on it: a change without the CSRF header, a WebSocket from another origin.
 */
export interface BrowserSessions {
  identify(request: Request): Promise<AdminIdentity | null>;
  /** The session id the request's console cookie carries (live or not), or null without one. */
  sessionIdOf(request: Request): string | null;
}

/** API keys (`fpa_key_…`): the caller a presented key stands for, or null when it is not a live key. */
export interface ApiKeyCheck {
  identify(key: string): Promise<AdminIdentity | null>;
}

/** How API keys begin: a bearer token so shaped is an API key, never a JWT. */
export const API_KEY_PREFIX = 'fpa_key_';

export class AdminAuthenticator {
  private readonly secret: Uint8Array | null;
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | null;
  /** Set while this process holds the database lock; scripts present it to run jobs. */
  operatorToken: string | null = null;
  /** Set once the console module is built (src/app/create.ts). */
  browserSessions: BrowserSessions | null = null;
  /** Set once the users module is built (src/app/create.ts). */
  apiKeys: ApiKeyCheck | null = null;

  constructor(
    private readonly settings: Readonly<Settings>,
    private readonly hostAuthorize?: AuthorizeAdmin,
  ) {
    this.secret = settings.ADMIN_JWT_SECRET ? new TextEncoder().encode(settings.ADMIN_JWT_SECRET) : null;
    this.jwks = settings.ADMIN_JWKS_URL ? createRemoteJWKSet(new URL(settings.ADMIN_JWKS_URL)) : null;
  }

  get configured(): boolean {
    return Boolean(this.secret || this.jwks || this.hostAuthorize);
  }

  /** Verifies a bearer token (also used for the WebSocket's `access_token`). */
  async verifyToken(token: string): Promise<AdminIdentity> {
    const options: JWTVerifyOptions = { requiredClaims: ['exp'] };
    if (this.settings.ADMIN_JWT_ISSUER) options.issuer = this.settings.ADMIN_JWT_ISSUER;
    if (this.settings.ADMIN_JWT_AUDIENCE) options.audience = this.settings.ADMIN_JWT_AUDIENCE;
    let payload: JWTPayload | null = null;
    try {
      if (this.secret) {
        payload = (await jwtVerify(token, this.secret, { ...options, algorithms: ['HS256'] })).payload;
      }
    } catch {
      payload = null;
    }
    if (!payload && this.jwks) {
      try {
        payload = (await jwtVerify(token, this.jwks, options)).payload;
      } catch {
        payload = null;
      }
    }
    if (!payload) throw new FpaError('unauthorized', 'the administrator token is invalid or expired', {});
    // jose takes any number as `exp`: one past the last RFC 3339 instant (or past JavaScript's
    // dates, 1e15) passed here and failed later, where a route names the expiry (`users/me/`: 500).
    if (typeof payload.exp !== 'number' || payload.exp > LAST_NAMEABLE_EXP) {
      throw new FpaError('unauthorized', 'the administrator token expires at no time this server can name (exp after 9999-12-31T23:59:59Z)', {});
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : Array.isArray(payload.scp) ? payload.scp.map(String) : [];
    if (!scopes.includes(this.settings.ADMIN_SCOPE)) {
      throw new FpaError('forbidden', `the token lacks the scope ${this.settings.ADMIN_SCOPE}`, { required_scope: this.settings.ADMIN_SCOPE });
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new FpaError('unauthorized', 'the token has no subject', {});
    return { actor: { kind: 'token', id: payload.sub }, by: payload.sub, ...roleOfClaims(payload), expiresAt: payload.exp * 1000 };
  }

  /** Whom the embedding host's own sign-in vouches for on this request (the console starts a session for them), or null. */
  async hostIdentity(request: Request): Promise<AdminIdentity | null> {
    const identity = this.hostAuthorize ? await this.hostAuthorize(request) : null;
    return identity ? hostCaller(identity) : null;
  }

  /** `peerIp`: the caller's address; the operator token counts only from a loopback peer. */
  async authenticate(request: Request, options: { allowOperatorToken?: boolean; queryToken?: boolean; peerIp?: string | null } = {}): Promise<AdminIdentity> {
    if (options.allowOperatorToken && this.operatorToken && isLoopbackAddress(options.peerIp)) {
      const presented = request.headers.get(OPERATOR_TOKEN_HEADER);
      if (presented && constantTimeEqual(presented, this.operatorToken)) return OPERATOR;
    }
    // Credentials a caller sends on purpose (a bearer token) win over a cookie the browser adds
    // by itself: a tool on the same origin, such as the docs page, is not held to the console's CSRF rule.
    if (this.browserSessions && !request.headers.has('authorization')) {
      const identity = await this.browserSessions.identify(request);
      if (identity) return this.unlessAskedElsewhere(request, identity);
    }
    const host = await this.hostIdentity(request);
    if (host) return this.unlessAskedElsewhere(request, host);
    const header = request.headers.get('authorization') ?? '';
    let token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (!token && options.queryToken) token = new URL(request.url).searchParams.get('access_token') ?? '';
    if (!token) throw this.missingCredentials(request);
    if (token.startsWith(API_KEY_PREFIX)) {
      const key = this.apiKeys ? await this.apiKeys.identify(token) : null;
      if (!key) throw new FpaError('unauthorized', 'the API key is unknown, revoked or expired', {});
      return key;
    }
    if (!this.secret && !this.jwks) {
      throw new FpaError('unauthorized', 'administrator JWTs are not accepted here (no FPA_ADMIN_JWT_SECRET or FPA_ADMIN_JWKS_URL): use an API key', {});
    }
    return this.verifyToken(token);
  }

  /**
   * The 401 of a request without a live credential: a console cookie whose session has ended
   * (signed out, expired, ended by a password change or an administrator) is a person to send to
   * the sign-in page, not a script missing its token.
   */
  private missingCredentials(request: Request): FpaError {
    if (this.browserSessions?.sessionIdOf(request)) {
      return new FpaError('unauthorized', 'your console session has ended: sign in again', { reason: 'session_ended' });
    }
    return new FpaError('unauthorized', 'an administrator token is required (Authorization: Bearer <JWT>)', {});
  }

  /**
   * An identity a browser may have sent by itself (the console's cookie, whatever the host's
   * sign-in reads: its own cookie, HTTP Basic) does not authorize a change another site asked
   * for (403): a form posted from elsewhere carries it all the same. A request with a bearer
   * token was sent on purpose (no browser adds one by itself), so a host that vouches on one is
   * not held to this.
   */
  private unlessAskedElsewhere(request: Request, identity: AdminIdentity): AdminIdentity {
    if (/^Bearer\s+\S/i.test(request.headers.get('authorization') ?? '')) return identity;
    const elsewhere = changeFromElsewhere(request, this.settings);
    if (elsewhere === null) return identity;
    throw new FpaError(
      'forbidden',
      `a change asked from another site (${elsewhere}) is not accepted on a browser's sign-in: make it from this service's own pages, or with a bearer token or API key`,
      { reason: 'cross_site' },
    );
  }
}
