/**
 * Who is calling the administrators' API: a typed actor (what kind of credential, and whose),
 * the role it holds and the areas it is limited to (empty: everywhere). Every credential
 * (an administrator JWT, a console session, an API key, the host's own sign-in, the local
 * operator token) is turned into one `Caller` by the administrator check (admin-auth.ts), so
 * the role and area rules are enforced in one place whatever the way in.
 */

/** The roles of API.md ("People who sign in"), from the most to the least powerful. */
export const ROLES = ['owner', 'admin', 'hr', 'manager', 'installer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/**
 * The kinds of actor the audit log names: a signed-in user, an API key, an administrator JWT's
 * subject, the embedding host's own sign-in, the local operator (scripts on the server), a
 * terminal, a scheduled job, an enrollment agent.
 */
export type ActorKind = 'user' | 'api_key' | 'token' | 'host' | 'operator' | 'terminal' | 'job' | 'agent';

export interface Actor {
  kind: ActorKind;
  /** The user's or key's id, the token's subject, the terminal's serial, the job's name. */
  id: string;
}

export interface Caller {
  actor: Actor;
  /** A readable name for logs and the audit log's `actor` column (the subject, the username). */
  by: string;
  role: Role;
  /** The areas the caller is limited to; empty means every area. */
  areas: readonly string[];
  /** When the presented credential expires (ms UTC); absent when it does not (or the host decided). */
  expiresAt?: number;
}

/** The operator of the server itself (the lock file's token): an owner everywhere. */
export const OPERATOR: Caller = { actor: { kind: 'operator', id: 'operator' }, by: 'operator', role: 'owner', areas: [] };
