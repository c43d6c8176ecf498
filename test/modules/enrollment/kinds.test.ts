import { describe, expect, test } from 'bun:test';
import { checkKind, maxBytes, terminalTakes } from '../../../src/modules/enrollment/kinds';
import { FpaError } from '../../../src/platform/errors';

const settings = {
  BIOMETRIC_TYPES: ['fingerprint', 'face', 'visible_face', 'palm', 'finger_vein'],
  ALLOWED_FINGER_INDEXES: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  TEMPLATE_MAX_BYTES: 65536,
  BIOMETRIC_MAX_BYTES: { face: 32768, palm: 20000 },
};

function refusal(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof FpaError ? error.code : 'other';
  }
}

describe('the rules of each kind', () => {
  test('body parts and slots: a face is 0, palms are 0 and 1 in up to ten parts, fingers as allowed', () => {
    expect(refusal(() => checkKind(settings, 'visible_face', 0, 0))).toBeNull();
    expect(refusal(() => checkKind(settings, 'visible_face', 1, 0))).toBe('biometric_not_allowed');
    expect(refusal(() => checkKind(settings, 'palm', 1, 4))).toBeNull();
    expect(refusal(() => checkKind(settings, 'palm', 2, 0))).toBe('biometric_not_allowed');
    expect(refusal(() => checkKind(settings, 'palm', 0, 10))).toBe('biometric_not_allowed');
    expect(refusal(() => checkKind(settings, 'fingerprint', 3, 1))).toBe('biometric_not_allowed');
    expect(refusal(() => checkKind({ ...settings, ALLOWED_FINGER_INDEXES: [1, 2] }, 'fingerprint', 3, 0))).toBe('finger_not_allowed');
    expect(refusal(() => checkKind({ ...settings, BIOMETRIC_TYPES: ['fingerprint'] }, 'palm', 0, 0))).toBe('biometric_not_allowed');
  });

  test('sizes: fingerprints keep TEMPLATE_MAX_BYTES, the others their own', () => {
    expect(maxBytes(settings, 'fingerprint')).toBe(65536);
    expect(maxBytes(settings, 'palm')).toBe(20000);
    expect(maxBytes(settings, 'finger_vein')).toBe(65536);
  });

  test('a terminal takes a kind only when it declared it, and only of its major version', () => {
    const speedface = {
      algorithmVersion: '10',
      parameters: { MultiBioDataSupport: '0:1:0:0:0:0:0:0:1:1', FaceVersion: '58', PvVersion: '12', VisilightFun: '1' },
    };
    expect(terminalTakes({}, speedface, 'visible_face', '58.10')).toEqual({ ok: true });
    expect(terminalTakes({}, speedface, 'visible_face', '57.0').ok).toBe(false);
    expect(terminalTakes({}, speedface, 'face', '7.0').ok).toBe(false);
    expect(terminalTakes({}, { algorithmVersion: null, parameters: null }, 'palm', '12.0').ok).toBe(false);
    // Fingerprints as before: a terminal that never reported its algorithm gets them.
    expect(terminalTakes({}, { algorithmVersion: null, parameters: null }, 'fingerprint', '10')).toEqual({ ok: true });
    expect(terminalTakes({}, speedface, 'fingerprint', '9').ok).toBe(false);
    expect(terminalTakes({ '10': ['9'] }, speedface, 'fingerprint', '9')).toEqual({ ok: true });
  });

  test('fingerprints: none to a terminal that switched its finger reader off, whatever algorithm it reports', () => {
    const cardOnly = { algorithmVersion: null, parameters: { FingerFunOn: '0', FaceFunOn: '0', MultiBioDataSupport: '0:0:0:0:0:0:0:0:0:0' } };
    expect(terminalTakes({}, cardOnly, 'fingerprint', '10')).toEqual({ ok: false, detail: 'the terminal has not declared fingerprint support' });
    expect(terminalTakes({}, { algorithmVersion: '10', parameters: { FingerFunOn: '0', FPVersion: '10' } }, 'fingerprint', '10').ok).toBe(false);
    // A 0 at type 1 only says it takes no fingerprint BIODATA: FINGERTMP still reaches it.
    expect(
      terminalTakes({}, { algorithmVersion: '10', parameters: { FingerFunOn: '1', MultiBioDataSupport: '0:0:0:0:0:0:0:0:0:0' } }, 'fingerprint', '10'),
    ).toEqual({ ok: true });
    expect(terminalTakes({}, { algorithmVersion: null, parameters: { MultiBioDataSupport: '0:0:0:0:0:0:0:0:0:0' } }, 'fingerprint', '10')).toEqual({
      ok: true,
    });
  });
});
