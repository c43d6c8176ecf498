/**
 * What second factors and single sign-on need from the users module, given by the composition
 * root (src/app/modules.ts): the user behind an id or a verified email, a check of their current
 * password, and a way to open the session a finished sign-in earns.
 */
import type { Role } from '../../platform/http/caller';

export interface FactorUser {
  id: string;
  username: string;
  name: string;
  email: string | null;
  role: Role;
  disabled: boolean;
  /** False for a user who signs in only by single sign-on: nothing to ask again before a change. */
  hasPassword: boolean;
}

export interface FactorUserDirectory {
  byId(id: string): Promise<FactorUser | null>;
  /** The user with this email (compared without case), or null. */
  byEmail(email: string): Promise<FactorUser | null>;
}

/**
 * The user's current password, asked again before a second factor is added or removed or recovery
 * codes are made: a session alone (a browser left signed in) must not weaken the account
 * (users/sign-in.ts `confirmPassword`).
 */
export interface PasswordCheck {
  /** Throws 403 when `password` is not the user's current password; wrong ones count toward a limit. */
  confirm(userId: string, password: string): Promise<void>;
}

/** Failed attempts: the same limit as wrong passwords (429 with Retry-After once over it). */
export interface SignInThrottle {
  /** Throws `rate_limited` when the username or the address has failed too often lately. */
  check(username: string, address: string): Promise<void> | void;
  failed(username: string, address: string): Promise<void> | void;
}

/** Where a request came from and went to: the rate limit's address and the WebAuthn origin. */
export interface RequestOrigin {
  address: string;
  /** `https://attendance.example.com` (no path). */
  origin: string;
  /** The host name, the WebAuthn relying party id. */
  rpId: string;
}
