/**
 * What each terminal should hold of each person: a stored template queued to the person's other
 * terminals in scope (those whose algorithm takes it; the others marked `incompatible`), a
 * terminal backfilled with everyone in its scope, people taken off terminals, a destroyed
 * template's deletes; never over a terminal user with the same PIN who is someone else (a
 * conflict, announced for an administrator to resolve). Every write here is in the caller's
 * transaction. At the end: the commands that carry a person to a terminal (their user record,
 * one template) and the supersede keys that let a newer write or a delete take an unsent one's
 * place.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, WriteContext } from '../../platform/db/client';
import type { BiometricType } from '../../protocol/adms';
import type { CommandService, NewCommand } from '../commands';
import { type DeviceRow, type DeviceService, deviceRef, usersRefusedFor } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { EventChannel } from '../events';
import type { EnrollmentEvents } from './events';
import { isBiometricType, terminalTakes } from './kinds';
import { notTheirs, pairOf, type TemplateHolder, templateHolders } from './not-theirs';
import type { EnrollmentRuntime } from './runtime';
import { templateIdentity, templateSync, templates } from './tables';
import { linkSyncToCommands, mayHold, type SyncRow, upsertSync } from './template-sync';

/** An enrollee as far as terminals are concerned: their PIN and the name shown on the terminal. */
interface TerminalUser {
  id: string;
  devicePin: string;
  displayName: string;
  /** The card number the terminal should know them by, if any. */
  card?: string | null;
}

/** A template as commands know it: its kind, body part and slot. */
export interface TemplateRef {
  id: string;
  type: string;
  fingerIndex: number;
  slot: number;
  version: number;
}

/** A stored template as a delete names it: its body part and slot. */
type TemplatePart = Pick<TemplateRef, 'id' | 'type' | 'fingerIndex' | 'slot'>;

/** Every finger index a terminal knows (0 left little finger … 9 right little finger). */
const FINGER_INDEXES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

export class FanOut {
  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly events: EventChannel<EnrollmentEvents>,
    private readonly enrollees: EnrolleeService,
    private readonly devices: DeviceService,
    private readonly commands: CommandService,
  ) {}

  /** Queues one template to the in-scope devices and records sync status. */
  async template(
    w: WriteContext,
    enrollee: { id: string; devicePin: string; displayName: string },
    template: TemplateRef & { type: BiometricType; algorithmVersion: string },
    sourceDeviceId: string | null,
  ): Promise<{ queuedTo: number; incompatible: number }> {
    const { tx } = w;
    const targets = await this.withoutConflicts(w, await this.devicesInScope(tx, enrollee.id), {
      id: enrollee.id,
      devicePin: enrollee.devicePin,
      displayName: enrollee.displayName,
    });
    const now = this.ctx.clock.now();
    const commands: NewCommand[] = [];
    const syncRows: SyncRow[] = [];
    let incompatible = 0;
    for (const device of targets) {
      const takes = terminalTakes(this.ctx.settings.ALGORITHM_COMPATIBILITY_MAP, device, template.type, template.algorithmVersion);
      if (device.id === sourceDeviceId) {
        syncRows.push({ templateId: template.id, deviceId: device.id, status: 'present', templateVersion: template.version, updatedAt: now });
      } else if (takes.ok) {
        commands.push(templateCommand(device.id, enrollee, template));
        syncRows.push({ templateId: template.id, deviceId: device.id, status: 'pending', templateVersion: template.version, updatedAt: now });
      } else {
        incompatible++;
        syncRows.push({
          templateId: template.id,
          deviceId: device.id,
          status: 'incompatible',
          templateVersion: template.version,
          detail: takes.detail,
          updatedAt: now,
        });
      }
    }
    // The source terminal may be outside the enrollee's scope; it still holds the template.
    if (sourceDeviceId && !targets.some((d) => d.id === sourceDeviceId)) {
      syncRows.push({ templateId: template.id, deviceId: sourceDeviceId, status: 'present', templateVersion: template.version, updatedAt: now });
    }
    await upsertSync(tx, syncRows);
    const ids = await this.commands.enqueue(w, commands);
    await linkSyncToCommands(tx, template.id, commands, ids);
    return { queuedTo: commands.length, incompatible };
  }

  /**
   * Of these terminals, those where the enrollee may be written: a terminal whose own user (or
   * another enrollee's) has the enrollee's PIN is left alone — writing there would make that
   * person the enrollee — and the conflict is announced for an administrator to resolve.
   */
  async withoutConflicts(w: WriteContext, targets: readonly DeviceRow[], person: TerminalUser): Promise<DeviceRow[]> {
    if (targets.length === 0) return [];
    const held = await this.devices.users.holding(
      w.tx,
      targets.map((d) => d.id),
      [person.devicePin],
    );
    const others = new Set(held.filter((u) => u.enrolleeId !== person.id).map((u) => u.deviceId));
    for (const device of targets) if (others.has(device.id)) await this.conflict(w, device, person);
    return targets.filter((d) => !others.has(d.id));
  }

  /** Conflicts found when a command was about to be sent (terminals/render.ts): announced like the others. */
  async recordConflicts(device: DeviceRow, found: readonly { pin: string; enrollee: string }[]): Promise<void> {
    if (found.length === 0) return;
    await this.ctx.db.write(async (w) => {
      for (const c of found) await this.events.record(w, 'terminal_user_conflict', { device: deviceRef(device), pin: c.pin, enrollee: c.enrollee });
    });
  }

  private async conflict(w: WriteContext, device: DeviceRow, person: TerminalUser): Promise<void> {
    await this.events.record(w, 'terminal_user_conflict', { device: deviceRef(device), pin: person.devicePin, enrollee: person.id });
  }

  /** Backfill: the user record and every compatible template of each enrollee onto one device. */
  async backfillDevice(w: WriteContext, device: DeviceRow, people: readonly TerminalUser[]): Promise<number> {
    const now = this.ctx.clock.now();
    const commands: NewCommand[] = [];
    const syncRows: SyncRow[] = [];
    const pinOf = new Map(people.map((e) => [e.id, e.devicePin]));
    const byEnrollee = await templatesOf(
      w.tx,
      people.map((e) => e.id),
    );
    const held = await this.devices.users.enrolleesOf(
      w.execute,
      device.id,
      people.map((p) => p.devicePin),
    );
    for (const e of people) {
      if (held.has(e.devicePin) && held.get(e.devicePin) !== e.id) {
        await this.conflict(w, device, e);
        continue;
      }
      commands.push(userCommand(device.id, e));
      for (const t of byEnrollee.get(e.id) ?? []) {
        const takes = isBiometricType(t.type)
          ? terminalTakes(this.ctx.settings.ALGORITHM_COMPATIBILITY_MAP, device, t.type, t.algorithmVersion)
          : { ok: false as const, detail: `unknown kind ${t.type}` };
        if (takes.ok) {
          commands.push(templateCommand(device.id, { id: t.enrolleeId, devicePin: pinOf.get(t.enrolleeId)! }, t));
          syncRows.push({ templateId: t.id, deviceId: device.id, status: 'pending', templateVersion: t.version, updatedAt: now });
        } else {
          syncRows.push({ templateId: t.id, deviceId: device.id, status: 'incompatible', templateVersion: t.version, updatedAt: now, detail: takes.detail });
        }
      }
    }
    await upsertSync(w.tx, syncRows);
    await this.commands.enqueue(w, commands);
    return commands.length;
  }

  /**
   * A destroyed person's templates: one delete per body part to every terminal that holds or may
   * hold one (not-theirs.ts `templateHolders`: a version it confirmed or was sent is deleted there
   * whatever its users say; one only queued there, or refused before it went out, not where their
   * PIN is someone else's); unsent writes of the other slots are superseded.
   */
  async deleteFromHolders(w: WriteContext, enrollee: { id: string; devicePin: string }, rows: readonly TemplatePart[]): Promise<void> {
    const holders = await templateHolders(
      w.tx,
      { devices: this.devices, commands: this.commands },
      enrollee,
      rows.map((r) => r.id),
    );
    await this.deleteParts(w, enrollee, rows, holders);
  }

  /** One delete per body part held on each terminal (it removes every slot of it there); unsent writes of the other slots superseded. */
  private async deleteParts(
    w: WriteContext,
    enrollee: { devicePin: string },
    rows: readonly TemplatePart[],
    holders: readonly TemplateHolder[],
  ): Promise<void> {
    const byId = new Map(rows.map((r) => [r.id, r]));
    const commands = new Map<string, NewCommand>();
    for (const h of holders) {
      const t = byId.get(h.templateId)!;
      commands.set(`${h.deviceId}:${t.type}:${t.fingerIndex}`, {
        deviceId: h.deviceId,
        kind: 'delete_template',
        payload: { pin: enrollee.devicePin, fingerIndex: t.fingerIndex, type: t.type },
        supersedeKey: deleteKey(enrollee.devicePin, t),
      });
    }
    await this.commands.supersedeKeys(
      w,
      [...new Set(holders.map((h) => h.deviceId))],
      rows.filter((r) => r.type !== 'fingerprint').map((r) => templateKey(enrollee.devicePin, r)),
    );
    await this.commands.enqueue(w, [...commands.values()]);
  }

  /**
   * Templates destroyed without taking the person off the terminals (consent withdrawn): a
   * terminal whose user of this person holds a biometric the service did not store (a legacy
   * FACE record, a vein, a face photo, a BIODATA kind it does not keep, a finger refused without
   * a delete) cannot be sent a delete of each. The user is deleted there, which takes all of it,
   * and put back without biometrics where they still belong (an approved terminal), so their card
   * and PIN still punch; the delete says so (`putBack`), so the terminal's user stays known with
   * what its terminal gave it (privilege, password: devices/users.ts `removed`), and the record put
   * back keeps them. The parts refused as theirs on a user linked to nobody go one by one
   * (deleteRefused). Returns the terminals.
   */
  async clearWhatWasNotStored(w: WriteContext, enrolleeId: string, stored: readonly { type: string; fingerIndex: number }[]): Promise<number> {
    const kept = new Set(stored.map((t) => `${t.type}:${t.fingerIndex}`));
    const holders = (await this.devices.users.linkedTo(w.tx, enrolleeId)).filter((u) =>
      Object.entries(u.biometrics).some(([type, indexes]) => indexes.some((i) => !kept.has(`${type}:${i}`))),
    );
    const refused = await this.deleteRefused(w, enrolleeId, new Set());
    if (holders.length === 0) return refused;
    const person = await this.enrollees.find(w.tx, enrolleeId);
    const commands: NewCommand[] = [];
    for (const u of holders) {
      const device = await this.devices.findById(w.tx, u.deviceId);
      const putBack = person?.status === 'active' && device?.status === 'approved';
      commands.push({ deviceId: u.deviceId, kind: 'delete_user', payload: { pin: u.pin, ...(putBack ? { putBack } : {}) }, supersedeKey: `user:${u.pin}` });
      if (putBack) commands.push(userCommand(u.deviceId, person));
    }
    await this.commands.enqueue(w, commands);
    return holders.length + refused;
  }

  /**
   * Whether a terminal holds anything of the enrollee's, as far as the service knows: a user of
   * theirs with a biometric, or a part refused as theirs and left there (what a withdrawal
   * deletes besides the stored templates: clearWhatWasNotStored).
   */
  async holdsAnythingOf(q: Queryable, enrolleeId: string): Promise<boolean> {
    const linked = await this.devices.users.linkedTo(q, enrolleeId);
    if (linked.some((u) => Object.values(u.biometrics).some((indexes) => indexes.length > 0))) return true;
    return (await usersRefusedFor(q, enrolleeId)).length > 0;
  }

  /**
   * The parts the walk-up refused as this enrollee's and left on terminals outside their reach
   * (DELETE_REJECTED_DEVICE_TEMPLATES off: walk-up.ts `reject`), on users linked to nobody: one
   * delete per part, as for a template the service holds, so the terminal's user there keeps its
   * card, password and anything else; never the user, nor a terminal user that only has their PIN
   * (it punches as no one of theirs: punches/service.ts `whose`). Not on `except`, where the whole
   * user goes anyway. Returns the terminals.
   */
  async deleteRefused(w: WriteContext, enrolleeId: string, except: ReadonlySet<string>): Promise<number> {
    const users = (await usersRefusedFor(w.tx, enrolleeId)).filter((u) => !except.has(u.deviceId));
    const commands: NewCommand[] = users.flatMap((u) =>
      Object.entries(u.refused).flatMap(([type, indexes]) =>
        indexes.map((fingerIndex) => ({
          deviceId: u.deviceId,
          kind: 'delete_template' as const,
          payload: { pin: u.pin, fingerIndex, type },
          supersedeKey: deleteKey(u.pin, { type, fingerIndex }),
        })),
      ),
    );
    await this.commands.enqueue(w, commands);
    return users.length;
  }

  /**
   * An enrollee deactivated or deleted: off every terminal that may hold them (delete_user); where
   * their PIN is someone else's (no delete_user there), the templates the service's record says
   * went there are deleted one by one (deleteParts: read before removeFromDevices drops that
   * record), and so are the parts refused as theirs elsewhere (deleteRefused).
   */
  async takeOffEveryTerminal(w: WriteContext, person: { id: string; devicePin: string }): Promise<void> {
    const holders = await this.devicesThatMayHold(w.tx, person.id);
    const owned = await w.tx.select(templateIdentity).from(templates).where(eq(templates.enrolleeId, person.id));
    const held = await templateHolders(
      w.tx,
      { devices: this.devices, commands: this.commands },
      person,
      owned.map((t) => t.id),
    );
    const userGone = await this.removeFromDevices(w, [person], holders);
    await this.deleteParts(
      w,
      person,
      owned,
      held.filter((h) => !userGone.has(h.deviceId)),
    );
    await this.deleteRefused(w, person.id, userGone);
  }

  /**
   * Takes enrollees off terminals (they left those terminals' scope, were deactivated or
   * deleted): `delete_user` to every pair, which also removes their templates there, but where
   * their PIN is someone else's or nothing of theirs went (not-theirs.ts: their record waiting
   * there is closed instead); their template writes there are pointless now, their unsent
   * fingerprint deletes there give way to it (a deletion proof waiting for one waits for the
   * `delete_user` instead; one that went out stays owed), and their sync rows there are dropped.
   * Returns the terminals sent a `delete_user`.
   */
  async removeFromDevices(w: WriteContext, people: readonly { id: string; devicePin: string }[], deviceIds: readonly string[]): Promise<Set<string>> {
    if (people.length === 0 || deviceIds.length === 0) return new Set();
    const { tx } = w;
    const elsewhere = await notTheirs(tx, { devices: this.devices, commands: this.commands }, people, deviceIds);
    const commands: NewCommand[] = [];
    for (const deviceId of deviceIds) {
      for (const p of people) {
        if (!elsewhere.has(pairOf(deviceId, p.devicePin)))
          commands.push({ deviceId, kind: 'delete_user', payload: { pin: p.devicePin }, supersedeKey: userCommandKey(p.devicePin) });
      }
    }
    if (elsewhere.size > 0) {
      const skipped = [...new Set([...elsewhere].map((pair) => pair.split('\n')[0]!))];
      await this.commands.supersedeKeys(w, skipped, [...new Set(people.map((p) => userCommandKey(p.devicePin)))]);
    }
    const ids = await this.commands.enqueue(w, commands);
    const userDelete = new Map(commands.map((c, i) => [`${c.deviceId}\n${String(c.payload.pin)}`, { id: ids[i]!, kind: c.kind }]));
    const pinOfKey = new Map<string, string>(people.flatMap((p) => FINGER_INDEXES.map((finger) => [`tpl:${p.devicePin}:${finger}`, p.devicePin] as const)));
    await this.commands.supersedeKeys(w, deviceIds, [...pinOfKey.keys()], (deviceId, key) => userDelete.get(`${deviceId}\n${pinOfKey.get(key)}`));
    const pinOf = new Map(people.map((p) => [p.id, p.devicePin]));
    for (const ids of chunks(
      people.map((p) => p.id),
      500,
    )) {
      const owned = await tx
        .select({ id: templates.id, enrolleeId: templates.enrolleeId, type: templates.type, fingerIndex: templates.fingerIndex, slot: templates.slot })
        .from(templates)
        .where(inArray(templates.enrolleeId, ids));
      await this.commands.supersedeKeys(
        w,
        deviceIds,
        owned.filter((t) => t.type !== 'fingerprint').map((t) => templateKey(pinOf.get(t.enrolleeId)!, t)),
      );
      for (const templateIds of chunks(
        owned.map((t) => t.id),
        400,
      )) {
        for (const devicesChunk of chunks(deviceIds, 400)) {
          await tx.delete(templateSync).where(and(inArray(templateSync.templateId, templateIds), inArray(templateSync.deviceId, devicesChunk)));
        }
      }
    }
    return new Set(commands.map((c) => c.deviceId));
  }

  // ---------------------------------------------------------------- scope

  /**
   * Approved devices sharing an area with the enrollee: one of their areas, or one they left by a
   * move whose effective date has not begun (membership `terminalAreaIdsOf`).
   */
  async devicesInScope(q: Queryable, enrolleeId: string): Promise<DeviceRow[]> {
    return this.devices.inAreas(q, await this.enrollees.membership.terminalAreaIdsOf(q, enrolleeId));
  }

  /** Approved or disabled terminals sharing an area with the enrollee, as devicesInScope (pending ones never got data). */
  async devicesSharingArea(q: Queryable, enrolleeId: string): Promise<string[]> {
    const rows = await this.devices.inAreas(q, await this.enrollees.membership.terminalAreaIdsOf(q, enrolleeId), ['approved', 'disabled']);
    return rows.map((r) => r.id);
  }

  /**
   * Terminals that may hold an enrollee's user record or templates: those sharing an area, any
   * terminal that holds or may hold a template of theirs (`mayHold`: a walk-up source outside scope),
   * and any terminal whose user is linked to them. Removed terminals included: what they held is
   * kept under their id, and the deletes wait for them (devices/service.ts `remove`). A terminal
   * whose user only has their PIN is not one (deleteRefused takes what was refused as theirs there).
   */
  private async devicesThatMayHold(q: Queryable, enrolleeId: string): Promise<string[]> {
    const holders = await q
      .selectDistinct({ deviceId: templateSync.deviceId })
      .from(templateSync)
      .innerJoin(templates, eq(templates.id, templateSync.templateId))
      .where(and(eq(templates.enrolleeId, enrolleeId), mayHold));
    const linked = await this.devices.users.linkedTo(q, enrolleeId);
    return [...new Set([...(await this.devicesSharingArea(q, enrolleeId)), ...holders.map((h) => h.deviceId), ...linked.map((u) => u.deviceId)])];
  }
}

/** The templates (never the bytes) of these enrollees, by enrollee. */
async function templatesOf(q: Queryable, enrolleeIds: readonly string[]) {
  const all: (TemplateRef & { enrolleeId: string; algorithmVersion: string })[] = [];
  for (const ids of chunks(enrolleeIds, 500)) {
    all.push(
      ...(await q
        .select({
          ...templateIdentity,
          enrolleeId: templates.enrolleeId,
        })
        .from(templates)
        .where(inArray(templates.enrolleeId, ids))),
    );
  }
  const byEnrollee = new Map<string, typeof all>();
  for (const t of all) byEnrollee.set(t.enrolleeId, [...(byEnrollee.get(t.enrolleeId) ?? []), t]);
  return byEnrollee;
}

/** The user record of an enrollee for one terminal; `enrollee` lets the terminal's answer link its user to them. */
export function userCommand(deviceId: string, person: TerminalUser): NewCommand {
  return {
    deviceId,
    kind: 'add_user',
    payload: { pin: person.devicePin, name: person.displayName, enrollee: person.id, ...(person.card ? { card: person.card } : {}) },
    supersedeKey: userCommandKey(person.devicePin),
  };
}

/** The supersede key of a user's record or delete on a terminal. */
export function userCommandKey(pin: string): string {
  return `user:${pin}`;
}

/** One template for one terminal; `enrollee` lets the renderer check the terminal's user with that PIN is them. */
export function templateCommand(deviceId: string, enrollee: { id: string; devicePin: string }, t: TemplateRef): NewCommand {
  const pin = enrollee.devicePin;
  return {
    deviceId,
    kind: 'update_template',
    payload: { pin, fingerIndex: t.fingerIndex, type: t.type, slot: t.slot, templateId: t.id, templateVersion: t.version, enrollee: enrollee.id },
    supersedeKey: templateKey(pin, t),
  };
}

/**
 * The supersede key of a template command: a newer write or a delete of the same template takes
 * an unsent one's place. Fingerprints keep the first release's keys.
 */
function templateKey(pin: string, t: { type: string; fingerIndex: number; slot: number }): string {
  return t.type === 'fingerprint' ? `tpl:${pin}:${t.fingerIndex}` : `tpl:${pin}:${t.type}:${t.fingerIndex}:${t.slot}`;
}

/** A delete removes a whole body part: for a fingerprint, the key of its only template. */
export function deleteKey(pin: string, t: { type: string; fingerIndex: number }): string {
  return t.type === 'fingerprint' ? `tpl:${pin}:${t.fingerIndex}` : `tpl:${pin}:${t.type}:${t.fingerIndex}`;
}
