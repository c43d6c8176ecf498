/**
 * The parameter map a terminal reports about itself (`table=options`, the 3.x registry body,
 * the INFO command result). Any client that knows a serial can post these, so what is kept is
 * bounded: at most MAX_KEYS keys of at most MAX_KEY_LENGTH characters, values cut to
 * MAX_VALUE_LENGTH characters.
 */

export const MAX_PARAMETER_KEYS = 200;
export const MAX_PARAMETER_KEY_LENGTH = 64;
export const MAX_PARAMETER_VALUE_LENGTH = 256;

/**
 * `replace`: a full parameter list (options, registry) takes the place of the stored one.
 * `merge`: a partial one (INFO result) updates the stored keys and adds new ones under the cap.
 */
export type ParameterMode = 'replace' | 'merge';

/** The map to store after a report; the result never exceeds the caps. */
export function nextParameters(
  current: Readonly<Record<string, string>> | null,
  incoming: Readonly<Record<string, string>>,
  mode: ParameterMode,
): Record<string, string> {
  const out = new Map<string, string>();
  const add = (key: string, value: unknown, overwrite: boolean) => {
    if (key.length === 0 || key.length > MAX_PARAMETER_KEY_LENGTH || typeof value !== 'string') return;
    if (out.has(key) ? !overwrite : out.size >= MAX_PARAMETER_KEYS) return;
    out.set(key, value.slice(0, MAX_PARAMETER_VALUE_LENGTH));
  };
  if (mode === 'merge' && current) for (const [k, v] of Object.entries(current)) add(k, v, false);
  for (const [k, v] of Object.entries(incoming)) add(k, v, true);
  // fromEntries defines own properties, so a key such as `__proto__` stays plain data.
  return Object.fromEntries(out);
}

export function sameParameters(a: Readonly<Record<string, string>> | null, b: Readonly<Record<string, string>>): boolean {
  const left = Object.entries(a ?? {});
  if (left.length !== Object.keys(b).length) return false;
  return left.every(([k, v]) => Object.hasOwn(b, k) && b[k] === v);
}
