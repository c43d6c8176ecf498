/**
 * Hardening of the terminal endpoints: an IP allow-list and a per-device token (`pushcommkey`
 * or a `token` cookie), both off by default, and a request size cap, always on.
 */
import { constantTimeEqual } from '../../platform/crypto/secrets';
import { parseIPv4, parseIPv6 } from '../webhooks/ssrf';
import { AdmsRefusal } from './reply';
import { readCapped } from '../../platform/http/read-capped';

interface Network {
  bytes: Uint8Array;
  prefix: number;
}

/** An IPv4 address as the 16 bytes of its IPv4-mapped IPv6 form, so one matcher serves both. */
function toBytes(ip: string): Uint8Array | null {
  const text = ip.trim().replace(/^\[(.*)\]$/, '$1');
  const v4 = parseIPv4(text);
  if (v4 !== null) {
    const b = new Uint8Array(16);
    b[10] = 0xff;
    b[11] = 0xff;
    b[12] = v4 >>> 24;
    b[13] = (v4 >>> 16) & 0xff;
    b[14] = (v4 >>> 8) & 0xff;
    b[15] = v4 & 0xff;
    return b;
  }
  return parseIPv6(text);
}

/** Parses `10.0.0.7`, `10.0.0.0/24`, `fd00::/8`; null for anything else. */
export function parseNetwork(entry: string): Network | null {
  const [address = '', prefixText] = entry.trim().split('/');
  const bytes = toBytes(address);
  if (!bytes) return null;
  const isV4 = parseIPv4(address.trim()) !== null;
  const max = isV4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return null;
  return { bytes, prefix: isV4 ? prefix + 96 : prefix };
}

function inNetwork(addr: Uint8Array, net: Network): boolean {
  let bits = net.prefix;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((addr[i] ?? 0) & mask) !== ((net.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

export class IpAllowList {
  private readonly networks: Network[];
  readonly enabled: boolean;

  constructor(entries: readonly string[]) {
    // Entries that do not parse allow nothing; an allow-list of only bad entries refuses all.
    this.networks = entries.map(parseNetwork).filter((n): n is Network => n !== null);
    this.enabled = entries.length > 0;
  }

  allows(ip: string | null): boolean {
    if (!this.enabled) return true;
    const addr = ip ? toBytes(ip) : null;
    return addr !== null && this.networks.some((n) => inNetwork(addr, n));
  }
}

function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * With ADMS_DEVICE_TOKENS, a listed serial must present one of its accepted values as the
 * `pushcommkey` query parameter or the `token` cookie (Security PUSH 3.x sends the cookie).
 * Serials not in the map are not checked.
 */
export function checkDeviceToken(tokens: Readonly<Record<string, string[]>>, serial: string, pushCommKey: string | null, cookie: string | null): void {
  const accepted = Object.hasOwn(tokens, serial) ? tokens[serial] : undefined;
  if (!accepted) return;
  const offered = [pushCommKey, cookieValue(cookie, 'token')].filter((v): v is string => v !== null && v !== '');
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
 */
export async function readBody(request: Request, max: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const bytes = await readCapped(request.body, max);
  if (!bytes) throw new AdmsRefusal(413, 'request body too large');
  return bytes;
}
