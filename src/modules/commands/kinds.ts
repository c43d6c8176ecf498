/** What a device command is: its kinds, the rows and answers, and the rules every kind follows. */
import type { CommandKind, deviceCommands, OperatorKind } from './tables';

export type { CommandKind, OperatorKind };

/** A command as the poll rendered it: marked only if it still reads the same. */
export interface MarkCandidate {
  id: number;
  kind: CommandKind;
  /** The payload's stored JSON text, as read before rendering. */
  payloadText: string;
}

/** The supersede key of the query of a terminal's users: one at a time per terminal (fleet/resync.ts). */
export const QUERY_USERS_KEY = 'query-users';

/**
 * A row of `fpa_device_commands` that keeps its terminal's inventory outstanding: the query of
 * its users sent on its approval (or first contact), queued or sent and not answered yet. Until
 * it is answered, any user the terminal reports may be one it held before the service knew it
 * (enrollment/walk-up.ts), and its commands about a PIN wait (polls.ts `DUE_SQL`). One text for
 * the look-ups (lookups.ts) and the due read, so the two cannot drift; it names the table, not
 * an alias, and is found by the supersede index (device, key).
 */
export const INVENTORY_QUERY_OPEN = `fpa_device_commands.supersede_key = '${QUERY_USERS_KEY}'
  and fpa_device_commands.status in ('pending', 'sent')
  and json_extract(fpa_device_commands.payload, '$.resync') = 'approved'`;

/** `POST devices/{sn}/commands/`, as validated by the model. */
export interface OperatorCommand {
  kind: OperatorKind;
  /** clear_logs, clear_data: the terminal's serial number. */
  confirm?: string;
  /** reupload_logs: local dates of the terminal, inclusive. */
  from?: string;
  to?: string;
  /** raw: the command text. */
  command?: string;
}

export type CommandRow = typeof deviceCommands.$inferSelect;

/** A terminal's answer to a command (`devicecmd`), matched by command id. */
export interface CommandAnswer {
  id: string;
  returnCode: number | null;
  /** The command word the terminal echoes (`DATA`, `ENROLL_FP`…: its own words, not the kind). */
  cmd: string;
  fields: Record<string, string>;
}

/** A pending command due now, as a poll reads it: rendered by the terminals module. */
export interface DueCommand extends MarkCandidate {
  payload: Record<string, unknown>;
}

export interface NewCommand {
  deviceId: string;
  kind: CommandKind;
  payload: Record<string, unknown>;
  /** Unsent commands of the same device with this key are superseded by this one. */
  supersedeKey?: string | null;
  sessionId?: string | null;
  expiresAt?: number;
}

export type CommandOutcome = 'succeeded' | 'failed' | 'expired' | 'cancelled';

/**
 * Return codes that will not get better by sending the same command again soon. A full terminal
 * (−1001) is among them: the reconciliation job (fleet) sends its failed templates again later.
 */
export const PERMANENT_FAILURES = new Set([-1, -9, -10, -11, -12, -30, -1001, -1002, -1004, -1006]);

/**
 * Security PUSH 3.x answers from its own range ([SEC] appendix 1, "[*,-600] is exclusive to push
 * communication"): every −6xx code says the terminal cannot take the command as written (−629 no
 * such table, −620 bad format, −621 unknown field, −631 bad base64 length…), and −708 (command not
 * supported) and −801 (bad command format) say the same. Sending it again gives the same answer.
 * The other −7xx codes (−722 upload to the server failed, −725/−730 no answer from the server,
 * −731 server receive error) are about the line, not the command, and stay retried.
 */
export const PUSH3_PERMANENT_FAILURES = new Set([-708, -801]);

/** Whether a return code ends a command for good (see PERMANENT_FAILURES and PUSH3_PERMANENT_FAILURES). */
export function isPermanentFailure(code: number | null): boolean {
  if (code === null) return false;
  return PERMANENT_FAILURES.has(code) || PUSH3_PERMANENT_FAILURES.has(code) || (code <= -600 && code > -700);
}
export const INTERACTIVE_KINDS: ReadonlySet<CommandKind> = new Set<CommandKind>(['ENROLL_FP', 'ENROLL_BIO']);
export const DELETE_KINDS: ReadonlySet<CommandKind> = new Set<CommandKind>(['delete_user', 'delete_template']);
/**
 * Commands about whoever the terminal holds under a PIN: a user record (name, card), a template,
 * an enrollment, a fetch of templates, a delete. They wait while the terminal has not said who
 * it holds (its inventory, polls.ts): under that PIN may be its own user, someone else.
 */
export const PIN_KINDS: ReadonlySet<CommandKind> = new Set<CommandKind>([
  'add_user',
  'update_template',
  'delete_user',
  'delete_template',
  'ENROLL_FP',
  'ENROLL_BIO',
  'query_templates',
]);
/**
 * Commands that write under a PIN (a user record, a template, an enrolled part). Each waits on
 * its terminal while a delete queued before it there that would remove what it writes is
 * unfinished (polls.ts `DUE_SQL`): a refused delete retried after the write would take it away.
 */
export const PIN_WRITE_KINDS: ReadonlySet<CommandKind> = new Set<CommandKind>(['add_user', 'update_template', 'ENROLL_FP', 'ENROLL_BIO']);
/**
 * Kinds a terminal may carry out without answering, and that do it again if sent again (not
 * idempotent, docs/protocol/adms.md §5.1): a terminal restarting on `REBOOT` posts no devicecmd.
 * The retry-commands job never resends them; a handshake after one was sent closes it
 * (CommandService.terminalStarted), and without one by the deadline it fails (NO_RESULT).
 */
export const NOT_RESENT_KINDS: ReadonlySet<CommandKind> = new Set<CommandKind>(['reboot']);
/** Why a `reboot` sent to a terminal succeeded without an answer: the terminal handshook again. */
export const RESTARTED = 'the terminal restarted: it handshook again after the reboot was sent';
/** Why a command sent again and again without a result failed (the retry-commands job), as its result says. */
export const NO_RESULT = 'no result from the terminal';
/** Return=-10, "the user is not on the terminal": for a delete, nothing is left to delete. */
export const USER_NOT_ON_DEVICE = -10;
/** Expiry of deletes: never (the last millisecond of year 9999, still a safe integer everywhere). */
export const NEVER_EXPIRES = 253_402_300_799_000;

/**
 * Whether a command went to the terminal at some time: sent (sent_at), or answered or put back
 * for a resend after it went out (an operator's retry keeps sent_at; attempts count the sends).
 */
export function wentOut(row: { sentAt: number | null; attempts: number }): boolean {
  return row.sentAt !== null || row.attempts > 0;
}
