/**
 * Properties of what this release reads from terminals: 3.x `user` records (uploads and query
 * answers), the capabilities a terminal declares for each biometric kind, and wall times read
 * with the offsets a terminal was told. Nothing throws, and what comes out obeys its rules.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { byToldOffset, type OffsetHistory, toIncomingPunch } from '../../src/modules/terminals/ingest';
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
        const found = byToldOffset(wall, history, start + 500 * 86_400_000);
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

const MINUTE = 60_000;
const wallOf = (instant: number, offsetMinutes: number) => new Date(instant + offsetMinutes * MINUTE).toISOString().slice(0, 19).replace('T', ' ');
const record = (localTime: string) => ({ pin: '1', localTime, state: 0, verifyType: 1, workCode: '0', extra: [], raw: '' });

/** The offset a terminal ran on at an instant: the last one told by then. */
function toldAt(history: OffsetHistory, instant: number): number {
  return history.findLast((h) => h.since <= instant)!.offsetMinutes;
}

/**
 * The reference, by brute force: every minute around the wall time at which the terminal showed
 * it; of those, the ones not after the upload (a quarter of an hour's grace) could be the punch.
 */
function shownAt(history: OffsetHistory, wall: string): number[] {
  const asIfUtc = Date.parse(`${wall.replace(' ', 'T')}Z`);
  const out: number[] = [];
  for (let t = asIfUtc - 15 * 60 * MINUTE; t <= asIfUtc + 13 * 60 * MINUTE; t += MINUTE) {
    if (t >= history[0]!.since && t + toldAt(history, t) * MINUTE === asIfUtc) out.push(t);
  }
  return out;
}

describe('a punch read back with the offset the terminal ran on then', () => {
  test('recorded at instant i on the offset then told, it is read back as i; when another reading could have happened by the upload, the earlier and `dst_overlap`', () => {
    const start = Date.UTC(2026, 9, 25);
    // Offsets told a few minutes to a few hours apart, so that one wall time often shows twice.
    const history = fc
      .array(fc.record({ gap: fc.integer({ min: 1, max: 300 }), offsetMinutes: fc.constantFrom(-300, -240, 0, 60, 120, 330, 345, 600, 630) }), {
        minLength: 1,
        maxLength: 5,
      })
      .map((told) => {
        let since = start;
        return told.map((h) => {
          since += h.gap * MINUTE;
          return { since, offsetMinutes: h.offsetMinutes };
        });
      });
    fc.assert(
      fc.property(history, fc.integer({ min: 0, max: 24 * 60 }), fc.integer({ min: 0, max: 48 * 60 }), (told, minute, delay) => {
        const i = told[0]!.since + minute * MINUTE;
        const received = i + delay * MINUTE;
        const wall = wallOf(i, toldAt(told, i));
        const shown = shownAt(told, wall);
        const possible = shown.filter((t) => t <= received + 15 * MINUTE);
        const punch = toIncomingPunch(record(wall), 'UTC', received, told)!;
        expect(punch.punchedAt).toBe(possible.length > 1 ? possible[0]! : i);
        expect(punch.flags?.includes('dst_overlap')).toBe(possible.length > 1);
        expect(wallOf(punch.punchedAt, punch.utcOffsetMinutes)).toBe(wall);
      }),
      { numRuns: 300 },
    );
  });

  test('a wall time shown before and after a handshake that set the clock back: the earlier instant, flagged', () => {
    const history = [
      { since: Date.parse('2026-10-01T00:00:00Z'), offsetMinutes: 120 },
      { since: Date.parse('2026-10-25T01:40:00Z'), offsetMinutes: 60 },
    ];
    const punch = toIncomingPunch(record('2026-10-25 02:50:00'), 'Europe/Berlin', Date.parse('2026-10-25T03:00:00Z'), history)!;
    expect(new Date(punch.punchedAt).toISOString()).toBe('2026-10-25T00:50:00.000Z');
    expect(punch.utcOffsetMinutes).toBe(120);
    expect(punch.flags).toContain('dst_overlap');
  });

  test('a reading still to come when the upload arrives is not the punch: the one before it, unflagged', () => {
    const history = [
      { since: Date.parse('2026-11-28T13:41:43Z'), offsetMinutes: 60 },
      { since: Date.parse('2026-11-28T13:41:55Z'), offsetMinutes: 0 },
    ];
    const punch = toIncomingPunch(record('2026-11-28 14:41:48'), 'Europe/London', Date.parse('2026-11-28T13:42:10Z'), history)!;
    expect(new Date(punch.punchedAt).toISOString()).toBe('2026-11-28T13:41:48.000Z');
    expect(punch.flags).not.toContain('dst_overlap');
  });
});
