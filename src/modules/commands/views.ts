/** A device command as the API shows it. */
import type { Static } from '@sinclair/typebox';
import type { CommandRow } from './kinds';
import type { DeviceCommand } from './model';

export type CommandView = Static<typeof DeviceCommand>;

/** `cancelRefused`: why an operator may not cancel it (CancelRefusal), when the caller asked. */
export function commandView(c: CommandRow, cancelRefused: string | null = null): CommandView {
  const iso = (ms: number | null) => (ms ? new Date(ms).toISOString() : null);
  return {
    id: c.id,
    kind: c.kind,
    status: c.status,
    attempts: c.attempts,
    created_at: new Date(c.createdAt).toISOString(),
    sent_at: iso(c.sentAt),
    finished_at: iso(c.completedAt),
    // The name of earlier releases, kept for their clients: the same instant.
    completed_at: iso(c.completedAt),
    expires_at: new Date(c.expiresAt).toISOString(),
    return_code: c.returnCode,
    result: c.result,
    payload: shownPayload(c),
    cancel_refused: cancelRefused,
  };
}

/**
 * The payload as the API shows it: references (PIN, finger), never template bytes, and never a
 * card number (it opens doors): a user record says only whether it carries a card (`card`: true
 * or false), as the event log does (logged.ts).
 */
function shownPayload(c: CommandRow): Record<string, unknown> {
  if (c.kind !== 'add_user' && !('card' in c.payload)) return c.payload;
  const { card, ...rest } = c.payload;
  return { ...rest, card: typeof card === 'string' ? card !== '' : card === true };
}
