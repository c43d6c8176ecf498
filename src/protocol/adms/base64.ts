/**
 * Templates and photos travel as standard base64. `Size=` on FP/BIOPHOTO is the length of the base64
 * text, not of the decoded bytes (§4.2), so both lengths are useful.
 */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function isValidBase64(text: string): boolean {
  if (!BASE64.test(text)) return false;
  const padded = text.endsWith('=');
  if (padded) return text.length % 4 === 0;
  // Unpadded base64 is tolerated; a remainder of 1 can never be produced by an encoder.
  return text.length % 4 !== 1;
}

/** Number of bytes the base64 text decodes to (assumes isValidBase64). */
export function base64DecodedLength(text: string): number {
  const body = text.replace(/=+$/, '');
  return Math.floor((body.length * 3) / 4);
}

function decodeBase64Prefix(text: string, bytes: number): Uint8Array {
  const chars = Math.ceil(bytes / 3) * 4;
  const head = text.slice(0, chars).replace(/=+$/, '');
  const padded = head + '='.repeat((4 - (head.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array(0);
  }
}

/**
 * Guess the ZKFinger generation from a template's first bytes (§6.2): v9 starts `A1 CA`,
 * v10 carries ASCII `SS21` at offsets 2..5. v9 and v10 templates are not interchangeable.
 */
export function guessFingerprintAlgorithm(template: string): 'v9' | 'v10' | null {
  const head = decodeBase64Prefix(template, 6);
  if (head.length >= 2 && head[0] === 0xa1 && head[1] === 0xca) return 'v9';
  if (head.length >= 6 && String.fromCharCode(head[2] ?? 0, head[3] ?? 0, head[4] ?? 0, head[5] ?? 0) === 'SS21') {
    return 'v10';
  }
  return null;
}
