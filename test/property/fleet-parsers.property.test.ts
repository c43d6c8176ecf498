/**
 * Properties of what this release reads from terminals: 3.x `user` records (uploads and query
 * answers), the capabilities a terminal declares for each biometric kind, and wall times read
 * with the offsets a terminal was told. Nothing throws, and what comes out obeys its rules.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { byToldOffset } from '../../src/modules/terminals/ingest';
import { BIOMETRIC_TYPES, biometricCapability, parsePush3Users, pinProblem } from '../../src/protocol/adms';

const text = fc.string({ unit: 'binary', maxLength: 300 });

describe('3.x user records', () => {
  test('any text: no throw; every record has a usable PIN, a whole privilege and a decimal (or empty) card', () => {
    fc.assert(
      fc.property(text, (body) => {
        const { records } = parsePush3Users(body);
        for (const r of records) {
          expect(pinProblem(r.pin)).toBeNull();
          expect(Number.isInteger(r.privilege)).toBe(true);
          expect(r.cardNumber).toMatch(/^\d*$/);
        }
      }),
    );
  });

  test('well-formed records come back as written, good lines beside bad ones', () => {
    const pin = fc.stringMatching(/^[A-Za-z0-9]{1,24}$/);
    fc.assert(
      fc.property(
        fc.array(fc.record({ pin, name: fc.stringMatching(/^[A-Za-z ]{0,20}$/), privilege: fc.constantFrom(0, 2, 6, 14) }), { maxLength: 10 }),
        (users) => {
          const lines = users.flatMap((u) => [`user uid=1\tcardno=\tpin=${u.pin}\tname=${u.name}\tprivilege=${u.privilege}`, 'garbage line']);
          const { records, errors } = parsePush3Users(`${lines.join('\n')}\n`);
          expect(records.map((r) => [r.pin, r.name, r.privilege])).toEqual(users.map((u) => [u.pin, u.name, u.privilege]));
          expect(errors).toHaveLength(users.length);
        },
      ),
    );
  });
});

describe('declared biometric capabilities', () => {
  test('any parameters: no throw; a version is text or null', () => {
    const params = fc.dictionary(
      fc.constantFrom('MultiBioDataSupport', 'MultiBioVersion', 'FaceFunOn', 'FaceVersion', 'PvFunOn', 'PvVersion', 'FvFunOn', 'VisilightFun', 'FPVersion'),
      text,
    );
    fc.assert(
      fc.property(params, fc.constantFrom(...BIOMETRIC_TYPES), (p, type) => {
        const c = biometricCapability(p, type);
        expect([true, false, null]).toContain(c.supported);
        expect(c.version === null || typeof c.version === 'string').toBe(true);
      }),
    );
  });
});

describe('wall times read with the offsets told', () => {
  test('the instant found lies in the period of the offset used, and gives back the wall time', () => {
    const offsets = fc.array(fc.integer({ min: -720, max: 840 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(offsets, fc.integer({ min: 0, max: 400 * 86_400 }), (told, second) => {
        const start = Date.UTC(2026, 0, 1);
        const history = told.map((offsetMinutes, i) => ({ since: start + i * 30 * 86_400_000, offsetMinutes }));
        const wall = new Date(start + second * 1000).toISOString().slice(0, 19).replace('T', ' ');
        const found = byToldOffset(wall, history);
        if (found === null) return;
        const i = history.findIndex(
          (h) => h.offsetMinutes === found.offsetMinutes && found.utc >= h.since && found.utc < (history[history.indexOf(h) + 1]?.since ?? Infinity),
        );
        expect(i).toBeGreaterThanOrEqual(0);
        expect(new Date(found.utc + found.offsetMinutes * 60_000).toISOString().slice(0, 19).replace('T', ' ')).toBe(wall);
      }),
    );
  });
});
