/**
 * Card numbers as a terminal holds them: an unsigned 32-bit number, so leading zeros are the
 * same card and anything past 4294967295 cannot be one.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { CARD_MAX, normaliseCard } from '../../../src/modules/enrollees';

describe('normaliseCard', () => {
  test.each([
    ['1234', '1234'],
    ['01234', '1234'],
    ['0001', '1'],
    [' 42 ', '42'],
    ['4294967295', '4294967295'],
    ['04294967295', '4294967295'],
  ])('%p is the card %p', (raw, card) => {
    expect(normaliseCard(raw)).toEqual({ ok: true, card });
  });

  test.each([
    ['0', 'zero'],
    ['0000', 'zero'],
    ['4294967296', 'out_of_range'],
    ['9999999999', 'out_of_range'],
    ['12345678901234567890', 'out_of_range'],
    ['', 'not_digits'],
    ['12a4', 'not_digits'],
    ['-5', 'not_digits'],
    ['1e5', 'not_digits'],
    ['[15CD5B07]', 'not_digits'],
  ])('%p is refused (%s)', (raw, reason) => {
    expect(normaliseCard(raw)).toEqual({ ok: false, reason } as ReturnType<typeof normaliseCard>);
  });

  test('every number from 1 to 4294967295, with any leading zeros, is that number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: CARD_MAX }), fc.nat({ max: 12 }), (n, zeros) => {
        expect(normaliseCard(`${'0'.repeat(zeros)}${n}`)).toEqual({ ok: true, card: String(n) });
      }),
    );
  });

  test('a number past 4294967295 is never a card, however it is written', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: BigInt(CARD_MAX) + 1n, max: 10n ** 20n }), fc.nat({ max: 5 }), (n, zeros) => {
        expect(normaliseCard(`${'0'.repeat(zeros)}${n}`)).toEqual({ ok: false, reason: 'out_of_range' });
      }),
    );
  });

  test('normalising is idempotent, and two spellings are one card exactly when they are one number', () => {
    const digits = fc.stringMatching(/^\d{1,22}$/);
    fc.assert(
      fc.property(digits, digits, (a, b) => {
        const [x, y] = [normaliseCard(a), normaliseCard(b)];
        if (x.ok) expect(normaliseCard(x.card)).toEqual(x);
        if (x.ok && y.ok) expect(x.card === y.card).toBe(BigInt(a) === BigInt(b));
        if (x.ok) expect(BigInt(x.card)).toBe(BigInt(a));
        else expect(BigInt(a) === 0n || BigInt(a) > BigInt(CARD_MAX)).toBe(true);
      }),
    );
  });
});
