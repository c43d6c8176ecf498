/** How the diagnostics' sentences say things, shared by their words. */

/** A count with its noun, as a sentence says it: `1 command`, `3 commands` (never `command(s)`). */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
