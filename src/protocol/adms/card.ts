/**
 * Card numbers arrive either as decimal or as `[xxxxxxxx]`: the number's bytes in hex, little-endian
 * (`[15CD5B07]` = 123456789, §4.2). A 5-byte form `[xxxxxxxx00]` also exists ([IPY]).
 * Returns the decimal string, or '' when there is no card or the form is unrecognised.
 */
export function decodeCardNumber(raw: string): string {
  const t = raw.trim();
  if (/^\d+$/.test(t)) return t;
  const m = /^\[((?:[0-9A-Fa-f]{2}){1,8})\]$/.exec(t);
  if (!m || m[1] === undefined) return '';
  const hex = m[1];
  let value = 0n;
  for (let i = hex.length - 2; i >= 0; i -= 2) value = (value << 8n) | BigInt(parseInt(hex.slice(i, i + 2), 16));
  return value.toString();
}
