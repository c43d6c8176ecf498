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
    // The payload holds references (PIN, finger), never template bytes.
    payload: c.payload,
    cancel_refused: cancelRefused,
  };
}
