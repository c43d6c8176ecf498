import { formatLocalDateTime, isValidLocalDateTime } from '../../platform/time/local-time';
import { createDict, type Dict, splitPair } from './fields';

export interface AttPhoto {
  /** `PIN` (the file name), `SN`, `size`, `CMD` … as sent. */
  headers: Dict;
  /** The JPEG bytes after the NUL: a view into the body, never text-decoded. */
  image: Uint8Array;
}

/**
 * Split an ATTPHOTO body: text header lines, a NUL, then the raw image (§2.7).
 * Null when there is no NUL. Only the header is decoded (as UTF-8, lossy); the image is untouched.
 */
export function parseAttPhoto(bytes: Uint8Array): AttPhoto | null {
  const nul = bytes.indexOf(0);
  if (nul < 0) return null;
  const headerText = new TextDecoder('utf-8').decode(bytes.subarray(0, nul));
  const headers = createDict();
  for (const line of headerText.split('\n')) {
    const t = line.replace(/\r$/, '');
    if (t.trim() === '') continue;
    const [key, value] = splitPair(t);
    if (key !== '' && !(key in headers)) headers[key] = value;
  }
  return { headers, image: bytes.subarray(nul + 1) };
}

/**
 * Photo names look like `20240311085912-1001.jpg`: local capture time, then the PIN.
 * Returns null when the name does not follow that pattern.
 */
export function parseAttPhotoFileName(name: string): { localTime: string; pin: string } | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})-([^\s/\\]+?)(?:\.jpe?g)?$/i.exec(name.trim());
  if (!m) return null;
  const parts = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6]),
  };
  if (!isValidLocalDateTime(parts) || !m[7]) return null;
  return { localTime: formatLocalDateTime(parts), pin: m[7] };
}
