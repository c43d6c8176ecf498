/** How the service's own sentences say things (diagnostics, a terminal's event list). */

/** A count with its noun, as a sentence says it: `1 command`, `3 commands` (never `command(s)`); `many` where the plural is not `one` + s. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
