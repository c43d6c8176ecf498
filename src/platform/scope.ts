/**
 * What a caller may see: the areas it is limited to (API.md, "People who sign in"). Routes take
 * it from `adminRouter` (`scope`) and hand it to the services, which leave out of lists, and
 * answer 404 for, every person, terminal, punch or day outside it:
 *
 * - a person (enrollee, employee) is in scope when one of their areas is the caller's;
 * - a terminal likewise by its areas (a pending terminal with no area yet: see devices);
 * - a punch or attendance day through its person; a punch of a PIN no person holds, through
 *   the terminal that sent it;
 * - an event through the person or terminal it names; one naming neither, for unlimited callers only.
 *
 * Area names are what callers hold (as on the wire); the services resolve them to the ids their
 * tables keep (areas module, `areaIdsInScope`). A name no area has matches nothing.
 */
import type { Caller } from './http/caller';

export interface AreaScope {
  /** The area names the caller is limited to; null: every area. */
  readonly areas: readonly string[] | null;
}

/** Everything: scripts, jobs, reactions, and callers limited to no area. */
export const EVERYWHERE: AreaScope = Object.freeze({ areas: null });

export const scopeOf = (caller: Pick<Caller, 'areas'>): AreaScope => (caller.areas.length === 0 ? EVERYWHERE : Object.freeze({ areas: [...caller.areas] }));

/** A scope limited to some areas (its `areas` then is a list). */
export const isLimited = (scope: AreaScope): scope is { readonly areas: readonly string[] } => scope.areas !== null;

/** Whether something in these areas (names) is in the scope. */
export const coversAny = (scope: AreaScope, names: readonly string[]): boolean => !isLimited(scope) || names.some((n) => scope.areas.includes(n));

/** Whom an item (an event, a punch on a stream) is about: a person (enrollee id) and a terminal (serial number). */
export interface Subjects {
  enrollee?: string | null;
  device?: string | null;
}

/** The people (enrollee ids, the deleted too) and terminals (serial numbers) in a limited scope. */
export interface ScopeMembers {
  enrollees: ReadonlySet<string>;
  devices: ReadonlySet<string>;
}

export type MembersOf = (scope: AreaScope) => Promise<ScopeMembers>;

/**
 * Whether an item is seen by a scope with these members (null: an unlimited scope, which sees
 * all): through its person when it names one, else through its terminal; an item naming
 * neither is for unlimited callers only.
 */
export function sees(members: ScopeMembers | null, about: Subjects | null | undefined): boolean {
  if (members === null) return true;
  if (about?.enrollee) return members.enrollees.has(about.enrollee);
  if (about?.device) return members.devices.has(about.device);
  return false;
}

/** How long a stream trusts its scope's members before reading them again (people move between areas). */
export const MEMBERS_TTL_MS = 5_000;

/**
 * A scope's members, read again when older than MEMBERS_TTL_MS: what a long-lived stream
 * filters by. An unlimited scope never reads anything.
 */
export class ScopeWatch {
  private members: ScopeMembers | null = null;
  private readAt = -Infinity;

  constructor(
    readonly scope: AreaScope,
    private readonly load: MembersOf,
  ) {}

  async fresh(now = performance.now()): Promise<void> {
    if (!isLimited(this.scope) || now - this.readAt < MEMBERS_TTL_MS) return;
    this.members = await this.load(this.scope);
    this.readAt = now;
  }

  /** Call after `fresh()`: until its members are read a limited scope sees nothing. */
  sees(about: Subjects | null | undefined): boolean {
    if (!isLimited(this.scope)) return true;
    return this.members !== null && sees(this.members, about);
  }
}
