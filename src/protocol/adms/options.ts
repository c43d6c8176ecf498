import { createDict, type Dict, parameterValue, splitPair } from './fields';

/**
 * Split a comma-separated `key=value` body. Values may themselves contain commas
 * (`~OEMVendor=ZKTeco Co., Ltd.`), so a comma only separates when a `key=` follows it.
 * LF is also treated as a separator, for firmware that sends one pair per line.
 */
const PAIR_SEPARATOR = /,(?=[~A-Za-z0-9_]+=)|\r?\n/;

export function splitOptionPairs(text: string): string[] {
  return text.split(PAIR_SEPARATOR).filter((p) => p.trim() !== '');
}

/** Parse a `table=options` body (2.x) into a map; the first occurrence of a key wins; values lose NULs and surrounding spaces (parameterValue). */
export function parseOptionsBody(text: string): Dict {
  const out = createDict();
  for (const part of splitOptionPairs(text)) {
    const [key, value] = splitPair(part.replace(/\r$/, ''));
    if (key !== '' && !(key in out)) out[key] = parameterValue(value);
  }
  return out;
}

/** A parameter's name as terminals spell them (`UserCount`, `~DeviceName`, `IPAddress`). */
const PARAMETER_NAME = /^~?[A-Za-z][A-Za-z0-9_]*$/;

/** How many parameters of a parsed body are named as terminals name them: none in a body that is not text. */
export function namedParameters(d: Dict): number {
  return Object.keys(d).filter((key) => PARAMETER_NAME.test(key)).length;
}

/** Inverse of parseOptionsBody, for simulators and tests. */
export function formatOptionsBody(options: Readonly<Record<string, string>>): string {
  return Object.entries(options)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
