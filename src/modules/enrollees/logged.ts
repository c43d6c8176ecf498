/**
 * How the event log keeps the enrollees' events (StoredForm, events/service.ts): never a card
 * number, which opens doors and would reach every viewer of `events/` and every webhook
 * receiver; only whether the person has a card, and of a card change whether one was set before
 * and after (as `enrollee_card_changed` names no card). Of a deleted person, who they were (id,
 * employee key), not their name, PIN or card. Reactors and in-process listeners still get the
 * data as recorded. Events logged before this form keep what they were logged with.
 */
import type { StoredForm } from '../events';
import type { EnrolleeChanges, EnrolleeEvents, EnrolleeRef, LoggedEnrolleeChanges, LoggedEnrolleeEvents, LoggedEnrolleeRef } from './events';

function loggedRef(enrollee: EnrolleeRef): LoggedEnrolleeRef {
  return { ...enrollee, card: enrollee.card !== null };
}

function loggedChanges({ card, ...changes }: EnrolleeChanges): LoggedEnrolleeChanges {
  return card ? { ...changes, card: { from: card.from !== null, to: card.to !== null } } : changes;
}

/** The stored data is what readers get. */
const asStored = async (_q: unknown, stored: readonly Record<string, unknown>[]): Promise<object[]> => [...stored];

export const createdForm: StoredForm<EnrolleeEvents['enrollee_created']> = {
  store: ({ enrollee, areas, by }): LoggedEnrolleeEvents['enrollee_created'] => ({ enrollee: loggedRef(enrollee), areas, by }),
  show: asStored,
};

export const updatedForm: StoredForm<EnrolleeEvents['enrollee_updated']> = {
  store: ({ enrollee, changes, by }): LoggedEnrolleeEvents['enrollee_updated'] => ({ enrollee: loggedRef(enrollee), changes: loggedChanges(changes), by }),
  show: asStored,
};

export const deletedForm: StoredForm<EnrolleeEvents['enrollee_deleted']> = {
  store: ({ enrollee, by }): LoggedEnrolleeEvents['enrollee_deleted'] => ({ enrollee: { id: enrollee.id, employee: enrollee.employee }, by }),
  show: asStored,
};
