/** `?, ?, …`: the bind markers of an `in (…)` list or a row of values. */
export function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}
