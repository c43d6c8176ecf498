/**
 * Walk-up enrollment: templates a terminal uploads (OPERLOG `FP`, `BIODATA` Type=1, 3.x
 * `templatev10`) go through store_template, marked present on the uploading terminal and
 * queued to the other in-scope ones, when they are an enrollee's. Whose a template is, is
 * decided per terminal, never by the PIN alone:
 * - the terminal's user with that PIN is linked to an enrollee (the service sent them there, or
 *   an administrator adopted them): that enrollee's;
 * - the service handed the PIN out to an enrollee (PINs handed out skip every PIN a terminal is
 *   known to hold, so no known terminal held it before the enrollee existed): the enrollee's,
 *   wherever it appears, even when the terminal reported the user before confirming the service's
 *   `add_user` (an administrator created them at the menu with the PIN HR gave) or the terminal
 *   was refused before becoming an enrollment station; but not a user in the terminal's
 *   inventory (its answer to the user query of its approval: it may have held the PIN before the
 *   enrollee existed), nor anything it sends before that answer (its backlog, in any order: such a
 *   user is in the answer anyway), which stays its own user — a conflict an administrator
 *   resolves;
 * - a part an open remote session of this terminal asked for (its enroll command went out, after
 *   the service's own user record of the enrollee): the enrollee's, whatever the terminal holds
 *   or reported under that PIN and before it answered its user query — the terminal wrote the
 *   service's user and enrolled that part on request. When the terminal's user is its own (the
 *   user record was refused as a conflict), the part stays that user's and the session fails;
 * - the terminal never reported that PIN and an enrollee adopted from another terminal has it:
 *   the enrollee's;
 * - either way only if the terminal is in the enrollee's scope or is an enrollment station, or
 *   its user is linked to them and the service asked it for their templates as they leave it
 *   (leaving.ts: kept before the user goes);
 * - the terminal holds that PIN as its own user (reported, not linked, and not a PIN the service
 *   handed out), or no enrollee has the PIN: the terminal's own user's. Nothing is stored (there
 *   is no consent) and nothing is deleted from the terminal; the user's biometrics are counted in
 *   `devices/{sn}/users/`, where an administrator adopts them.
 * A template that breaks a rule (outside the enrollee's scope, no consent, disallowed finger, too
 * large, too many fingers) is rejected and logged — a device event and a `template_rejected`
 * event — and, with DELETE_REJECTED_DEVICE_TEMPLATES, deleted from that terminal; so is, whatever
 * that setting, a part of a person whose deletion was asked (walk-up-reject.ts). No HTTP error
 * either way.
 *
 * A duress finger stays one: the flag is stored with the template and sent to the other
 * terminals with it.
 *
 * Each template is stored in its own small write, so one rejection never rolls back another.
 * A re-upload of the bytes already stored (a resent batch, or a terminal echoing a template
 * the server sent it) only marks the template present there: it never makes a new version,
 * which would otherwise bounce between terminals for ever.
 */
import type { WriteContext } from '../../platform/db/client';
import { type ErrorCode, FpaError } from '../../platform/errors';
import type { BiometricType } from '../../protocol/adms';
import type { CommandService } from '../commands';
import { type DeviceRow, type DeviceService, type DeviceUserRow, deviceRef, noteOnDevice, type ReportedUser } from '../devices';
import { type CardOutcome, type EnrolleeRow, type EnrolleeService, normaliseCard } from '../enrollees';
import type { EventChannel } from '../events';
import type { EnrollmentEvents } from './events';
import { userCommand } from './fan-out';
import { leaveFetchOf, type ScopeLeaving } from './leaving';
import { type RemoteEnrollment, userRecordReached } from './remote-sessions';
import type { EnrollmentRuntime } from './runtime';
import type { SessionRow } from './sessions';
import type { TemplateStore } from './template-store';
import { type Refusal, refuseUnkeptOfDeleted, rejectUpload } from './walk-up-reject';
import { keepAccepted } from './write-behind-delete';

export interface TemplateUpload {
  pin: string;
  /** Default `fingerprint`. */
  type?: BiometricType;
  /** The body part (finger 0–9, palm 0/1, face 0). */
  fingerIndex: number;
  /** Position in a multi-template set (BIODATA `Index`); default 0. */
  slot?: number;
  /** Base64 as sent (already checked to be base64 by the parser). */
  template: string;
  algorithmVersion: string;
  /** A duress finger (FP `Valid=3`, BIODATA `Duress=1`, `templatev10` fingerid ≥ 16). */
  duress: boolean;
  /** The record kind it came in (`FP`, `BIODATA`, `templatev10`), for the logs. */
  origin: string;
}

/** A biometric a terminal holds for a user that the service does not keep (a legacy FACE record, a vein, a face photo, a BIODATA kind not kept). */
export interface HeldBiometric {
  pin: string;
  type: string;
  index: number;
}

export type UploadOutcome = 'stored' | 'unchanged' | 'rejected' | 'terminal_user';

/** store_template refusals that reject the upload; anything else is a server failure. */
const REJECTIONS = new Set<ErrorCode>([
  'not_found',
  'enrollee_inactive',
  'consent_required',
  'finger_not_allowed',
  'biometric_not_allowed',
  'template_too_large',
  'too_many_fingers',
  'invalid_template',
  'validation_error',
]);

/** The device log entry of a card a terminal reported and the service did not take (walk-up `cardsReported`). */
const CARD_NOTES: Partial<Record<CardOutcome, { kind: string; message: string }>> = {
  taken: {
    kind: 'card_conflict',
    message: 'was given a card another enrollee holds at the terminal: it is not taken, and the user is sent back without it (one person per card)',
  },
  kept: {
    kind: 'card_kept',
    message: "was given another card at the terminal; the enrollee's card set by an administrator is kept and sent back",
  },
  removed: {
    kind: 'card_removed',
    message: "holds a card at the terminal although an administrator removed the enrollee's card: it is not taken, and the user is sent back without it",
  },
};

/**
 * The template is the terminal's own user's, not an enrollee's. `asked`: the remote session that
 * asked the terminal for this part (the enrollee with that PIN), looked up once by ownerOf.
 */
class TerminalsOwnUser extends Error {
  constructor(readonly asked: SessionRow | null = null) {
    super('the terminal’s own user');
  }
}
/** The enrollee ownerOf took an upload to be (null: not yet, or no one), kept outside the write a refusal rolls back. */
interface Claim {
  enrolleeId: string | null;
  /** Taken from a terminal out of their scope that answers their leave's query of templates (leaving.ts). */
  leaving?: boolean;
}
/** An enrollee's PIN, from a terminal outside their scope that is not an enrollment station. */
class OutOfScope extends Error {}
const OUT_OF_SCOPE = 'the enrollee with this PIN is not in this terminal’s areas and it is not an enrollment station';
/** The terminal's user is linked to an enrollee who was deleted since. */
class DeletedEnrollee extends Error {
  constructor(readonly enrolleeId: string) {
    super('the enrollee with this PIN was deleted');
  }
}

export class WalkUpEnrollment {
  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly events: EventChannel<EnrollmentEvents>,
    private readonly deps: {
      devices: DeviceService;
      enrollees: EnrolleeService;
      templates: TemplateStore;
      remote: RemoteEnrollment;
      commands: CommandService;
      leaving: ScopeLeaving;
    },
  ) {}

  async accept(device: DeviceRow, upload: TemplateUpload): Promise<UploadOutcome> {
    const data = new Uint8Array(Buffer.from(upload.template, 'base64'));
    const claim: Claim = { enrolleeId: null };
    try {
      return await this.ctx.db.write(async (w) => {
        try {
          return await this.store(w, device, upload, data, claim);
        } catch (error) {
          if (!(error instanceof TerminalsOwnUser)) throw error;
          // Refused by ownerOf before the store wrote anything: kept as the terminal's user in
          // this same transaction, with the session ownerOf found (not looked up again).
          await this.keepAsTerminalUser(w, device, upload, error.asked);
          return 'terminal_user';
        }
      });
    } catch (error) {
      const whose = claim.enrolleeId;
      if (error instanceof OutOfScope) {
        await this.reject(device, upload, { reason: 'not_in_scope', message: OUT_OF_SCOPE, whose, refusedFor: whose });
        return 'rejected';
      }
      if (error instanceof DeletedEnrollee) {
        await this.reject(device, upload, { reason: 'unknown_pin', message: error.message, whose: error.enrolleeId, refusedFor: null });
        return 'rejected';
      }
      if (error instanceof FpaError && REJECTIONS.has(error.code)) {
        const reason = error.code === 'not_found' ? 'unknown_pin' : error.code;
        const taken = reason === 'unknown_pin' ? null : whose;
        await this.reject(device, upload, { reason, message: error.message, whose: taken, refusedFor: taken });
        return 'rejected';
      }
      throw error;
    }
  }

  private async store(w: WriteContext, device: DeviceRow, upload: TemplateUpload, data: Uint8Array, claim: Claim): Promise<UploadOutcome> {
    const { templates, remote, devices } = this.deps;
    const type = upload.type ?? 'fingerprint';
    const slot = upload.slot ?? 0;
    const person = await this.ownerOf(w, device, upload, claim);
    await devices.users.noteBiometric(w.tx, device.id, upload.pin, type, upload.fingerIndex);
    const session = await remote.openSessionFor(w.tx, device.id, person.id);
    const requested = (session?.biometric === type && session.fingersRequested.includes(upload.fingerIndex)) ?? false;
    const same = await templates.markPresentIfSame(w, device.id, {
      enrolleeId: person.id,
      type,
      fingerIndex: upload.fingerIndex,
      slot,
      algorithmVersion: upload.algorithmVersion,
      duress: upload.duress,
      data,
    });
    const held =
      same ??
      (await templates.storeTemplateIn(w, {
        enrolleeId: person.id,
        type,
        fingerIndex: upload.fingerIndex,
        slot,
        data,
        algorithmVersion: upload.algorithmVersion,
        duress: upload.duress,
        source: requested ? 'remote' : 'device',
        sourceDeviceId: device.id,
        by: `device:${device.serialNumber}`,
      }));
    if (session && requested) await remote.recordCapture(w, session, upload.fingerIndex);
    const template = { ...held, type, fingerIndex: upload.fingerIndex, slot };
    await keepAccepted(w, this.deps.commands, { deviceId: device.id, enrolleeId: person.id, pin: upload.pin, template, now: this.ctx.clock.now() });
    if (claim.leaving) await this.deps.leaving.complete(w, device.id, upload.pin);
    return same ? 'unchanged' : 'stored';
  }

  /**
   * The enrollee a walk-up template at this terminal belongs to (the rules are at the top of this
   * file), noted in `claim` before the scope is checked: a refusal from then on is for them.
   */
  private async ownerOf(w: WriteContext, device: DeviceRow, upload: TemplateUpload, claim: Claim): Promise<EnrolleeRow> {
    const { devices, enrollees } = this.deps;
    const { pin } = upload;
    const held = await devices.users.one(w.tx, device.id, pin);
    let person: EnrolleeRow | null;
    if (held?.enrolleeId) {
      person = await enrollees.find(w.tx, held.enrolleeId);
      if (!person || person.status === 'deleted') throw new DeletedEnrollee(held.enrolleeId);
    } else {
      person = await enrollees.findByPin(w.tx, pin);
      if (!person) throw new TerminalsOwnUser();
      // The finger the service's own remote session just had the terminal enroll, on the user
      // record the service wrote there, under a PIN the service handed out: the enrollee's before
      // the terminal answered its user query. Never under a PIN it reported holding before, nor
      // one the service did not hand out (adopted elsewhere): an old template of the terminal's
      // own user under that PIN and part may arrive in the same window, and nothing tells them apart.
      const asked = await this.deps.remote.askedFor(w.tx, device.id, person, upload.type ?? 'fingerprint', upload.fingerIndex);
      const claimed = asked?.userSent === true && person.pinAllocated && !held?.heldBefore;
      if (!claimed) await this.refuseTerminalsOwn(w, device, person, held, asked?.session ?? null);
    }
    claim.enrolleeId = person.id;
    if (!(await this.mayEnrollHere(w, device, person.id))) {
      // Out of their scope, but leaving it: the terminal answers the query of their templates
      // that their leave asked for (leaving.ts), and those are kept before the user goes.
      if (held?.enrolleeId !== person.id || (await leaveFetchOf(w.tx, this.deps.commands, device.id, pin)) === null) throw new OutOfScope();
      claim.leaving = true;
    }
    if (!held?.enrolleeId) await devices.users.link(w.tx, device.id, pin, person.id);
    return person;
  }

  /**
   * A PIN the service handed out is its enrollee even where the terminal reported the user first;
   * an adopted PIN held here unlinked may be another person (a conflict to resolve). Before the
   * terminal answered the query of its users, a PIN it sends may be one it held before the
   * enrollee existed (its backlog comes in any order): its own until adopted.
   */
  private async refuseTerminalsOwn(
    w: WriteContext,
    device: DeviceRow,
    person: EnrolleeRow,
    held: DeviceUserRow | null,
    asked: SessionRow | null,
  ): Promise<void> {
    if (held && (held.heldBefore || !person.pinAllocated)) throw new TerminalsOwnUser(asked);
    if ((await this.deps.commands.lookups.inventorySince(w.tx, device.id)) !== null) throw new TerminalsOwnUser(asked);
    // An adopted PIN (not handed out: small numbers, common across a fleet) is theirs only where
    // they were adopted (a linked user) or their user record went; anywhere else a user of that
    // PIN is one made at the terminal's menu, its first finger often uploaded before its USER line.
    if (!person.pinAllocated && !(await userRecordReached(w.tx, this.deps.commands, device.id, person))) throw new TerminalsOwnUser(asked);
  }

  private async mayEnrollHere(w: WriteContext, device: DeviceRow, enrolleeId: string): Promise<boolean> {
    if (device.enrollmentStation) return true;
    return this.deps.enrollees.membership.sharesArea(w.tx, enrolleeId, await this.deps.devices.areaIdsOf(w.tx, device.id));
  }

  /**
   * Users a terminal reported (its menu's USER records, 3.x `user` rows, query answers): a PIN the
   * service handed out to an enrollee is that enrollee here when the terminal is in their scope or
   * is an enrollment station, so their templates are taken and fanned out and their punches
   * count, even before the terminal confirmed the service's own `add_user`. The terminal's
   * inventory (its answer to the user query of its approval) is what it held before the service
   * knew it: those users stay its own until adopted, like any PIN the service did not hand out.
   */
  async usersReported(w: WriteContext, device: DeviceRow, reported: readonly ReportedUser[]): Promise<void> {
    const { devices, commands } = this.deps;
    const users = await this.withCardsChecked(w, device, reported);
    const inventorySince = await commands.lookups.inventorySince(w.tx, device.id);
    await devices.users.reported(w.tx, device.id, users, { inventorySince });
    await this.linkAllocated(
      w,
      device,
      users.map((u) => u.pin),
    );
    await this.cardsReported(w, device, users);
  }

  private async linkAllocated(w: WriteContext, device: DeviceRow, pins: readonly string[]): Promise<void> {
    const { devices, enrollees } = this.deps;
    const allocated = await enrollees.allocatedPins(w.execute, pins);
    if (allocated.size === 0) return;
    const unlinked = await devices.users.unlinkedSince(w.execute, device.id, [...allocated.keys()]);
    const candidates = [...allocated].filter(([pin]) => unlinked.has(pin));
    if (candidates.length === 0) return;
    const inScope = device.enrollmentStation
      ? new Set(candidates.map(([, id]) => id))
      : await enrollees.membership.sharingAreas(
          w.execute,
          candidates.map(([, id]) => id),
          await devices.areaIdsOf(w.tx, device.id),
        );
    for (const [pin, id] of candidates) if (inScope.has(id)) await devices.users.link(w.tx, device.id, pin, id);
  }

  /**
   * Cards as the terminal holds them (enrollees/cards.ts): `0` is no card; a card that is not a
   * number from 1 to 4294967295 is logged (`card_invalid`, without the number) and left out,
   * the rest of the user record kept.
   */
  private async withCardsChecked(w: WriteContext, device: DeviceRow, users: readonly ReportedUser[]): Promise<ReportedUser[]> {
    const out: ReportedUser[] = [];
    for (const u of users) {
      if (!u.card) {
        out.push(u);
        continue;
      }
      const checked = normaliseCard(u.card);
      if (checked.ok) out.push({ ...u, card: checked.card });
      else {
        out.push({ ...u, card: null });
        if (checked.reason !== 'zero') {
          await noteOnDevice(
            w.tx,
            device.id,
            'card_invalid',
            `the card of PIN ${u.pin} is not a number a terminal holds (${checked.reason}, ${u.card.length} characters): the user was kept without it`,
            { pin: u.pin, reason: checked.reason },
            this.ctx.clock.now(),
          );
        }
      }
    }
    return out;
  }

  /**
   * A card reported for a user who is an enrollee: it fills the enrollee's card when they have
   * none (enrollees `cardFromTerminal`); when they have another (an administrator's card wins),
   * an administrator removed theirs (a revoked badge still on the terminal), or another enrollee
   * holds it (one person per card: left there, the badge would open as both), the terminal gets
   * the enrollee's user record back, with their card or without one.
   */
  private async cardsReported(w: WriteContext, device: DeviceRow, users: readonly ReportedUser[]): Promise<void> {
    const { devices, enrollees } = this.deps;
    const carded = users.filter((u): u is ReportedUser & { card: string } => typeof u.card === 'string' && u.card !== '');
    if (carded.length === 0) return;
    const linked = await devices.users.enrolleesOf(
      w.execute,
      device.id,
      carded.map((u) => u.pin),
    );
    for (const u of carded) {
      const enrolleeId = linked.get(u.pin);
      if (!enrolleeId) continue;
      const outcome = await enrollees.changes.cardFromTerminal(w, enrolleeId, u.card, deviceRef(device));
      const note = CARD_NOTES[outcome];
      if (!note) continue;
      await this.sendCardBack(w, device, enrolleeId);
      await noteOnDevice(w.tx, device.id, note.kind, `PIN ${u.pin} ${note.message}`, { pin: u.pin, enrollee: enrolleeId }, this.ctx.clock.now());
    }
  }

  /** The enrollee's user record, with the card the service holds for them (or none), back to the terminal that reported another card. */
  private async sendCardBack(w: WriteContext, device: DeviceRow, enrolleeId: string): Promise<void> {
    const person = await this.deps.enrollees.get(enrolleeId, w.tx);
    await this.deps.commands.enqueue(w, [
      userCommand(device.id, { id: person.id, devicePin: person.devicePin, displayName: person.displayName, card: person.card }),
    ]);
  }

  /**
   * Biometrics a terminal holds that the service does not keep: noted on its users (the users
   * list counts them, and a withdrawal of consent deletes the user's there: fan-out.ts); on the
   * user of a person whose deletion was asked, deleted there at once.
   */
  async heldNotKept(device: DeviceRow, held: readonly HeldBiometric[]): Promise<void> {
    if (held.length === 0) return;
    await this.ctx.db.write(async (w) => {
      const { tx } = w;
      const inventorySince = await this.deps.commands.lookups.inventorySince(tx, device.id);
      // A backlog repeats records: each part once.
      const parts = new Map(held.map((b) => [`${b.pin}\u0000${b.type}\u0000${b.index}`, b]));
      for (const b of parts.values()) await this.deps.devices.users.noteBiometric(tx, device.id, b.pin, b.type, b.index, { inventorySince });
      // Of a person whose deletion was asked: not left there (walk-up-reject.ts).
      await refuseUnkeptOfDeleted({ ctx: this.ctx, events: this.events, ...this.deps }, w, device, [...parts.values()]);
    });
  }

  /**
   * A template of the terminal's own user: counted on the terminal's user list, neither stored nor
   * deleted. `asked`: the remote session that asked for it, which ends (endSessionThatAsked).
   */
  private async keepAsTerminalUser(w: WriteContext, device: DeviceRow, upload: TemplateUpload, asked: SessionRow | null): Promise<void> {
    const { tx } = w;
    const inventorySince = await this.deps.commands.lookups.inventorySince(tx, device.id);
    await this.deps.devices.users.noteBiometric(tx, device.id, upload.pin, upload.type ?? 'fingerprint', upload.fingerIndex, { inventorySince });
    await noteOnDevice(
      tx,
      device.id,
      'terminal_user_template',
      `${upload.type ?? 'fingerprint'} template of PIN ${upload.pin} (${upload.fingerIndex}) belongs to the terminal's own user: not stored until an administrator adopts them`,
      { pin: upload.pin, type: upload.type ?? 'fingerprint', finger_index: upload.fingerIndex, origin: upload.origin },
      this.ctx.clock.now(),
    );
    if (asked) await this.endSessionThatAsked(w, device, upload, asked);
  }

  /**
   * A remote session that asked for this finger will not get it (the terminal's user with that PIN
   * is not the one the service wrote there): it fails now, saying why, instead of holding the
   * terminal busy until its lifetime ends.
   */
  private async endSessionThatAsked(w: WriteContext, device: DeviceRow, upload: TemplateUpload, asked: SessionRow): Promise<void> {
    await this.deps.remote.failOnRejection(
      w,
      asked,
      upload.fingerIndex,
      `PIN ${upload.pin} on the terminal is its own user, not the one the service wrote there, so the template was kept as theirs (devices/${device.serialNumber}/users/: adopt the user as the enrollee or remove it, then start again)`,
    );
  }

  /** Logs a rejection and deletes the part from the terminal, or notes it there (walk-up-reject.ts). */
  private reject(device: DeviceRow, upload: TemplateUpload, refusal: Refusal): Promise<void> {
    return rejectUpload({ ctx: this.ctx, events: this.events, ...this.deps }, device, upload, refusal);
  }
}
