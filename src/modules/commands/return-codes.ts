/**
 * What terminals' command return codes mean (docs/protocol/adms.md §5.4: the attendance 2.x list,
 * [ATT] appendix 1, and [SEC] appendix 1 for 3.x), for results people read. Every code that ends
 * a command (kinds.ts PERMANENT_FAILURES) has its meaning here, in the document's words.
 */
import { NO_RESULT } from './kinds';

/** ENROLL_FP / ENROLL_BIO return codes, then the general ones. */
const RETURN_MEANINGS: Readonly<Record<number, string>> = {
  0: 'done',
  2: 'the user already has a template for this finger',
  4: 'enrollment failed (bad quality or the captures did not match)',
  5: 'this fingerprint already belongs to another user',
  6: 'cancelled on the terminal',
  7: 'the terminal is busy',
  [-1]: 'parameter error',
  [-2]: 'the user photo’s size does not match its data',
  [-3]: 'storage error on the terminal',
  [-9]: 'the template size does not match its data',
  [-10]: 'the user is not on the terminal',
  [-11]: 'illegal fingerprint template format',
  [-12]: 'illegal fingerprint template',
  // 2022+ firmware refusing a template of a fingerprint algorithm it does not take.
  [-30]: 'the terminal does not take this template’s algorithm version',
  [-1001]: 'the terminal is full',
  [-1002]: 'the terminal does not support this command',
  [-1003]: 'timed out on the terminal',
  [-1004]: 'the data does not fit the terminal’s configuration (for example, it has no such table)',
  [-1005]: 'the terminal is busy',
  [-1006]: 'the data is too long',
  [-1007]: 'the terminal is out of memory',
  [-1008]: 'the terminal could not get the data from the server',
  // Security PUSH 3.x ([SEC] appendix 1): its own range, never sent by 2.x firmware.
  [-604]: 'the terminal is out of memory',
  [-612]: 'the terminal could not save the parameter',
  [-618]: 'bad URL format',
  [-619]: 'a parameter of the command is empty',
  [-620]: 'the command data is not in the format the terminal expects',
  [-621]: 'the table has no such field',
  [-628]: 'the terminal could not load the fingerprint',
  [-629]: 'the terminal has no such table',
  [-631]: 'bad base64 length',
  [-632]: 'bad file name',
  [-708]: 'the terminal does not support this command',
  [-722]: 'the terminal could not upload the data',
  [-725]: 'the terminal timed out waiting for the server',
  [-730]: 'no response from the server',
  [-731]: 'the server failed to receive the data',
  [-801]: 'bad command format',
};

export function describeReturnCode(code: number | null): string {
  if (code === null) return NO_RESULT;
  return `Return=${code} (${RETURN_MEANINGS[code] ?? 'unknown code'})`;
}
