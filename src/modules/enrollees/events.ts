/** What the enrollees module announces. */
import type { DeviceRef } from '../devices';

/** An enrollee in event data. */
export interface EnrolleeRef {
  id: string;
  employee: string;
  device_pin: string;
  display_name: string;
  /** The card number (decimal) the enrollee badges with, if any. */
  card: string | null;
}

export interface EnrolleeChanges {
  display_name?: { from: string; to: string };
  /**
   * Area ids before and after, and the first date judged under the new ones (the local date
   * after the move's): the day of the move keeps the areas it started with.
   */
  areas?: { from: string[]; to: string[]; effective_from?: string };
  status?: { from: string; to: string };
  card?: { from: string | null; to: string | null };
}

/**
 * An enrollee as the log shows them: whether they badge with a card, never its number (a card
 * number opens doors; `events/` is open to viewers, webhooks go to other systems).
 */
export type LoggedEnrolleeRef = Omit<EnrolleeRef, 'card'> & { card: boolean };

/** Changes as the log shows them: a card change says whether a card was set before and after. */
export type LoggedEnrolleeChanges = Omit<EnrolleeChanges, 'card'> & { card?: { from: boolean; to: boolean } };

/**
 * What the log keeps (and `events/`, streams and webhooks carry) where it differs from what was
 * recorded (logged.ts): no card number, only whether there is a card; of a deleted person, who
 * they were (id, employee key), never their name, PIN or card. Reactors and in-process listeners
 * get the data as recorded.
 */
export interface LoggedEnrolleeEvents {
  enrollee_created: { enrollee: LoggedEnrolleeRef; areas: string[]; by: string };
  enrollee_updated: { enrollee: LoggedEnrolleeRef; changes: LoggedEnrolleeChanges; by: string };
  enrollee_deleted: { enrollee: Pick<EnrolleeRef, 'id' | 'employee'>; by: string };
}

export interface EnrolleeEvents {
  enrollee_created: { enrollee: EnrolleeRef; areas: string[]; by: string };
  enrollee_updated: { enrollee: EnrolleeRef; changes: EnrolleeChanges; by: string };
  enrollee_deleted: { enrollee: EnrolleeRef; by: string };
  /**
   * A terminal filled the card of an enrollee who had none, and not because an administrator
   * removed it (badged at its menu); the card number itself is not in the event (it opens doors).
   */
  enrollee_card_changed: { enrollee: string; device: DeviceRef; by: string };
}
