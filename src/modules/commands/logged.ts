/**
 * How the event log keeps `device_command_finished` (StoredForm, events/service.ts): the
 * command's payload as references only. A user record's payload carries the person's name and
 * card number, an operator's raw command any text (a card, a password); none of it belongs in a
 * log that every viewer of `events/` and every webhook receiver reads, and a card number opens
 * doors. What is kept says which user, part or template the command was about, and the facts
 * of the service's own bookkeeping (why a query or delete was sent, a re-upload's range).
 * Reactors and in-process listeners still get the payload as queued. Events logged before this
 * form keep what they were logged with.
 */
import type { StoredForm } from '../events';
import type { CommandEvents } from './events';

/** The payload fields the log keeps: references and bookkeeping, never a name, card, password or raw text. */
const LOGGED_PAYLOAD_FIELDS = [
  'pin',
  'enrollee',
  'type',
  'fingerIndex',
  'slot',
  'templateId',
  'templateVersion',
  'rejected',
  'consentMissing',
  'putBack',
  'resolves',
  'leave',
  'resync',
  'recovery',
  'startTime',
  'endTime',
] as const;

function loggedPayload(payload: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const field of LOGGED_PAYLOAD_FIELDS) if (field in payload) kept[field] = payload[field];
  return kept;
}

export const finishedForm: StoredForm<CommandEvents['device_command_finished']> = {
  store: (data): CommandEvents['device_command_finished'] => ({ ...data, command: { ...data.command, payload: loggedPayload(data.command.payload) } }),
  show: async (_q, stored) => [...stored],
};
