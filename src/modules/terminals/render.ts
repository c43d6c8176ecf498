/**
 * Device commands in the terminal's own words. A command is stored as a kind and references
 * (PIN, finger, template id and version) and rendered only when a poll sends it, so template
 * bytes never sit in the command table; the batch is marked `sent` before the terminal gets it.
 */
import { TemplateDecryptError } from '../../platform/crypto/template-cipher';
import type { Logger } from '../../platform/log';
import type { Clock } from '../../platform/runtime';
import { wallTimeAt } from '../../platform/time/zone';
import {
  BIODATA_TYPE,
  type BiometricType,
  biodataCommand,
  checkCommand,
  clearDataCommand,
  clearLogCommand,
  deleteBiodataCommand,
  deleteFingerCommand,
  deleteUserCommand,
  encodePush3DateTime,
  enrollBioCommand,
  enrollFingerCommand,
  fingerTemplateCommand,
  formatCommandBatch,
  infoCommand,
  push3DeleteBiodataCommand,
  push3DeleteTemplateCommand,
  push3DeleteUserCommand,
  push3EnrollCommand,
  push3QueryTemplatesCommand,
  push3QueryUsersCommand,
  push3SetTimeCommand,
  push3TemplateCommand,
  push3UserCommand,
  queryAttlogCommand,
  queryBiodataCommand,
  queryFingerTemplatesCommand,
  queryUsersCommand,
  rebootCommand,
  sanitizeValue,
  userInfoCommand,
} from '../../protocol/adms';
import type { CommandService, DueCommand } from '../commands';
import { type DeviceRow, type DeviceUsers, speaksSecurityPush, takesBiodata } from '../devices';
import { type FanOut, isBiometricType, type TemplateStore } from '../enrollment';

/** BIODATA `Type` of a fingerprint. */
const FINGERPRINT = 1;
/** Commands that write a person onto the terminal under a PIN. */
const WRITES_A_PERSON = new Set<string>(['add_user', 'update_template']);

/** What a user record keeps of the terminal's own record of that user: its menu's privilege and password. */
interface Kept {
  privilege: number;
  password: string;
}
/** Why a user record whose password cannot be opened is not sent (sending it without would take the password away). */
const PASSWORD_UNREADABLE =
  'the password the terminal holds for this user cannot be decrypted (its key is not in TEMPLATE_ENCRYPTION_KEYS); the record was not sent, so as not to remove it';

export class CommandRenderer {
  constructor(
    private readonly commands: CommandService,
    private readonly templates: TemplateStore,
    private readonly fanOut: FanOut,
    private readonly users: DeviceUsers,
    private readonly log: Logger,
    private readonly limits: { maxCommands: number; maxBytes: number },
    private readonly clock: Clock,
    private readonly zoneOf: (device: DeviceRow) => string,
  ) {}

  /**
   * The next batch for a polling device as `C:<id>:<text>` lines, or null when there is
   * nothing to send; for a terminal that is not approved, its deletes only; for one that has not
   * answered the query of its users, nothing about a PIN (polls.ts). Only what was marked `sent` goes out: a command another instance took, or
   * that was replaced in place, since it was read is left out.
   */
  async takeBatch(device: DeviceRow): Promise<string | null> {
    // Deletes go to a terminal whatever its status (a pending one may be a removed terminal back,
    // a disabled one still holds what it held). While an approved one has not said who it holds,
    // nothing about a PIN is due, deletes included: under that PIN may be its own user
    // (commands/polls.ts); where a PIN is someone else's, no delete of the person was queued
    // (enrollment/not-theirs.ts).
    const due = await this.commands.polls.takeDue(device.id, { deletesOnly: device.status !== 'approved' });
    if (!due) return null;
    const rendered: { id: string; text: string }[] = [];
    const candidates = new Map<string, DueCommand>();
    const gone: number[] = [];
    const unreadable: { id: number; reason: string }[] = [];
    const conflicting = await this.conflicting(device, due);
    const kept = await this.keptOnTerminal(device, due);
    for (const command of due) {
      if (conflicting.has(command.id)) {
        unreadable.push({ id: command.id, reason: 'the terminal holds this PIN for someone else (see devices/{sn}/users/)' });
        continue;
      }
      const own = kept.get(command.id);
      if (own === 'unreadable') {
        unreadable.push({ id: command.id, reason: PASSWORD_UNREADABLE });
        continue;
      }
      let text: string | null;
      try {
        text = await this.render(device, command, own);
      } catch (error) {
        if (!(error instanceof TemplateDecryptError)) throw error;
        // One template whose key is gone must not hold up the rest of the terminal's queue.
        this.log.warn('a queued template cannot be decrypted; its command fails', { command: command.id, device: device.serialNumber });
        unreadable.push({ id: command.id, reason: 'template cannot be decrypted' });
        continue;
      }
      if (text === null) gone.push(command.id);
      else {
        rendered.push({ id: String(command.id), text });
        candidates.set(String(command.id), command);
      }
    }
    await this.commands.polls.retire(gone, unreadable);
    const batch = formatCommandBatch(rendered, this.limits);
    if (batch.included.length === 0) return null;
    const sent = await this.commands.polls.markSent(batch.included.map((id) => candidates.get(id)!));
    if (sent.size === 0) return null;
    if (sent.size === batch.included.length) return batch.body;
    return formatCommandBatch(
      rendered.filter((r) => sent.has(Number(r.id))),
      this.limits,
    ).body;
  }

  /**
   * Commands that would write an enrollee's record or template onto a terminal user that is
   * someone else (the terminal reported that PIN as its own user, or as another enrollee's
   * since the command was queued): they fail instead of overwriting that person.
   */
  private async conflicting(device: DeviceRow, due: readonly DueCommand[]): Promise<Set<number>> {
    const writes = due.filter((c) => WRITES_A_PERSON.has(c.kind) && typeof c.payload.enrollee === 'string' && typeof c.payload.pin === 'string');
    if (writes.length === 0) return new Set();
    const held = await this.users.enrolleesOf(
      this.users.read,
      device.id,
      writes.map((c) => String(c.payload.pin)),
    );
    const conflicting = writes.filter((c) => held.has(String(c.payload.pin)) && held.get(String(c.payload.pin)) !== c.payload.enrollee);
    const people = new Map(conflicting.map((c) => [String(c.payload.pin), String(c.payload.enrollee)]));
    await this.fanOut.recordConflicts(
      device,
      [...people].map(([pin, enrollee]) => ({ pin, enrollee })),
    );
    return new Set(conflicting.map((c) => c.id));
  }

  /**
   * The user records (`add_user`) of enrollees whose user on this terminal holds a privilege or a
   * password the terminal reported (given at its menu, or the user was adopted from it), by
   * command: the record sent keeps them, as the terminal's own record of that user had them (an
   * adopted administrator is not demoted, nor their password taken away). Only on this terminal:
   * another terminal's record of the same person carries its own, or none.
   */
  private async keptOnTerminal(device: DeviceRow, due: readonly DueCommand[]): Promise<Map<number, Kept | 'unreadable'>> {
    const records = due.filter((c) => c.kind === 'add_user' && typeof c.payload.enrollee === 'string' && typeof c.payload.pin === 'string');
    const out = new Map<number, Kept | 'unreadable'>();
    if (records.length === 0) return out;
    const kept = await this.users.credentials.of(
      device.id,
      records.map((c) => String(c.payload.pin)),
    );
    for (const c of records) {
      const own = kept.get(String(c.payload.pin));
      if (!own || own.enrolleeId !== c.payload.enrollee) continue;
      out.set(c.id, 'unreadable' in own ? 'unreadable' : { privilege: own.privilege, password: own.password });
    }
    return out;
  }

  /**
   * A command's wire text in the terminal's dialect (Security PUSH 3.x or attendance 2.x); null
   * when its data is gone (a template replaced or deleted since it was queued). A user record
   * carries `kept` (the terminal's own privilege and password of that user), or none.
   */
  async render(device: DeviceRow, command: Pick<DueCommand, 'kind' | 'payload'>, kept?: Kept): Promise<string | null> {
    const p = command.payload as Record<string, string | number | undefined>;
    const pin = String(p.pin ?? '');
    // The dialect the terminal declared (handshake pushver, or DeviceType/PushVersion at registry).
    const v3 = speaksSecurityPush(device);
    switch (command.kind) {
      case 'add_user': {
        const user = { pin, name: String(p.name ?? ''), card: cardOf(p), privilege: kept?.privilege ?? 0, password: kept?.password ?? '' };
        return v3 ? push3UserCommand(user) : userInfoCommand(user);
      }
      case 'delete_user':
        return v3 ? push3DeleteUserCommand(pin) : deleteUserCommand(pin);
      case 'update_template':
        return this.renderTemplate(device, pin, p, v3);
      case 'delete_template': {
        const finger = Number(p.fingerIndex);
        const type = kindOf(p);
        // Faces, palms and veins only ever travel as BIODATA; so do fingerprints a terminal keeps as BIODATA.
        const biodata = type !== 'fingerprint' ? BIODATA_TYPE[type] : takesBiodata(device, device.algorithmVersion) ? FINGERPRINT : null;
        if (biodata !== null) return v3 ? push3DeleteBiodataCommand(pin, biodata, finger) : deleteBiodataCommand(pin, biodata, finger);
        return v3 ? push3DeleteTemplateCommand(pin, finger) : deleteFingerCommand(pin, finger);
      }
      case 'ENROLL_FP':
        return v3 ? push3EnrollCommand(pin, FINGERPRINT, Number(p.fingerIndex), cardOf(p)) : enrollFingerCommand(pin, Number(p.fingerIndex));
      case 'ENROLL_BIO': {
        const type = BIODATA_TYPE[kindOf(p)];
        const no = Number(p.fingerIndex);
        return v3 ? push3EnrollCommand(pin, type, no, cardOf(p)) : enrollBioCommand(pin, type, { no, cardNo: cardOf(p) });
      }
      case 'check':
        return checkCommand();
      case 'info':
        return infoCommand();
      case 'reboot':
        return rebootCommand();
      case 'set_time':
        // 2.x terminals take the time from the handshake (the Date header and TimeZone, §7).
        return v3 ? push3SetTimeCommand(encodePush3DateTime(wallTimeAt(this.clock.now(), this.zoneOf(device)))) : checkCommand();
      case 'query_users':
        return v3 ? push3QueryUsersCommand() : queryUsersCommand();
      case 'query_templates':
        if (v3) return push3QueryTemplatesCommand(pin);
        return takesBiodata(device, device.algorithmVersion) ? queryBiodataCommand(FINGERPRINT, pin) : queryFingerTemplatesCommand(pin);
      case 'reupload_logs':
        return queryAttlogCommand(String(p.startTime), String(p.endTime));
      case 'clear_logs':
        return clearLogCommand();
      case 'clear_data':
        return clearDataCommand();
      case 'raw':
        // One line: a line break would smuggle a second command past the queue.
        return sanitizeValue(String(p.command ?? '')).replace(/[\r\n]/g, '') || null;
      default:
        return null;
    }
  }

  private async renderTemplate(device: DeviceRow, pin: string, p: Record<string, string | number | undefined>, v3: boolean): Promise<string | null> {
    const template = await this.templates.openForDevice(String(p.templateId), Number(p.templateVersion));
    if (!template) return null;
    const base64 = Buffer.from(template.plain).toString('base64');
    template.plain.fill(0);
    if (template.type !== 'fingerprint') {
      const [major = '0', minor = '0'] = template.algorithmVersion.split('.');
      return biodataCommand({
        pin,
        no: template.fingerIndex,
        index: template.slot,
        type: BIODATA_TYPE[template.type],
        majorVer: major,
        minorVer: minor,
        template: base64,
        duress: 0,
      });
    }
    if (takesBiodata(device, template.algorithmVersion)) {
      const [major = '0', minor = '0'] = template.algorithmVersion.split('.');
      return biodataCommand({
        pin,
        no: template.fingerIndex,
        index: 0,
        type: FINGERPRINT,
        majorVer: major,
        minorVer: minor,
        template: base64,
        duress: template.duress ? 1 : 0,
      });
    }
    if (v3) return push3TemplateCommand({ pin, fingerIndex: template.fingerIndex, template: base64, duress: template.duress });
    return fingerTemplateCommand({ pin, fingerIndex: template.fingerIndex, template: base64, valid: template.duress ? 3 : 1 });
  }
}

/** The kind a template command is about (commands queued before there were kinds carry none: fingerprints). */
function kindOf(p: Record<string, string | number | undefined>): BiometricType {
  return isBiometricType(p.type) ? p.type : 'fingerprint';
}

/** A card number from a command payload, when the enrollee has one. */
function cardOf(p: Record<string, string | number | undefined>): string {
  return p.card === undefined || p.card === null ? '' : String(p.card);
}
