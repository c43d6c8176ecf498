/**
 * Hardening of the terminal endpoints: an IP allow-list and a per-device token (`pushcommkey`
 * or a `token` cookie), both off by default, and a request size cap, always on.
 */
import { constantTimeEqual } from '../../platform/crypto/secrets';
import { readCapped } from '../../platform/http/read-capped';
import { AdmsRefusal } from './reply';

function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The communication keys a request presents: `pushcommkey` (2.x handshake) and the `token` cookie (3.x). */
export function presentedKeys(pushCommKey: string | null, cookie: string | null): string[] {
  return [pushCommKey, cookieValue(cookie, 'token')].filter((v): v is string => v !== null && v !== '');
}

/**
 * With ADMS_DEVICE_TOKENS, a listed serial must present one of its accepted values as the
 * `pushcommkey` query parameter or the `token` cookie (Security PUSH 3.x sends the cookie).
 * Serials not in the map are not checked.
 */
export function checkDeviceToken(tokens: Readonly<Record<string, string[]>>, serial: string, pushCommKey: string | null, cookie: string | null): void {
  const accepted = Object.hasOwn(tokens, serial) ? tokens[serial] : undefined;
  if (!accepted) return;
  const offered = presentedKeys(pushCommKey, cookie);
  if (!offered.some((o) => accepted.some((a) => constantTimeEqual(o, a)))) {
    throw new AdmsRefusal(403, 'device token missing or wrong');
  }
}

/** Refuses with 413 a request whose Content-Length is above `max`: nothing needs to be read for that. */
export function checkDeclaredLength(request: Request, max: number): void {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > max) {
    throw new AdmsRefusal(413, 'request body too large');
  }
}

/**
 * Reads the raw body bytes, refusing with 413 above `max` on the bytes actually received
 * (chunked bodies carry no length). The declared Content-Length is checked by the caller
 * before the device is even looked up (routes.ts), so it is not checked again here.
 *
 * A body sent with `Content-Encoding: gzip` (an HTTP encoding of the request, not a terminal's
 * data pack) is decompressed and read as any other, under the same cap after decompression: it
 * is inflated as a stream and cut off at `max`, so a small bomb is refused (413) without ever
 * being inflated whole (`Bun.gunzipSync` has no limit on its output). A body that is not gzip
 * after all cannot be read: 400, so the terminal keeps it. Other encodings are read as sent,
 * where a body that is not text is refused (unreadable.ts).
 */
export async function readBody(request: Request, max: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const bytes = await readCapped(request.body, max);
  if (!bytes) throw new AdmsRefusal(413, 'request body too large');
  return isGzip(request.headers.get('content-encoding')) ? gunzipCapped(bytes, max) : bytes;
}

/** `Content-Encoding: gzip` (or its old name `x-gzip`), alone or beside `identity`. */
function isGzip(header: string | null): boolean {
  if (header === null) return false;
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  return codings.length === 1 && (codings[0] === 'gzip' || codings[0] === 'x-gzip');
}

async function gunzipCapped(bytes: Uint8Array, max: number): Promise<Uint8Array> {
  let inflated: Uint8Array | null;
  try {
    // The bytes as read are a view of an ArrayBuffer: viewed again as one, not copied.
    const view = bytes.buffer instanceof ArrayBuffer ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
    const packed = new ReadableStream<Uint8Array<ArrayBuffer>>({
      start(controller) {
        controller.enqueue(view);
        controller.close();
      },
    });
    inflated = await readCapped(packed.pipeThrough(new DecompressionStream('gzip')), max);
  } catch {
    throw new AdmsRefusal(400, 'request body is not valid gzip');
  }
  if (!inflated) throw new AdmsRefusal(413, 'request body too large');
  return inflated;
}
