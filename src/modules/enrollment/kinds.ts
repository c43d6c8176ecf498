/**
 * The biometric kinds on the same rails as fingerprints: which body parts and how many templates
 * each has, how large one may be, and whether a terminal can take one. Fingerprints keep their
 * own settings (ALLOWED_FINGER_INDEXES, FINGERS_*, TEMPLATE_MAX_BYTES, ALGORITHM_COMPATIBILITY_MAP).
 */
import type { Settings } from '../../platform/config/settings';
import { FpaError } from '../../platform/errors';
import { BIOMETRIC_TYPES, type BiometricType, biometricCapability } from '../../protocol/adms';
import type { DeviceRow } from '../devices';
import { deviceAccepts } from './rules';

const TEN = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** The body parts (BIODATA `No`) of each kind. */
const PARTS: Readonly<Record<BiometricType, readonly number[]>> = { fingerprint: TEN, face: [0], visible_face: [0], palm: [0, 1], finger_vein: TEN };

/** Templates per body part at most (BIODATA `Index` 0…n−1): a near-infrared face comes as up to 12, a palm as 5. */
const SLOTS: Readonly<Record<BiometricType, number>> = { fingerprint: 1, face: 12, visible_face: 4, palm: 10, finger_vein: 4 };

export function isBiometricType(value: unknown): value is BiometricType {
  return typeof value === 'string' && (BIOMETRIC_TYPES as readonly string[]).includes(value);
}

/** Refuses a kind the settings do not keep, a body part the kind does not have, or a slot past its set. */
export function checkKind(settings: Pick<Settings, 'BIOMETRIC_TYPES' | 'ALLOWED_FINGER_INDEXES'>, type: BiometricType, no: number, slot: number): void {
  if (!settings.BIOMETRIC_TYPES.includes(type)) {
    throw new FpaError('biometric_not_allowed', `${type} templates are not kept (BIOMETRIC_TYPES)`, { type, allowed: settings.BIOMETRIC_TYPES });
  }
  const parts = type === 'fingerprint' ? settings.ALLOWED_FINGER_INDEXES : PARTS[type];
  if (!Number.isInteger(no) || !parts.includes(no)) {
    throw new FpaError(type === 'fingerprint' ? 'finger_not_allowed' : 'biometric_not_allowed', `${type} ${no} may not be enrolled`, {
      type,
      index: no,
      allowed: parts,
      ...(type === 'fingerprint' ? { finger_index: no } : {}),
    });
  }
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS[type]) {
    throw new FpaError('biometric_not_allowed', `${type} templates come in at most ${SLOTS[type]} parts`, { type, part: slot, max: SLOTS[type] });
  }
}

/** The largest template of a kind, in bytes. */
export function maxBytes(settings: Pick<Settings, 'TEMPLATE_MAX_BYTES' | 'BIOMETRIC_MAX_BYTES'>, type: BiometricType): number {
  if (type === 'fingerprint') return settings.TEMPLATE_MAX_BYTES;
  return settings.BIOMETRIC_MAX_BYTES[type] ?? settings.TEMPLATE_MAX_BYTES;
}

/**
 * Whether a terminal can take a template of this kind and algorithm. Fingerprints go to every
 * terminal but one that said it has no fingerprint reader (`FingerFunOn=0`, a card-only or
 * face-only terminal), whatever algorithm it reports; older firmware that says nothing at all
 * still gets them (ALGORITHM_COMPATIBILITY_MAP, rules.ts). Any other kind only where the terminal
 * declared it (`MultiBioDataSupport`, or the kind's switch) and, when it reported a version for
 * it, of the same major version (face 58 is not face 7).
 */
export function terminalTakes(
  compatibility: Record<string, string[]>,
  device: Pick<DeviceRow, 'algorithmVersion' | 'parameters'>,
  type: BiometricType,
  algorithmVersion: string,
): { ok: true } | { ok: false; detail: string } {
  const capability = biometricCapability(device.parameters, type);
  if (!readsKind(device, type)) return { ok: false, detail: `the terminal has not declared ${type} support` };
  if (type === 'fingerprint') {
    return deviceAccepts(compatibility, device.algorithmVersion, algorithmVersion)
      ? { ok: true }
      : { ok: false, detail: `device algorithm ${device.algorithmVersion} does not accept ${algorithmVersion}` };
  }
  if (capability.version !== null && major(capability.version) !== major(algorithmVersion)) {
    return { ok: false, detail: `the terminal runs ${type} algorithm ${capability.version}, the template is ${algorithmVersion}` };
  }
  return { ok: true };
}

/**
 * Whether a terminal reads a kind at all, whatever its algorithm (terminalTakes): fingerprints
 * unless it said it has no reader (`FingerFunOn=0`), any other kind only where it declared it.
 */
export function readsKind(device: Pick<DeviceRow, 'parameters'>, type: BiometricType): boolean {
  const { supported } = biometricCapability(device.parameters, type);
  return type === 'fingerprint' ? supported !== false : supported === true;
}

/** The version of a kind's algorithm a terminal runs, as it reported it (null: it did not say). */
export function kindAlgorithmOf(device: Pick<DeviceRow, 'algorithmVersion' | 'parameters'>, type: BiometricType): string | null {
  return type === 'fingerprint' ? device.algorithmVersion : biometricCapability(device.parameters, type).version;
}

function major(version: string): string {
  return version.trim().split('.')[0] ?? '';
}
