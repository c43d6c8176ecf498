/**
 * IP address text: strict parsers (IPv4 dotted decimal, IPv6 with an optional zone and IPv4 tail),
 * networks in CIDR form and allow-lists of them, and the loopback test. Used by the terminal
 * allow-list, the webhook SSRF check and the operator token (loopback only).
 */
/** Strict dotted-decimal IPv4 (no leading zeros, no shorthand) to uint32. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

/** IPv6 text (optionally with a zone id and/or trailing dotted IPv4) to 16 bytes. */
export function parseIPv6(text: string): Uint8Array | null {
  let s = text;
  const zone = s.indexOf('%');
  if (zone !== -1) {
    if (zone === s.length - 1) return null;
    s = s.slice(0, zone);
  }
  if (s.length === 0) return null;
  const groups: number[] = [];
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parseHalf = (half: string, allowV4Tail: boolean): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const items = half.split(':');
    for (const [i, item] of items.entries()) {
      if (allowV4Tail && i === items.length - 1 && item.includes('.')) {
        const v4 = parseIPv4(item);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(item)) {
        out.push(parseInt(item, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const [headText = '', tailText] = halves;
  if (tailText === undefined) {
    const all = parseHalf(headText, true);
    if (all === null || all.length !== 8) return null;
    groups.push(...all);
  } else {
    const head = parseHalf(headText, false);
    const tail = parseHalf(tailText, true);
    if (head === null || tail === null) return null;
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    groups.push(...head, ...new Array<number>(missing).fill(0), ...tail);
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >>> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

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

/** Whether `text` is one IPv4 or IPv6 address (not a network, not a name). */
export function isIpAddress(text: string): boolean {
  const trimmed = text.trim();
  return parseIPv4(trimmed) !== null || parseIPv6(trimmed) !== null;
}

/** Whether two texts name the same address: `::ffff:10.0.0.7` is `10.0.0.7`, `::1` is `0:0:0:0:0:0:0:1`. */
export function sameAddress(a: string, b: string): boolean {
  const x = toBytes(a);
  const y = toBytes(b);
  return x !== null && y !== null && x.every((byte, i) => byte === y[i]);
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
    // The configuration check refuses such an entry (fpa.E022), so a server never runs with one.
    this.networks = entries.map(parseNetwork).filter((n): n is Network => n !== null);
    this.enabled = entries.length > 0;
  }

  allows(ip: string | null): boolean {
    if (!this.enabled) return true;
    const addr = ip ? toBytes(ip) : null;
    return addr !== null && this.networks.some((n) => inNetwork(addr, n));
  }
}

/** True for 127.0.0.0/8 and ::1, also in their IPv4-mapped form; unknown peers are not loopback. */
export function isLoopbackAddress(ip: string | null | undefined): boolean {
  if (!ip) return false;
  const lowered = ip.toLowerCase();
  const v4 = lowered.startsWith('::ffff:') ? lowered.slice('::ffff:'.length) : lowered;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4)) return true;
  return lowered === '::1' || lowered === '0:0:0:0:0:0:0:1';
}

/** A network of a setting, checked strictly (parseCidr). */
export type Cidr = Network;

/**
 * A network as an operator writes it in a setting: `10.0.0.0/8`, `fd00::/8`, or one address
 * (`127.0.0.1` = /32, `::1` = /128). Stricter than parseNetwork: no zone id, no IPv4 tail in an
 * IPv6 network, and no bits set after the prefix (`10.0.0.1/8` is a typo for something, not a
 * network): the error says which network was meant. Never throws.
 */
export function parseCidr(text: string): { ok: true; network: Cidr } | { ok: false; error: string } {
  if (typeof text !== 'string') return { ok: false, error: 'not text' };
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const address = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const prefixText = slash === -1 ? undefined : trimmed.slice(slash + 1);
  const v4 = parseIPv4(address);
  const v6 = v4 === null && !address.includes('%') && !address.includes('.') ? parseIPv6(address) : null;
  if (v4 === null && v6 === null) return { ok: false, error: 'is not an IPv4 or IPv6 address (a network is written 10.0.0.0/8 or fd00::/8)' };
  const max = v4 !== null ? 32 : 128;
  if (prefixText !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(prefixText))
    return { ok: false, error: `has a prefix length that is not a number from 0 to ${max}` };
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return { ok: false, error: `has a prefix length above ${max}` };
  const bytes = toBytes(address)!;
  const network: Network = { bytes, prefix: v4 !== null ? prefix + 96 : prefix };
  const base = maskTo(bytes, network.prefix);
  if (base.some((b, i) => b !== bytes[i]))
    return { ok: false, error: `has bits set after the prefix: the network is ${formatNetwork(base, v4 !== null, prefix)}` };
  return { ok: true, network };
}

/** Whether `ip` (IPv4, IPv6, or IPv4-mapped IPv6, which IPv4 networks cover) is inside `network`. */
export function cidrContains(network: Cidr, ip: string): boolean {
  const addr = toBytes(ip);
  return addr !== null && inNetwork(addr, network);
}

function maskTo(bytes: Uint8Array, prefix: number): Uint8Array {
  const out = new Uint8Array(16);
  let bits = prefix;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) out[i] = (bytes[i] ?? 0) & (bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff);
  return out;
}

function formatNetwork(bytes: Uint8Array, v4: boolean, prefix: number): string {
  if (v4) return `${[...bytes.slice(12)].join('.')}/${prefix}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // The longest run of zero groups is written `::` (RFC 5952).
  const text = groups.join(':');
  const runs = [...`:${text}:`.matchAll(/(?::0)+:/g)].sort((a, b) => b[0].length - a[0].length);
  const longest = runs[0];
  if (!longest || longest[0].length < 5) return `${text}/${prefix}`;
  const padded = `:${text}:`;
  const compact = `${padded.slice(0, longest.index)}::${padded.slice(longest.index + longest[0].length)}`.replace(/^:(?!:)/, '').replace(/(?<!:):$/, '');
  return `${compact}/${prefix}`;
}
