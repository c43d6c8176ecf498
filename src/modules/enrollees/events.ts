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
 * What the log keeps (and `events/`, streams and webhooks carry) where it differs from what was
 * recorded: of a deleted person, who they were (id, employee key), never their name, PIN or card
 * (service.ts `storeAs`).
 */
export interface LoggedEnrolleeEvents {
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
