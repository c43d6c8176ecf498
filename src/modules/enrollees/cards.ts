/**
 * Card numbers as terminals read them. A ZKTeco terminal keeps a card as an unsigned 32-bit
 * number (the `[xxxxxxxx]` form of ADMS is those 4 bytes), so `1234` and `01234` are one card
 * there, and a number past 4294967295 cannot be held at all. Cards are stored as the terminal
 * sees them: decimal digits without leading zeros, 1 to 4294967295; the uniqueness of cards
 * between enrollees is checked on that form.
 */

/** The largest card number a terminal holds (unsigned 32-bit). */
export const CARD_MAX = 4_294_967_295;

export type CardCheck = { ok: true; card: string } | { ok: false; reason: 'not_digits' | 'zero' | 'out_of_range' };

/** The card as a terminal holds it, or why it cannot be one (`zero`: no card at all on a terminal). */
export function normaliseCard(raw: string): CardCheck {
  const t = raw.trim();
  if (!/^\d+$/.test(t)) return { ok: false, reason: 'not_digits' };
  const card = t.replace(/^0+/, '');
  if (card === '') return { ok: false, reason: 'zero' };
  // Compared as text of equal length: a 20-digit number is past what a double holds exactly.
  if (card.length > 10 || (card.length === 10 && card > String(CARD_MAX))) return { ok: false, reason: 'out_of_range' };
  return { ok: true, card };
}
