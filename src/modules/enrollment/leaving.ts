/**
 * Who leaves a terminal that is out of their scope, and when: the one rule of every path that
 * takes people off a terminal because they no longer belong there (an area change of the person
 * or of the terminal, a move reaching its effective date, a resync). The service's people leave
 * at once where the service holds what the terminal holds of them, and can send it back to their
 * new terminals: a user it put there (`sent`) holds what it was sent (what was enrolled there
 * since came up as an upload). A user adopted there or linked by a walk-up (`reported`) may hold
 * fingerprints the service never received (what it held before the service knew it is never
 * known to be complete): they stay, and the terminal is asked for them first (`query_templates`
 * marked `leave`); once it has answered and the service holds what it holds of them, they leave
 * (ScopeLeaving `complete`). Without consent nothing is fetched (a refused upload may be deleted
 * from the terminal: the only copy), so a person who never consented stays. A full resync, a
 * withdrawal of consent, a deactivation or a deletion still takes them off as before (fan-out.ts
 * `takeOffEveryTerminal`, `clearWhatWasNotStored`; fleet/resync.ts). An enrollment station keeps
 * who walked up or was adopted there until a full resync.
 */
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, WriteContext } from '../../platform/db/client';
import type { CommandService, NewCommand } from '../commands';
import { type DeviceService, type HeldUser, noteOnDevice } from '../devices';
import type { EnrolleeService } from '../enrollees';
import { hasConsent, lastWithdrawnAt } from './consent-records';
import { isBiometricType } from './kinds';
import type { EnrollmentRuntime } from './runtime';
import { templateSync, templates } from './tables';

/** A person as far as leaving a terminal is concerned. */
export interface Leaver {
  id: string;
  devicePin: string;
}

/** A user who stays on a terminal out of their scope for now: `fetching`, the terminal was asked for their templates. */
export interface Staying {
  deviceId: string;
  pin: string;
  enrolleeId: string;
  fetching: boolean;
  /** An enrollment station's walk-up or adopted user: it stays until a full resync. */
  station: boolean;
}

/** What ScopeLeaving `leave` decided: the terminals sent a `delete_user`, and who stays for now. */
export interface LeaveOutcome {
  removed: Set<string>;
  staying: Staying[];
}

/** The supersede key of the query of a user's templates on a terminal. */
export function templateQueryKey(pin: string): string {
  return `query-templates:${pin}`;
}

/** `DATA QUERY FINGERTMP`/`BIODATA` for one user; `leave`: they leave the terminal once the service holds what it answers. */
export function templateQuery(deviceId: string, pin: string, options: { leave?: boolean } = {}): NewCommand {
  return { deviceId, kind: 'query_templates', payload: { pin, ...(options.leave ? { leave: true } : {}) }, supersedeKey: templateQueryKey(pin) };
}

/** The parts (`type:index`) of kinds the service keeps that a terminal's user holds. */
function keptParts(user: Pick<HeldUser, 'biometrics'>): string[] {
  return Object.entries(user.biometrics).flatMap(([type, indexes]) => (isBiometricType(type) ? indexes.map((i) => `${type}:${i}`) : []));
}

/** The parts (`type:index`) the service stores of these enrollees, by enrollee. */
async function storedParts(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const ids of chunks(enrolleeIds, 500)) {
    const rows = await q
      .select({ enrolleeId: templates.enrolleeId, type: templates.type, fingerIndex: templates.fingerIndex })
      .from(templates)
      .where(inArray(templates.enrolleeId, [...ids]));
    for (const r of rows) out.set(r.enrolleeId, (out.get(r.enrolleeId) ?? new Set()).add(`${r.type}:${r.fingerIndex}`));
  }
  return out;
}

/**
 * Whether the service holds what this terminal's user holds: every part of a kind it keeps that
 * the user is known to hold, and at least one template of theirs the terminal itself gave or
 * confirmed (its sync row there held). A user's parts are known only from what the terminal
 * uploaded: an empty list says nothing, and taken as "nothing to hold" it let the delete go out
 * when the terminal answered the query before its upload arrived (an upload refused under load
 * and sent again later), deleting the only copy. A user with no fingerprint at all (a card only)
 * therefore stays until a full resync.
 */
async function holdsWhatTerminalHolds(q: Queryable, enrolleeId: string, deviceId: string, user: Pick<HeldUser, 'biometrics'>): Promise<boolean> {
  const [fromThere] = await q
    .select({ id: templates.id })
    .from(templates)
    .innerJoin(templateSync, eq(templateSync.templateId, templates.id))
    .where(and(eq(templates.enrolleeId, enrolleeId), eq(templateSync.deviceId, deviceId), isNotNull(templateSync.heldVersion)))
    .limit(1);
  if (!fromThere) return false;
  const parts = keptParts(user);
  const stored = (await storedParts(q, [enrolleeId])).get(enrolleeId) ?? new Set();
  return parts.every((p) => stored.has(p));
}

/** A user of theirs that stays on a terminal out of their scope: why (Staying without `fetching`). */
type Waiting = HeldUser & { station: boolean; consent: boolean };

/**
 * Of these people on these terminals (out of their scope), the users who stay for now: those
 * adopted or linked by a walk-up there (`reported`), whose fingerprints the terminal may hold
 * alone, while the person is active and has not withdrawn their consent. Everyone else leaves at
 * once: a user the service put there (`sent`) holds what the service sent it (what was enrolled
 * there since came up as an upload); a person no longer active, or whose consent was withdrawn,
 * had their deletes queued everywhere then. An enrollment station takes anyone's fingerprints:
 * who walked up or was adopted there stays (`station`), not asked for anything, until a full
 * resync.
 */
export async function staying(
  q: Queryable,
  deps: { devices: DeviceService; enrollees: EnrolleeService },
  people: readonly Leaver[],
  deviceIds: readonly string[],
): Promise<Waiting[]> {
  if (people.length === 0 || deviceIds.length === 0) return [];
  const idOf = new Map(people.map((p) => [p.devicePin, p.id]));
  const reported = (
    await deps.devices.users.holding(
      q,
      deviceIds,
      people.map((p) => p.devicePin),
    )
  ).filter((u) => u.source === 'reported' && u.enrolleeId !== null && u.enrolleeId === idOf.get(u.pin));
  const stations = new Set<string>();
  for (const id of new Set(reported.map((u) => u.deviceId))) if ((await deps.devices.findById(q, id))?.enrollmentStation) stations.add(id);
  const stays = new Map<string, { consent: boolean } | null>();
  for (const id of new Set(reported.map((u) => u.enrolleeId!))) {
    const active = (await deps.enrollees.find(q, id))?.status === 'active';
    const consent = active && (await hasConsent(q, id));
    // Never consented: the terminal holds the only copy, which nothing can store yet.
    stays.set(id, active && (consent || (await lastWithdrawnAt(q, id)) === null) ? { consent } : null);
  }
  return reported.flatMap((u) => {
    const why = stays.get(u.enrolleeId!);
    const station = stations.has(u.deviceId);
    return why || station ? [{ ...u, station, consent: why?.consent ?? false }] : [];
  });
}

/** The queries of templates for users who stay, where their person has consent (with none, nothing could be stored). */
export function fetchesFor(waiting: readonly Waiting[]): { commands: NewCommand[]; staying: Staying[] } {
  const list = waiting.map((u) => ({ deviceId: u.deviceId, pin: u.pin, enrolleeId: u.enrolleeId!, fetching: !u.station && u.consent, station: u.station }));
  return { commands: list.filter((s) => s.fetching).map((s) => templateQuery(s.deviceId, s.pin, { leave: true })), staying: list };
}

/**
 * Whether the last query of this user's templates on the terminal was a leave's (pending, sent or
 * answered): an upload of theirs from there answers it, out of their scope or not.
 */
export async function leaveFetchOf(q: Queryable, commands: CommandService, deviceId: string, pin: string): Promise<'open' | 'answered' | null> {
  const last = await commands.lookups.lastUnderKeyBefore(q, deviceId, templateQueryKey(pin), Number.MAX_SAFE_INTEGER);
  if (last?.kind !== 'query_templates' || last.payload.leave !== true) return null;
  if (last.status === 'succeeded') return 'answered';
  return last.status === 'pending' || last.status === 'sent' ? 'open' : null;
}

/** Why a user stays on a terminal out of their scope, as its log says it. */
function staysBecause(s: Staying): string {
  if (s.station) return 'an enrollment station keeps who walked up or was adopted there until a full resync';
  const why = 'it may hold fingerprints of theirs the service does not have';
  return s.fetching
    ? `${why}; they are asked for first, and the user is removed once they are stored`
    : `${why}, and without consent they cannot be stored: the user stays until a full resync, a withdrawal or a deletion`;
}

/** What ScopeLeaving takes people off terminals with (fan-out.ts `removeFromDevices`). */
interface Remover {
  removeFromDevices(w: WriteContext, people: readonly Leaver[], deviceIds: readonly string[]): Promise<Set<string>>;
}

/** The rule at the top of this file, applied in the caller's transaction. */
export class ScopeLeaving {
  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly fanOut: Remover,
    private readonly deps: { devices: DeviceService; enrollees: EnrolleeService; commands: CommandService },
  ) {}

  /**
   * These people are out of these terminals' scope: those the service holds everything of there
   * are taken off (`removeFromDevices`), the others stay and their templates are asked for.
   */
  async leave(w: WriteContext, people: readonly Leaver[], deviceIds: readonly string[]): Promise<LeaveOutcome> {
    const waiting = await staying(w.tx, this.deps, people, deviceIds);
    const waits = new Set(waiting.map((u) => `${u.deviceId}\n${u.pin}`));
    // One removal per set of terminals (usually one): the people of one set go together.
    const groups = new Map<string, { people: Leaver[]; deviceIds: string[] }>();
    for (const p of people) {
      const ids = deviceIds.filter((d) => !waits.has(`${d}\n${p.devicePin}`));
      const key = ids.join('\n');
      const group = groups.get(key) ?? { people: [], deviceIds: ids };
      group.people.push(p);
      groups.set(key, group);
    }
    const removed = new Set<string>();
    for (const g of groups.values()) for (const d of await this.fanOut.removeFromDevices(w, g.people, g.deviceIds)) removed.add(d);
    const { commands, staying: stay } = fetchesFor(waiting);
    await this.deps.commands.enqueue(w, commands);
    const now = this.ctx.clock.now();
    for (const s of stay) {
      await noteOnDevice(
        w.tx,
        s.deviceId,
        'leave_waits',
        `PIN ${s.pin} stays, out of the terminal's areas: ${staysBecause(s)}`,
        { pin: s.pin, enrollee: s.enrolleeId, fetching: s.fetching, ...(s.station ? { station: true } : {}) },
        now,
      );
    }
    return { removed, staying: stay };
  }

  /**
   * Of these terminals holding a user of this person, those out of their scope that are not
   * enrollment stations: they are there only until they leave, so a query of their templates
   * there is a leave's (consent given while they wait: fleet/resync.ts `fetchTemplatesOf`), and
   * its answer is taken, not refused as out of scope.
   */
  async leavingFrom(q: Queryable, enrolleeId: string, deviceIds: readonly string[]): Promise<Set<string>> {
    const { devices, enrollees } = this.deps;
    const inScope = new Set((await devices.inAreas(q, await enrollees.membership.terminalAreaIdsOf(q, enrolleeId), ['approved', 'disabled'])).map((d) => d.id));
    const out = new Set<string>();
    for (const id of deviceIds) if (!inScope.has(id) && !(await devices.findById(q, id))?.enrollmentStation) out.add(id);
    return out;
  }

  /**
   * The terminal answered a leave's query of this user's templates, or sent one of them: once it
   * has answered, they are out of its scope and the service holds what it holds of them, they
   * leave it. Returns whether they were taken off.
   */
  async complete(w: WriteContext, deviceId: string, pin: string): Promise<boolean> {
    const { devices, enrollees, commands } = this.deps;
    if ((await leaveFetchOf(w.tx, commands, deviceId, pin)) !== 'answered') return false;
    const user = await devices.users.one(w.tx, deviceId, pin);
    if (!user?.enrolleeId) return false;
    const person = await enrollees.find(w.tx, user.enrolleeId);
    if (person?.status !== 'active') return false;
    // Back in its scope meanwhile (a move undone), or made an enrollment station: they stay.
    if (!(await this.leavingFrom(w.tx, person.id, [deviceId])).has(deviceId)) return false;
    if (!(await holdsWhatTerminalHolds(w.tx, person.id, deviceId, user))) return false;
    await this.fanOut.removeFromDevices(w, [{ id: person.id, devicePin: pin }], [deviceId]);
    await noteOnDevice(
      w.tx,
      deviceId,
      'leave_done',
      `PIN ${pin} taken off, out of the terminal's areas: the service holds the fingerprints it held of them`,
      { pin, enrollee: person.id },
      this.ctx.clock.now(),
    );
    return true;
  }
}
