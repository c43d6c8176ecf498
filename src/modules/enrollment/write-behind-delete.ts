/**
 * A template accepted from a terminal (walk-up, remote enrollment) is `present` there. But a
 * delete of that part, or of that user, that already went out to that terminal and is still
 * unfinished (its answer lost, waiting to be resent: a withdrawal's, a deactivation's) may yet be
 * carried out there after the upload, and remove what the service shows as present. The write of
 * the template to that terminal is then queued again: it goes behind the delete (a write under a
 * PIN waits for an earlier unfinished delete, commands/polls.ts DUE_SQL), and the sync record
 * shows it `pending` there until the terminal confirms it, so the terminal ends up holding what
 * the service shows (`keepAccepted`). A delete not sent yet needs none of this: it is dropped (a refusal's) or
 * goes first and the write after it, as any fan-out's.
 */
import type { WriteContext } from '../../platform/db/client';
import { type CommandService, sentDeleteUnfinished, supersedeRefusalDelete } from '../commands';
import { deleteKey, type TemplateRef, templateCommand, userCommandKey } from './fan-out';
import { linkSyncToCommands, upsertSync } from './template-sync';

/** A template just accepted from a terminal: where, whose, under which PIN there, and when. */
export interface Accepted {
  deviceId: string;
  enrolleeId: string;
  /** The PIN of the enrollee's user on that terminal. */
  pin: string;
  template: TemplateRef;
  now: number;
}

export async function keepAccepted(w: WriteContext, commands: CommandService, accepted: Accepted): Promise<void> {
  const { deviceId, pin, template, now } = accepted;
  // A delete queued when an earlier upload of this part was refused (no consent yet, not a
  // station yet): the terminal's template is the enrollee's now, so it stays.
  await supersedeRefusalDelete(w.tx, deviceId, deleteKey(pin, template), now);
  if (!(await sentDeleteUnfinished(w.tx, deviceId, [deleteKey(pin, template), userCommandKey(pin)]))) return;
  const write = templateCommand(deviceId, { id: accepted.enrolleeId, devicePin: pin }, template);
  await upsertSync(w.tx, [{ templateId: template.id, deviceId, status: 'pending', templateVersion: template.version, updatedAt: now }]);
  const ids = await commands.enqueue(w, [write]);
  await linkSyncToCommands(w.tx, template.id, [write], ids);
}
