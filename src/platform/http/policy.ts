/**
 * Who may call what: the one table of the administrators' API (API.md, "People who sign in").
 * Each row names a method, a path (as API.md writes it, under the API prefix; `{x}` is one path
 * segment, `*` any text inside one segment, a last `**` any deeper path) and the roles that may
 * call it. `owner` and `admin` may call every row (`admin` differs from `owner` only in the
 * users service: it cannot make, change or remove owners). `everywhere` rows also need a caller
 * limited to no area: what they show or change is not any one area's (webhooks carry every
 * event, the audit log names everything).
 *
 * Enforced in one place, `admitAdmin` (router.ts), which every administrator route and stream
 * passes through: a role not in the row is 403 `forbidden`. A route no row names is refused to
 * every role but owner and admin (test/platform/policy.test.ts fails for a served route without
 * a row). The console's session answers the rows the caller's role may call (`actionsOf`), and
 * the console shows only those actions.
 *
 * Areas are not checked here: the services leave out (lists) or answer 404 (ids) for what lies
 * outside the caller's areas (src/platform/scope.ts).
 */
import { FpaError } from '../errors';
import { API_PREFIX } from './api-prefix';
import type { Caller, Role } from './caller';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Rule {
  method: Method;
  path: string;
  /** Besides owner and admin. */
  roles: readonly Role[];
  /** Only for callers limited to no area. */
  everywhere?: boolean;
  /** Not for admins either: only owners (what would make its caller an owner). */
  ownersOnly?: boolean;
}

const H = 'hr';
const M = 'manager';
const I = 'installer';
const V = 'viewer';
const EVERYONE: readonly Role[] = [H, M, I, V];
/** Reads of people: everyone who may see anyone. */
const READ_PEOPLE: readonly Role[] = [H, M, I, V];
/** Reads of attendance data (punches, days, calendar, reports, exports): not installers. */
const READ_ATTENDANCE: readonly Role[] = [H, M, V];
/** Reads of terminals: hr reads them, installers run them, viewers read. */
const READ_TERMINALS: readonly Role[] = [H, I, V];
const NOBODY_ELSE: readonly Role[] = [];

const rule = (method: Method, path: string, roles: readonly Role[], options: { everywhere?: boolean; ownersOnly?: boolean } = {}): Rule => ({
  method,
  path,
  roles,
  ...(options.everywhere ? { everywhere: true } : {}),
  ...(options.ownersOnly ? { ownersOnly: true } : {}),
});
const EVERYWHERE = { everywhere: true };

/** The table. Grouped by resource family; every path as API.md spells it. */
export const POLICY: readonly Rule[] = [
  // Who am I, the console's own session, the API document: everyone signed in.
  rule('GET', 'users/me/**', EVERYONE),
  rule('POST', 'users/me/**', EVERYONE),
  rule('PATCH', 'users/me/**', EVERYONE),
  rule('DELETE', 'users/me/**', EVERYONE),
  rule('GET', '/console/session', EVERYONE),
  rule('POST', '/console/sign-out', EVERYONE),
  rule('GET', 'docs/json', EVERYONE),

  // Users and API keys: owners and admins only (the users service keeps owners to owners).
  rule('GET', 'users/', NOBODY_ELSE),
  rule('GET', 'users/second-factor-policy/', NOBODY_ELSE),
  rule('PUT', 'users/second-factor-policy/', NOBODY_ELSE, { ownersOnly: true }),
  rule('POST', 'users/', NOBODY_ELSE),
  rule('GET', 'users/{id}/', NOBODY_ELSE),
  rule('PATCH', 'users/{id}/', NOBODY_ELSE),
  rule('DELETE', 'users/{id}/', NOBODY_ELSE),
  rule('POST', 'users/{id}/reset/', NOBODY_ELSE),
  rule('GET', 'api-keys/', NOBODY_ELSE),
  rule('POST', 'api-keys/', NOBODY_ELSE),
  rule('DELETE', 'api-keys/{id}/', NOBODY_ELSE),
  // A console link signs its bearer in as an owner (until sessions carry a user's role): owners only.
  rule('POST', 'console-links/', NOBODY_ELSE, { everywhere: true, ownersOnly: true }),

  // Areas: everyone reads the names (of their own areas); owners and admins shape them.
  rule('GET', 'areas/', EVERYONE),
  rule('GET', 'areas/{name}/', EVERYONE),
  rule('GET', 'areas/{name}/members/', READ_PEOPLE),
  // Areas are everyone's frame, not one area's: made, renamed and removed by callers of every area.
  rule('POST', 'areas/', NOBODY_ELSE, EVERYWHERE),
  rule('PATCH', 'areas/{name}/', NOBODY_ELSE, EVERYWHERE),
  rule('DELETE', 'areas/{name}/', NOBODY_ELSE, EVERYWHERE),

  // People: hr keeps them; managers, installers and viewers read them.
  rule('GET', 'employees/', READ_PEOPLE),
  rule('GET', 'employees/{id}/', READ_PEOPLE),
  rule('POST', 'employees/', [H]),
  // A limited caller changes the employees whose person is, or was, in its areas (employees/service.ts).
  rule('PATCH', 'employees/{id}/', [H]),
  rule('DELETE', 'employees/{id}/', [H]),
  // A limited caller's lines are checked against its areas line by line (employee-import/service.ts).
  rule('POST', 'employees/import/', [H]),
  rule('GET', 'enrollees/', READ_PEOPLE),
  rule('GET', 'enrollees/{id}/', READ_PEOPLE),
  rule('POST', 'enrollees/', [H]),
  rule('PATCH', 'enrollees/{id}/', [H]),
  rule('DELETE', 'enrollees/{id}/', [H]),
  rule('GET', 'enrollees/{id}/templates/', READ_PEOPLE),
  rule('GET', 'enrollees/{id}/consents/', READ_PEOPLE),
  rule('GET', 'enrollees/{id}/deletion-proof/', [H]),
  rule('GET', 'enrollees/{id}/deletion-proof.pdf', [H]),

  // Consent and enrollment: hr.
  rule('POST', 'enrollees/{id}/consent/', [H]),
  rule('DELETE', 'enrollees/{id}/consent/', [H]),
  rule('POST', 'enrollees/{id}/remote-enrollment/', [H]),
  rule('GET', 'enrollment-agents/', [H]),
  rule('POST', 'enrollment-agents/', [H]),
  rule('GET', 'enrollment-agents/{id}/', [H]),
  rule('POST', 'enrollment-agents/{id}/revoke/', [H]),
  rule('DELETE', 'enrollment-agents/{id}/', [H]),
  rule('GET', 'enrollment-sessions/', [H]),
  rule('POST', 'enrollment-sessions/', [H]),
  rule('GET', 'enrollment-sessions/{id}/', [H]),

  // Terminals: installers run them (approve, settings, commands, resync, users on the
  // terminal); hr and viewers read them; managers do not see them.
  rule('GET', 'devices/', READ_TERMINALS),
  rule('GET', 'devices/{sn}/', READ_TERMINALS),
  rule('POST', 'devices/', [I]),
  // Its `enrollment_station` only for callers limited to no area: a station takes anyone's
  // fingerprints, every area's (devices/administration.ts; 403 to a limited caller).
  rule('PATCH', 'devices/{sn}/', [I]),
  rule('DELETE', 'devices/{sn}/', [I]),
  rule('POST', 'devices/{sn}/approve/', [I]),
  rule('POST', 'devices/{sn}/disable/', [I]),
  rule('POST', 'devices/{sn}/confirm-address/', [I]),
  rule('GET', 'devices/{sn}/keys/', [I]),
  rule('POST', 'devices/{sn}/keys/', [I]),
  rule('DELETE', 'devices/{sn}/keys/{id}/', [I]),
  rule('GET', 'devices/{sn}/commands/', READ_TERMINALS),
  rule('POST', 'devices/{sn}/commands/', [I]),
  rule('POST', 'devices/{sn}/commands/{id}/cancel/', [I]),
  rule('POST', 'devices/{sn}/commands/{id}/retry/', [I]),
  rule('POST', 'devices/{sn}/resync/', [I]),
  rule('GET', 'devices/{sn}/users/', READ_TERMINALS),
  // Adopting a terminal's user makes a person: the installer at the terminal, or hr.
  rule('POST', 'devices/{sn}/users/{pin}/adopt/', [H, I]),
  rule('DELETE', 'devices/{sn}/users/{pin}/', [I]),
  rule('GET', 'devices/{sn}/completeness/', READ_TERMINALS),
  // A terminal's USB file: HR, whose attendance it is (what it answers tells of people's punches).
  rule('POST', 'devices/{sn}/punches/import/', [H]),
  rule('GET', 'diagnostics/', [I]),

  // Punches: read by hr, managers and viewers; managers add manual punches and corrections
  // (voids) with a reason; hr imports.
  rule('GET', 'punches/', READ_ATTENDANCE),
  rule('GET', 'punches/latest/', READ_ATTENDANCE),
  rule('GET', 'punches/stream/', READ_ATTENDANCE),
  rule('POST', 'punches/manual/', [H, M]),
  rule('POST', 'punches/{id}/void/', [H, M]),
  rule('POST', 'punches/import/', [H]),
  rule('GET', 'anomalies/', READ_ATTENDANCE),

  // Attendance, reports and exports.
  rule('GET', 'attendance-days/', READ_ATTENDANCE),
  rule('GET', 'attendance-days/export.csv', READ_ATTENDANCE),
  rule('GET', 'attendance-days/{enrollee}/{date}/punches/', READ_ATTENDANCE),
  rule('POST', 'attendance-days/recompute/', [H]),
  rule('GET', 'attendance-summary/', READ_ATTENDANCE),
  rule('GET', 'attendance/today/', READ_ATTENDANCE),
  rule('GET', 'reports/daily.*', READ_ATTENDANCE),
  rule('GET', 'reports/timesheet.*', READ_ATTENDANCE),
  rule('GET', 'reports/summary.*', READ_ATTENDANCE),
  rule('GET', 'reports/exceptions.*', READ_ATTENDANCE),
  rule('GET', 'reports/*/preview/', READ_ATTENDANCE),

  // Calendar and pay periods: hr keeps them; managers and viewers read them.
  rule('GET', 'calendar/', READ_ATTENDANCE),
  rule('GET', 'calendar/roster/', READ_ATTENDANCE),
  rule('GET', 'holidays/', READ_ATTENDANCE),
  rule('GET', 'holidays/{id}/', READ_ATTENDANCE),
  rule('POST', 'holidays/', [H]),
  rule('PATCH', 'holidays/{id}/', [H]),
  rule('DELETE', 'holidays/{id}/', [H]),
  rule('GET', 'leaves/', READ_ATTENDANCE),
  rule('POST', 'leaves/', [H]),
  rule('DELETE', 'leaves/{id}/', [H]),
  rule('GET', 'weekends/', READ_ATTENDANCE),
  rule('POST', 'weekends/', [H]),
  rule('DELETE', 'weekends/{id}/', [H]),
  rule('GET', 'work-schedules/', READ_ATTENDANCE),
  rule('GET', 'work-schedules/{id}/', READ_ATTENDANCE),
  rule('POST', 'work-schedules/', [H]),
  rule('PATCH', 'work-schedules/{id}/', [H]),
  rule('DELETE', 'work-schedules/{id}/', [H]),
  rule('GET', 'shift-assignments/', READ_ATTENDANCE),
  rule('POST', 'shift-assignments/', [H]),
  // Each person is checked against a limited caller's areas (calendar/schedules.ts `assignMany`).
  rule('POST', 'shift-assignments/batch/', [H]),
  rule('DELETE', 'shift-assignments/{id}/', [H]),
  rule('GET', 'pay-periods/', READ_ATTENDANCE),
  rule('GET', 'pay-periods/{id}/', READ_ATTENDANCE),
  // A pay period is everyone's: hr limited to areas reads periods but does not make or lock them.
  rule('POST', 'pay-periods/', [H], EVERYWHERE),
  rule('POST', 'pay-periods/{id}/lock/', [H], EVERYWHERE),
  // Deleting one is for those who add them: an open one only (a lock is final, 409).
  rule('DELETE', 'pay-periods/{id}/', [H], EVERYWHERE),

  // The event log: filtered by area (events naming no person or terminal: unlimited callers only).
  rule('GET', 'events/', [H, V]),
  rule('GET', 'events/stream/', [H, V]),

  // Operations: fleet-wide counts for those who run or watch it; webhooks, jobs and the audit
  // log are not any one area's.
  rule('GET', 'health/', [H, I, V]),
  rule('GET', 'jobs/', NOBODY_ELSE, EVERYWHERE),
  rule('POST', 'jobs/{name}/run/', NOBODY_ELSE, EVERYWHERE),
  rule('GET', 'audit-log/', NOBODY_ELSE, EVERYWHERE),
  rule('GET', 'webhooks/', NOBODY_ELSE, EVERYWHERE),
  rule('POST', 'webhooks/', NOBODY_ELSE, EVERYWHERE),
  rule('GET', 'webhooks/event-types/', NOBODY_ELSE, EVERYWHERE),
  rule('GET', 'webhooks/{id}/', NOBODY_ELSE, EVERYWHERE),
  rule('DELETE', 'webhooks/{id}/', NOBODY_ELSE, EVERYWHERE),
  rule('POST', 'webhooks/{id}/enable/', NOBODY_ELSE, EVERYWHERE),
  rule('POST', 'webhooks/{id}/rotate-secret/', NOBODY_ELSE, EVERYWHERE),
  rule('POST', 'webhooks/{id}/test/', NOBODY_ELSE, EVERYWHERE),
  rule('POST', 'webhooks/{id}/recover/', NOBODY_ELSE, EVERYWHERE),
  rule('GET', 'webhooks/{id}/deliveries/', NOBODY_ELSE, EVERYWHERE),
  rule('GET', 'webhooks/{id}/messages/', NOBODY_ELSE, EVERYWHERE),
  rule('POST', 'webhooks/{id}/messages/{message}/redeliver/', NOBODY_ELSE, EVERYWHERE),
];

// ---------------------------------------------------------------------------------------------
// Matching a served route (Elysia's pattern, `:param` segments) against the rows.

/** A row's path as segments: `{x}` a parameter, `**` anything deeper, others literal or glob. */
type Segment = { kind: 'param' } | { kind: 'rest' } | { kind: 'text'; pattern: RegExp };

const segmentsOf = (path: string): string[] => path.split('/').filter((s) => s !== '');

function compile(path: string): Segment[] {
  return segmentsOf(path).map((s): Segment => {
    if (s === '**') return { kind: 'rest' };
    if (/^\{[^}]+\}$/.test(s)) return { kind: 'param' };
    // `*` is any text inside the segment (a route's own `:param` inside it too).
    const escaped = s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
    return { kind: 'text', pattern: new RegExp(`^${escaped}$`) };
  });
}

const COMPILED = POLICY.map((r) => ({ rule: r, absolute: r.path.startsWith('/'), segments: compile(r.path) }));

function matches(segments: readonly Segment[], route: readonly string[]): boolean {
  for (let i = 0; i < segments.length; i++) {
    const want = segments[i]!;
    if (want.kind === 'rest') return route.length >= i;
    const got = route[i];
    if (got === undefined) return false;
    const isParam = got.startsWith(':');
    if (want.kind === 'param' ? !isParam : isParam || !want.pattern.test(got)) return false;
  }
  return route.length === segments.length;
}

/** The route's path under the API prefix (`devices/:serial`), or its whole path when it is outside the API (the console's). */
function apiPathOf(route: string): { path: string; inApi: boolean } {
  const at = route.indexOf(API_PREFIX);
  return at >= 0 ? { path: route.slice(at + API_PREFIX.length), inApi: true } : { path: route, inApi: false };
}

const found = new Map<string, Rule | null>();

/** The row for a served route (`route`: Elysia's registered pattern, with or without the API prefix), or null. */
export function ruleFor(method: string, route: string): Rule | null {
  const verb = method === 'HEAD' ? 'GET' : method.toUpperCase();
  const key = `${verb} ${route}`;
  const known = found.get(key);
  if (known !== undefined) return known;
  const { path, inApi } = apiPathOf(route);
  const segments = segmentsOf(path);
  const hit =
    COMPILED.find(({ rule: r, absolute, segments: want }) => {
      if (r.method !== verb) return false;
      // A console row matches the end of the route: a host may mount the plugin under a prefix.
      if (absolute) return !inApi && matches(want, segments.slice(segments.length - want.length));
      return inApi && matches(want, segments);
    })?.rule ?? null;
  found.set(key, hit);
  return hit;
}

const UNRESTRICTED: readonly Role[] = ['owner', 'admin'];

/** Whether the caller's role (and area limit) lets it call the row; null: a route no row names. */
export function permits(caller: Pick<Caller, 'role' | 'areas'>, r: Rule | null): boolean {
  if (r?.ownersOnly && caller.role !== 'owner') return false;
  if (UNRESTRICTED.includes(caller.role)) return !r?.everywhere || caller.areas.length === 0;
  if (!r?.roles.includes(caller.role)) return false;
  return !r.everywhere || caller.areas.length === 0;
}

/** Throws 403 `forbidden` unless the caller may call this route. */
export function authorize(caller: Caller, method: string, route: string): void {
  const r = ruleFor(method, route);
  if (permits(caller, r)) return;
  const action = `${method === 'HEAD' ? 'GET' : method} ${r?.path ?? apiPathOf(route).path}`;
  if (r?.ownersOnly && caller.role !== 'owner') throw new FpaError('forbidden', `only owners may ${action}`, { role: caller.role, action });
  if (r?.everywhere && caller.areas.length > 0 && (UNRESTRICTED.includes(caller.role) || r.roles.includes(caller.role))) {
    throw new FpaError('forbidden', `${action} is only for callers not limited to areas`, { role: caller.role, action });
  }
  throw new FpaError('forbidden', `the role ${caller.role} may not ${action}`, { role: caller.role, action });
}

/** Every row this caller may call, as `METHOD path` (the console shows only these actions). */
export function actionsOf(caller: Pick<Caller, 'role' | 'areas'>): string[] {
  return POLICY.filter((r) => permits(caller, r)).map((r) => `${r.method} ${r.path}`);
}
