import { describe, expect, test } from 'bun:test';
import { SETTINGS_SCHEMA } from '../../src/platform/config/settings';
import { BIODATA_TYPE, BIOMETRIC_TYPES, biometricCapability, biometricTypeOf, multiBioDataSupport } from '../../src/protocol/adms';

/** Parameters of a SpeedFace-V5L (docs/protocol/adms.md §2.2, abridged). */
const V5L = {
  FingerFunOn: '1',
  FPVersion: '10',
  FaceFunOn: '1',
  FaceVersion: '58',
  FvFunOn: '0',
  FvVersion: '3',
  PvFunOn: '1',
  PvVersion: '12',
  VisilightFun: '1',
  MultiBioDataSupport: '0:1:0:0:0:0:0:0:1:1',
};

describe('biometric kinds', () => {
  test('BIODATA types map both ways; types the service does not keep map to null', () => {
    for (const type of BIOMETRIC_TYPES) expect(biometricTypeOf(BIODATA_TYPE[type])).toBe(type);
    for (const other of [0, 3, 4, 5, 6, 10]) expect(biometricTypeOf(other)).toBeNull();
  });

  test('the settings know every kind the protocol module does', () => {
    expect([...SETTINGS_SCHEMA.BIOMETRIC_TYPES.default].sort()).toEqual([...BIOMETRIC_TYPES].sort());
  });

  test('a SpeedFace-V5L takes fingerprints, palms and visible-light faces, not near-infrared faces or veins', () => {
    expect(biometricCapability(V5L, 'visible_face')).toEqual({ supported: true, version: '58' });
    expect(biometricCapability(V5L, 'palm')).toEqual({ supported: true, version: '12' });
    expect(biometricCapability(V5L, 'fingerprint')).toEqual({ supported: true, version: '10' });
    expect(biometricCapability(V5L, 'face').supported).toBe(false);
    expect(biometricCapability(V5L, 'finger_vein').supported).toBe(false);
  });

  test('without MultiBioDataSupport the switches say it; MultiBioVersion wins over the per-kind keys', () => {
    const mb360 = { FaceFunOn: '1', FaceVersion: '7', PvFunOn: '0' };
    expect(biometricCapability(mb360, 'face')).toEqual({ supported: true, version: '7' });
    expect(biometricCapability(mb360, 'visible_face').supported).toBe(false);
    expect(biometricCapability(mb360, 'palm').supported).toBe(false);
    expect(biometricCapability({ ...V5L, MultiBioVersion: '0:10.0:0:0:0:0:0:0:12.1:58.10' }, 'visible_face').version).toBe('58.10');
    expect(biometricCapability(null, 'palm')).toEqual({ supported: null, version: null });
  });

  test('fingerprints: FingerFunOn says whether there is a reader; a 0 in MultiBioDataSupport only that none travel as BIODATA', () => {
    expect(biometricCapability({ FingerFunOn: '0', FPVersion: '10' }, 'fingerprint')).toEqual({ supported: false, version: '10' });
    expect(biometricCapability({ FingerFunOn: '1', MultiBioDataSupport: '0:0:0:0:0:0:0:0:0:0' }, 'fingerprint').supported).toBe(true);
    expect(biometricCapability({ MultiBioDataSupport: '0:0:0:0:0:0:0:0:0:0' }, 'fingerprint').supported).toBeNull();
    expect(biometricCapability({ FingerFunOn: '0', MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:0' }, 'fingerprint').supported).toBe(true);
  });

  test('the option block offers exactly the kinds the server keeps, by BIODATA type', () => {
    expect(multiBioDataSupport(['fingerprint'])).toBe('0:1:0:0:0:0:0:0:0:0');
    expect(multiBioDataSupport(['fingerprint', 'palm', 'visible_face'])).toBe('0:1:0:0:0:0:0:0:1:1');
    expect(multiBioDataSupport([])).toBe('0:0:0:0:0:0:0:0:0:0');
    expect(multiBioDataSupport(['retina'])).toBe('0:0:0:0:0:0:0:0:0:0');
  });
});
