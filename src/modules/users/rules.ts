/**
 * The account rules every way in obeys (the role policy of routes is the `roles` module's; these
 * are what the users service itself refuses, whoever routes to it):
 * - a caller grants no role above its own (ROLES order), so only an owner makes an owner, and
 *   an admin can create, change, reset or delete no owner (nor mint an owner API key);
 * - a caller limited to areas grants only areas within its own, and never "everywhere";
 * - a caller limited to areas sees only accounts and keys that share an area with it; others do
 *   not exist for it (404). It changes, resets or removes only accounts wholly within its areas:
 *   an account that also has another area is that area's administrators' as much as its own, and
 *   a reset link would hand the whole account (every area of it) to whoever holds it (403).
 */
import { FpaError } from '../../platform/errors';
import { API_PREFIX } from '../../platform/http/api-prefix';
import { type Caller, ROLES, type Role } from '../../platform/http/caller';
import { permits, ruleFor } from '../../platform/http/policy';

const rank = (role: Role) => ROLES.indexOf(role);

/** Whether the caller may hand out `role` (its own or a lesser one). */
export function assertMayGrant(caller: Caller, role: Role): void {
  if (rank(role) < rank(caller.role)) {
    throw new FpaError('forbidden', role === 'owner' ? 'only an owner may make an owner' : `a ${caller.role} may not grant the role ${role}`, { role });
  }
}

/** Whether the caller may act on an account or key that holds `role` (an admin never on an owner). */
export function assertMayTouch(caller: Caller, role: Role): void {
  if (rank(role) < rank(caller.role)) {
    throw new FpaError('forbidden', role === 'owner' ? 'only an owner may change an owner' : `a ${caller.role} may not change a ${role}`, { role });
  }
}

/** The areas among `areas` outside the caller's (none for a caller of every area). */
function outsideCallerAreas(caller: Caller, areas: readonly string[]): string[] {
  return caller.areas.length === 0 ? [] : areas.filter((a) => !caller.areas.includes(a));
}

/** Areas a caller limited to areas may grant: a non-empty subset of its own. */
export function assertMayGrantAreas(caller: Caller, areas: readonly string[]): void {
  if (caller.areas.length === 0) return;
  const outside = outsideCallerAreas(caller, areas);
  if (areas.length === 0 || outside.length > 0) {
    throw new FpaError('forbidden', `you may only grant areas of your own (${caller.areas.join(', ')})`, { field: 'areas', outside });
  }
}

/** Whether an account or key limited to `areas` is within the caller's areas. */
export function inCallerScope(caller: Caller, areas: readonly string[]): boolean {
  if (caller.areas.length === 0) return true;
  return areas.some((a) => caller.areas.includes(a));
}

/** Whether the caller may change an account limited to `areas`: wholly within the caller's areas, when it is limited. */
export function assertMayChangeAccount(caller: Caller, areas: readonly string[]): void {
  const outside = outsideCallerAreas(caller, areas);
  if (outside.length > 0) {
    throw new FpaError(
      'forbidden',
      `this account also has areas outside yours (${outside.join(', ')}): an administrator of every one of its areas may change it`,
      {
        outside,
      },
    );
  }
}

/**
 * Whether someone now of `holder`'s role and areas may keep an API key they made: only one they
 * could make now (a key is never more than its maker). A demoted or moved account loses the rest.
 */
export function mayStillHold(holder: Pick<Caller, 'role' | 'areas'>, key: { role: Role; areas: readonly string[] }): boolean {
  if (!permits(holder, ruleFor('POST', `${API_PREFIX}/api-keys/`))) return false;
  if (rank(key.role) < rank(holder.role)) return false;
  return holder.areas.length === 0 || (key.areas.length > 0 && key.areas.every((a) => holder.areas.includes(a)));
}
