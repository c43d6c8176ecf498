/** What terminals' command return codes mean (docs/protocol/adms.md §5.4), for results people read. */

/** ENROLL_FP / ENROLL_BIO return codes, then the general ones. */
const RETURN_MEANINGS: Readonly<Record<number, string>> = {
  2: 'the user already has a template for this finger',
  4: 'enrollment failed (bad quality or the captures did not match)',
  5: 'this fingerprint already belongs to another user',
  6: 'cancelled on the terminal',
  7: 'the terminal is busy',
  [-1]: 'parameter error',
  [-3]: 'storage error on the terminal',
  [-10]: 'the user is not on the terminal',
  [-1001]: 'the terminal is full',
  [-1002]: 'the terminal does not support this command',
  [-1003]: 'timed out on the terminal',
  [-1005]: 'the terminal is busy',
};

export function describeReturnCode(code: number | null): string {
  if (code === null) return 'no result from the terminal';
  return `Return=${code} (${RETURN_MEANINGS[code] ?? 'unknown code'})`;
}
