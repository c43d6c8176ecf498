import { formatCommandLine } from './commands';

export interface QueuedCommand {
  id: string;
  text: string;
}

export interface BatchLimits {
  /** [DEMO] and [IPY] use 200. */
  maxCommands: number;
  /** Cap on the UTF-8 size of the body. [IPY] uses ~40 KB. */
  maxBytes: number;
}

export interface CommandBatch {
  /** LF after every command, including the last; '' when nothing is queued. */
  body: string;
  /** IDs put into the body, in order; the rest stay queued for the next poll. */
  included: string[];
}

export function isRebootCommand(text: string): boolean {
  return /^REBOOT\b/i.test(text.trim());
}

const encoder = new TextEncoder();

/**
 * Take commands from the front of the queue (order kept) until a cap would be exceeded. A REBOOT
 * ends the batch: the device drops whatever follows it, so those wait for the next poll. The first
 * command always goes out even if it alone exceeds a cap, or the queue would stall forever.
 */
export function formatCommandBatch(cmds: readonly QueuedCommand[], limits: BatchLimits): CommandBatch {
  let body = '';
  let bytes = 0;
  const included: string[] = [];
  for (const cmd of cmds) {
    const line = `${formatCommandLine(cmd.id, cmd.text)}\n`;
    const size = encoder.encode(line).length;
    const fits = included.length < limits.maxCommands && bytes + size <= limits.maxBytes;
    if (included.length > 0 && !fits) break;
    body += line;
    bytes += size;
    included.push(cmd.id);
    if (isRebootCommand(cmd.text)) break;
  }
  return { body, included };
}
