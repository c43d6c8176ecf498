/**
 * Device commands in the terminal's own words. A command is stored as a kind and references
 * (PIN, finger, template id and version) and rendered only when a poll sends it, so template
 * bytes never sit in the command table; the batch is marked `sent` before the terminal gets it.
 */
import { TemplateDecryptError } from '../../platform/crypto/template-cipher';
import type { Logger } from '../../platform/log';
import {
  biodataCommand,
  checkCommand,
  deleteBiodataCommand,
  deleteFingerCommand,
  deleteUserCommand,
  enrollBioCommand,
  enrollFingerCommand,
  fingerTemplateCommand,
  formatCommandBatch,
  infoCommand,
  rebootCommand,
  userInfoCommand,
} from '../../protocol/adms';
import type { TemplateStore } from '../biometrics';
import type { CommandService, DueCommand } from '../commands';
import { type DeviceRow, takesBiodata } from '../devices';

/** BIODATA `Type` of a fingerprint. */
const FINGERPRINT = 1;

export class CommandRenderer {
  constructor(
    private readonly commands: CommandService,
    private readonly templates: TemplateStore,
    private readonly log: Logger,
    private readonly limits: { maxCommands: number; maxBytes: number },
  ) {}

  /**
   * The next batch for a polling device as `C:<id>:<text>` lines, or null when there is
   * nothing to send. Only what was marked `sent` goes out: a command another instance took, or
   * that was replaced in place, since it was read is left out.
   */
  async takeBatch(device: DeviceRow): Promise<string | null> {
    const due = await this.commands.takeDue(device.id);
    if (!due) return null;
    const rendered: { id: string; text: string }[] = [];
    const candidates = new Map<string, DueCommand>();
    const gone: number[] = [];
    const unreadable: { id: number; reason: string }[] = [];
    for (const command of due) {
      let text: string | null;
      try {
        text = await this.render(device, command);
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
    await this.commands.retire(gone, unreadable);
    const batch = formatCommandBatch(rendered, this.limits);
    if (batch.included.length === 0) return null;
    const sent = await this.commands.markSent(batch.included.map((id) => candidates.get(id)!));
    if (sent.size === 0) return null;
    if (sent.size === batch.included.length) return batch.body;
    return formatCommandBatch(
      rendered.filter((r) => sent.has(Number(r.id))),
      this.limits,
    ).body;
  }

  /** A command's wire text; null when its data is gone (a template replaced or deleted since). */
  async render(device: DeviceRow, command: Pick<DueCommand, 'kind' | 'payload'>): Promise<string | null> {
    const p = command.payload as Record<string, string | number | undefined>;
    const pin = String(p.pin ?? '');
    switch (command.kind) {
      case 'add_user':
        return userInfoCommand({ pin, name: String(p.name ?? '') });
      case 'delete_user':
        return deleteUserCommand(pin);
      case 'update_template': {
        const template = await this.templates.openForDevice(String(p.templateId), Number(p.templateVersion));
        if (!template) return null;
        const base64 = Buffer.from(template.plain).toString('base64');
        template.plain.fill(0);
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
        return fingerTemplateCommand({ pin, fingerIndex: template.fingerIndex, template: base64, valid: template.duress ? 3 : 1 });
      }
      case 'delete_template':
        return takesBiodata(device, device.algorithmVersion)
          ? deleteBiodataCommand(pin, FINGERPRINT, Number(p.fingerIndex))
          : deleteFingerCommand(pin, Number(p.fingerIndex));
      case 'ENROLL_FP':
        return enrollFingerCommand(pin, Number(p.fingerIndex));
      case 'ENROLL_BIO':
        return enrollBioCommand(pin, FINGERPRINT, { no: Number(p.fingerIndex) });
      case 'CHECK':
        return checkCommand();
      case 'INFO':
        return infoCommand();
      case 'REBOOT':
        return rebootCommand();
      default:
        return null;
    }
  }
}
