/** Splits a list into runs of at most `size` items (SQLite bind-variable budgets, batch sizes). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
