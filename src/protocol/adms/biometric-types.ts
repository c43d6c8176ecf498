/**
 * The biometric types of BIODATA (§4.3 `Type`) this service keeps, and what a terminal says it
 * can take of each (§2.2 parameters, §6.1 versions).
 */
import type { Dict } from './fields';

/** The kinds kept, by name (the API's `type`). */
export const BIOMETRIC_TYPES = ['fingerprint', 'face', 'visible_face', 'palm', 'finger_vein'] as const;
export type BiometricType = (typeof BIOMETRIC_TYPES)[number];

/** BIODATA `Type` of each kind: 1 fingerprint, 2 near-infrared face, 7 finger vein, 8 palm, 9 visible-light face. */
export const BIODATA_TYPE: Readonly<Record<BiometricType, number>> = { fingerprint: 1, face: 2, finger_vein: 7, palm: 8, visible_face: 9 };

/** The kind of a BIODATA `Type`, or null for one this service does not keep (voice, iris, retina…). */
export function biometricTypeOf(biodataType: number): BiometricType | null {
  for (const type of BIOMETRIC_TYPES) if (BIODATA_TYPE[type] === biodataType) return type;
  return null;
}

/** What a terminal can take of one kind: whether it has it at all (null: it did not say) and its algorithm version. */
export interface BiometricCapability {
  supported: boolean | null;
  version: string | null;
}

/** The parameter that switches each kind on, and the one that carries its algorithm version (§2.2, §6.1). */
const LEGACY_KEYS: Readonly<Record<BiometricType, { on: string; version: string }>> = {
  fingerprint: { on: 'FingerFunOn', version: 'FPVersion' },
  face: { on: 'FaceFunOn', version: 'FaceVersion' },
  visible_face: { on: 'FaceFunOn', version: 'FaceVersion' },
  palm: { on: 'PvFunOn', version: 'PvVersion' },
  finger_vein: { on: 'FvFunOn', version: 'FvVersion' },
};

/**
 * A terminal's capability for one kind, from the parameters it reported (options, INFO). The
 * colon lists win (`MultiBioDataSupport`: a 0/1 per BIODATA type; `MultiBioVersion`: a version
 * per type); without them the older switches say it (`FingerFunOn`, `FaceFunOn`, `PvFunOn`,
 * `FvFunOn`, with `VisilightFun` telling a visible-light face from a near-infrared one) and the
 * per-kind version keys (`FaceVersion`, `PvVersion`, `FvVersion`, `FPVersion`). A version is not a
 * declaration: a terminal with a kind switched off still reports its algorithm.
 */
export function biometricCapability(parameters: Dict | null, type: BiometricType): BiometricCapability {
  const p = parameters ?? {};
  const at = (list: string | undefined, i: number): string | null => {
    const entry = list?.trim() ? list.split(':')[i]?.trim() : undefined;
    return entry === undefined || entry === '' ? null : entry;
  };
  const index = BIODATA_TYPE[type];
  const bit = at(p.MultiBioDataSupport, index);
  const listed = at(p.MultiBioVersion, index);
  const keys = LEGACY_KEYS[type];
  let supported: boolean | null = bit === null ? null : bit === '1';
  // Fingerprints also travel as FINGERTMP: a 0 at type 1 says the terminal takes none as
  // BIODATA, not that it has no fingerprint reader; its `FingerFunOn` says that.
  if (type === 'fingerprint' && supported === false) supported = null;
  if (supported === null) {
    const on = p[keys.on]?.trim();
    const visible = p.VisilightFun?.trim() === '1';
    if (on === '1') supported = type === 'visible_face' ? visible : type === 'face' ? !visible : true;
    else if (on === '0') supported = false;
  }
  const version = listed !== null && listed !== '0' ? listed : p[keys.version]?.trim() || null;
  return { supported, version };
}

/**
 * `MultiBioDataSupport` of the option block: a 0/1 per BIODATA type 0–9 telling the terminal
 * which kinds the server takes (unknown names are ignored).
 */
export function multiBioDataSupport(kept: readonly string[]): string {
  const bits = Array.from({ length: 10 }, () => '0');
  for (const type of BIOMETRIC_TYPES) if (kept.includes(type)) bits[BIODATA_TYPE[type]] = '1';
  return bits.join(':');
}
