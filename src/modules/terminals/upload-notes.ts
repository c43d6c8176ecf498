/**
 * What the uploads of people's data (uploads.ts) leave in the device log once read: operation
 * logs, template notes, the kinds acknowledged without being kept, and the biometrics a terminal
 * holds that this service does not keep (noted on the terminal's user).
 */
import { type GenericOperlogRecord, keyValueFields, type OplogRecord, parseIntStrict } from '../../protocol/adms';
import type { HeldBiometric } from '../enrollment';

/** One device log entry to write. */
export interface Note {
  kind: string;
  message: string;
  details: Record<string, unknown>;
}

/** What one upload of people's data leaves to note once read. */
export interface Tally {
  notes: Note[];
  /** BIODATA types not kept, with their counts. */
  ignoredTypes: Map<number, number>;
  unkept: HeldBiometric[];
}

export const newTally = (): Tally => ({ notes: [], ignoredTypes: new Map(), unkept: [] });

/**
 * The biometric kinds of OPERLOG records this service acknowledges without keeping, by the names
 * the users list shows. A user photo is a face image too: it goes with the user as a face photo does.
 */
const UNKEPT_KINDS: Partial<Record<GenericOperlogRecord['kind'], string>> = {
  FACE: 'face',
  FVEIN: 'finger_vein',
  BIOPHOTO: 'face_photo',
  USERPIC: 'user_photo',
};

/** 3.x photo tables, by the names their 2.x twins have on the users list. */
export const PHOTO_TABLES: Partial<Record<string, string>> = { biophoto: 'face_photo', userpic: 'user_photo' };

export function heldBiometricOf(r: GenericOperlogRecord): HeldBiometric | null {
  const type = UNKEPT_KINDS[r.kind];
  if (!type || !r.pin) return null;
  return { pin: r.pin, type, index: parseIntStrict(keyValueFields(Object.entries(r.fields)).get('FID')) ?? 0 };
}

/** A 3.x `biophoto` or `userpic` record's person, as a photo of this type held (none without a PIN). */
export function photoOf(fields: Record<string, string>, type: string): HeldBiometric[] {
  const pin = keyValueFields(Object.entries(fields)).get('PIN')?.trim();
  return pin ? [{ pin, type, index: 0 }] : [];
}

export function oplogNote(r: OplogRecord): Note {
  return {
    kind: 'operation',
    message: `operation ${r.opType} at ${r.localTime} by ${r.operator === '0' || r.operator === '' ? 'nobody' : `admin ${r.operator}`}`,
    details: { op: r.opType, operator: r.operator, local_time: r.localTime, objects: r.objects },
  };
}

export function sizeNote(pin: string, finger: number, declared: number | null, actual: number): Note {
  return {
    kind: 'size_mismatch',
    message: `FP template of PIN ${pin}, finger ${finger}: Size=${declared ?? '?'} but ${actual} base64 characters`,
    details: { pin, finger_index: finger, declared, actual },
  };
}

export function invalidNote(origin: string, pin: string, finger: number): Note {
  return {
    kind: 'template_invalid',
    message: `${origin} template of PIN ${pin}, finger ${finger} is marked invalid (Valid=0) by the terminal and was not stored`,
    details: { pin, finger_index: finger, origin },
  };
}

export function ignoredNote(types: Map<number, number>): Note {
  return {
    kind: 'biodata_ignored',
    message: `BIODATA of types ${[...types.keys()].join(', ')} acknowledged and ignored (not a kind BIOMETRIC_TYPES keeps)`,
    details: { types: Object.fromEntries(types) },
  };
}
