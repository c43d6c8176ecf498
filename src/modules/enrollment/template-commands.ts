/**
 * The commands that carry a person to a terminal or off it: their user record, one template, and
 * the supersede keys that let a newer write or a delete take an unsent one's place.
 */
import type { NewCommand } from '../commands';

/** An enrollee as far as terminals are concerned: their PIN and the name shown on the terminal. */
export interface TerminalUser {
  id: string;
  devicePin: string;
  displayName: string;
  /** The card number the terminal should know them by, if any. */
  card?: string | null;
}

/** A template as commands know it: its kind, body part and slot. */
export interface TemplateRef {
  id: string;
  type: string;
  fingerIndex: number;
  slot: number;
  version: number;
}

/** Every finger index a terminal knows (0 left little finger … 9 right little finger). */
export const FINGER_INDEXES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** The user record of an enrollee for one terminal; `enrollee` lets the terminal's answer link its user to them. */
export function userCommand(deviceId: string, person: TerminalUser): NewCommand {
  return {
    deviceId,
    kind: 'add_user',
    payload: { pin: person.devicePin, name: person.displayName, enrollee: person.id, ...(person.card ? { card: person.card } : {}) },
    supersedeKey: `user:${person.devicePin}`,
  };
}

/** One template for one terminal; `enrollee` lets the renderer check the terminal's user with that PIN is them. */
export function templateCommand(deviceId: string, enrollee: { id: string; devicePin: string }, t: TemplateRef): NewCommand {
  const pin = enrollee.devicePin;
  return {
    deviceId,
    kind: 'update_template',
    payload: { pin, fingerIndex: t.fingerIndex, type: t.type, slot: t.slot, templateId: t.id, templateVersion: t.version, enrollee: enrollee.id },
    supersedeKey: templateKey(pin, t),
  };
}

/**
 * The supersede key of a template command: a newer write or a delete of the same template takes
 * an unsent one's place. Fingerprints keep the first release's keys.
 */
export function templateKey(pin: string, t: { type: string; fingerIndex: number; slot: number }): string {
  return t.type === 'fingerprint' ? `tpl:${pin}:${t.fingerIndex}` : `tpl:${pin}:${t.type}:${t.fingerIndex}:${t.slot}`;
}

/** A delete removes a whole body part: for a fingerprint, the key of its only template. */
export function deleteKey(pin: string, t: { type: string; fingerIndex: number }): string {
  return t.type === 'fingerprint' ? `tpl:${pin}:${t.fingerIndex}` : `tpl:${pin}:${t.type}:${t.fingerIndex}`;
}
