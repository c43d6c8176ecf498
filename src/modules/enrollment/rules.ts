/** Algorithm compatibility of templates and terminals (ALGORITHM_COMPATIBILITY_MAP). */

/** Whether a device with algorithm `deviceAlgorithm` can use a template of `templateAlgorithm`. */
export function deviceAccepts(map: Record<string, string[]>, deviceAlgorithm: string | null, templateAlgorithm: string): boolean {
  // A terminal that never reported its algorithm gets the template (one that said it has no
  // fingerprint reader is refused before, kinds.ts terminalTakes); the result code of the
  // command (-30, -11, -12) marks it failed if it cannot take it.
  if (!deviceAlgorithm) return true;
  if (sameVersion(deviceAlgorithm, templateAlgorithm)) return true;
  return (map[deviceAlgorithm] ?? []).some((v) => sameVersion(v, templateAlgorithm));
}

/** "10" and "10.0" are the same algorithm version. */
export function sameVersion(a: string, b: string): boolean {
  if (a === b) return true;
  const na = Number(a);
  const nb = Number(b);
  return Number.isFinite(na) && Number.isFinite(nb) && na === nb;
}
