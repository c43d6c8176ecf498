/**
 * Guards outgoing webhook URLs against server-side request forgery.
 *
 * Checks: http/https only, no credentials, and every address the host resolves
 * to must be publicly routable. Address classification is an allow-list for
 * IPv6 (only global unicast 2000::/3 minus special-purpose blocks) and a
 * deny-list of special-purpose blocks for IPv4; IPv6 addresses that embed an
 * IPv4 address (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16)
 * are judged by the embedded address.
 *
 * The check resolves DNS when called (the worker may reuse an answer for up to a second, see
 * cachingResolver), and gives up on a lookup after `lookupTimeoutMs`. To defeat DNS rebinding the delivery client connects to
 * one of the returned `addresses` (src/delivery/sender.ts) rather than
 * resolving the name again.
 */
import { promises as dns } from 'node:dns';
import { parseIPv4, parseIPv6 } from '../../platform/net/ip';

export type Resolver = (host: string) => Promise<string[]>;

export interface CheckWebhookUrlOptions {
  allowPrivateNetworks: boolean;
  /** Defaults to `dns.promises.lookup(host, { all: true })`. */
  resolve?: Resolver;
  /** The lookup is given up after this long (default DNS_LOOKUP_TIMEOUT_MS): a hung resolver must not hold a delivery slot. */
  lookupTimeoutMs?: number;
}

export const DNS_LOOKUP_TIMEOUT_MS = 5_000;

export type CheckWebhookUrlResult = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

type Cidr = readonly [base: number, prefix: number];

/** Non-public IPv4 blocks (IANA special-purpose registry, plus multicast/reserved). */
const IPV4_BLOCKED: readonly Cidr[] = [
  [ipv4(0, 0, 0, 0), 8], // "this network", includes 0.0.0.0
  [ipv4(10, 0, 0, 0), 8], // private
  [ipv4(100, 64, 0, 0), 10], // CGNAT shared address space
  [ipv4(127, 0, 0, 0), 8], // loopback
  [ipv4(169, 254, 0, 0), 16], // link-local (incl. cloud metadata 169.254.169.254)
  [ipv4(172, 16, 0, 0), 12], // private
  [ipv4(192, 0, 0, 0), 24], // IETF protocol assignments
  [ipv4(192, 0, 2, 0), 24], // TEST-NET-1
  [ipv4(192, 88, 99, 0), 24], // 6to4 relay anycast (deprecated)
  [ipv4(192, 168, 0, 0), 16], // private
  [ipv4(198, 18, 0, 0), 15], // benchmarking
  [ipv4(198, 51, 100, 0), 24], // TEST-NET-2
  [ipv4(203, 0, 113, 0), 24], // TEST-NET-3
  [ipv4(224, 0, 0, 0), 4], // multicast
  [ipv4(240, 0, 0, 0), 4], // reserved, includes 255.255.255.255
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

function inCidr(addr: number, [base, prefix]: Cidr): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (addr & mask) >>> 0 === (base & mask) >>> 0;
}

function isBlockedIPv4(addr: number): boolean {
  return IPV4_BLOCKED.some((c) => inCidr(addr, c));
}

function v4At(b: Uint8Array, offset: number): number {
  return (((b[offset] ?? 0) << 24) >>> 0) + ((b[offset + 1] ?? 0) << 16) + ((b[offset + 2] ?? 0) << 8) + (b[offset + 3] ?? 0);
}

function zeros(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}

function isBlockedIPv6(b: Uint8Array): boolean {
  const g0 = ((b[0] ?? 0) << 8) | (b[1] ?? 0);
  const g1 = ((b[2] ?? 0) << 8) | (b[3] ?? 0);
  // ::ffff:a.b.c.d (IPv4-mapped): judge by the embedded IPv4 address.
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return isBlockedIPv4(v4At(b, 12));
  // 64:ff9b::/96 (NAT64 well-known prefix).
  if (g0 === 0x0064 && g1 === 0xff9b && zeros(b, 4, 12)) return isBlockedIPv4(v4At(b, 12));
  // Anything else outside global unicast 2000::/3: ::, ::1, deprecated
  // IPv4-compatible ::a.b.c.d, fc00::/7, fe80::/10, fec0::/10, ff00::/8, ...
  if ((g0 & 0xe000) !== 0x2000) return true;
  // 2001::/23 IETF protocol assignments (Teredo 2001::/32, ORCHID, ...).
  if (g0 === 0x2001 && g1 < 0x0200) return true;
  // 2001:db8::/32 documentation.
  if (g0 === 0x2001 && g1 === 0x0db8) return true;
  // 3fff::/20 documentation (RFC 9637).
  if (g0 === 0x3fff && g1 < 0x1000) return true;
  // 2002::/16 6to4: judge by the embedded IPv4 address.
  if (g0 === 0x2002) return isBlockedIPv4(v4At(b, 2));
  return false;
}

/**
 * True when `ip` is not a publicly routable unicast address: loopback,
 * private, link-local, unspecified, CGNAT, multicast, documentation,
 * reserved, or an IPv6 form embedding one of those. Unparseable input is
 * reported as private (fail closed).
 */
export function isPrivateAddress(ip: string): boolean {
  if (typeof ip !== 'string') return true;
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const v4 = parseIPv4(text);
  if (v4 !== null) return isBlockedIPv4(v4);
  const v6 = parseIPv6(text);
  if (v6 !== null) return isBlockedIPv6(v6);
  return true;
}

async function defaultResolve(host: string): Promise<string[]> {
  const results = await dns.lookup(host, { all: true, verbatim: true });
  return results.map((r) => r.address);
}

/**
 * A resolver that remembers each host's successful answer for `ttlMs` and shares one lookup
 * among concurrent callers, so a burst of deliveries to one host costs one lookup a second.
 * Only the name-to-address answer is reused: callers still classify every address on every
 * check, and still connect to an address from this answer (never resolving again), so DNS
 * rebinding gains nothing. Failures are not remembered.
 */
export function cachingResolver(resolve: Resolver = defaultResolve, ttlMs = 1_000, now: () => number = () => performance.now()): Resolver {
  const answers = new Map<string, { addresses: string[]; until: number }>();
  const inFlight = new Map<string, Promise<string[]>>();
  return async (host) => {
    const cached = answers.get(host);
    if (cached && cached.until > now()) return [...cached.addresses];
    let lookup = inFlight.get(host);
    if (!lookup) {
      lookup = resolve(host)
        .then((addresses) => {
          if (Array.isArray(addresses) && addresses.length > 0) {
            // Expired answers of other hosts go too: the map stays as small as the hosts in use.
            const at = now();
            for (const [name, answer] of answers) if (answer.until <= at) answers.delete(name);
            answers.set(host, { addresses: [...addresses], until: at + ttlMs });
          }
          return addresses;
        })
        .finally(() => inFlight.delete(host));
      inFlight.set(host, lookup);
    }
    const addresses = await lookup;
    return Array.isArray(addresses) ? [...addresses] : addresses;
  };
}

class LookupTimeout extends Error {}

/** The resolver's answer, or LookupTimeout after `ms` (getaddrinfo cannot be cancelled; its late answer is dropped). */
async function resolveWithin(resolve: Resolver, host: string, ms: number): Promise<string[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LookupTimeout()), ms);
  });
  try {
    return await Promise.race([resolve(host), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Validates a webhook target URL; see the module comment. */
export async function checkWebhookUrl(url: string, options: CheckWebhookUrlOptions): Promise<CheckWebhookUrlResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, reason: 'URL scheme must be http or https' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'URL must not contain credentials' };
  }
  // URL.hostname keeps brackets around IPv6 literals and normalises IPv4
  // shorthand ("0x7f.1", "2130706433") to dotted decimal.
  const raw = parsed.hostname;
  const host = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  if (host === '') return { ok: false, reason: 'URL must have a host' };

  const literal = parseIPv4(host) !== null || parseIPv6(host) !== null;
  if (options.allowPrivateNetworks) {
    return { ok: true, url: parsed, addresses: literal ? [host] : [] };
  }
  const lowered = host.toLowerCase().replace(/\.$/, '');
  if (lowered === 'localhost' || lowered.endsWith('.localhost')) {
    return { ok: false, reason: 'host resolves to a private or reserved address' };
  }

  let addresses: string[];
  if (literal) {
    addresses = [host];
  } else {
    try {
      addresses = await resolveWithin(options.resolve ?? defaultResolve, host, options.lookupTimeoutMs ?? DNS_LOOKUP_TIMEOUT_MS);
    } catch (error) {
      return { ok: false, reason: error instanceof LookupTimeout ? 'host lookup timed out' : 'host could not be resolved' };
    }
    if (!Array.isArray(addresses) || addresses.length === 0) {
      return { ok: false, reason: 'host could not be resolved' };
    }
  }
  if (addresses.some((a) => isPrivateAddress(a))) {
    return { ok: false, reason: 'host resolves to a private or reserved address' };
  }
  return { ok: true, url: parsed, addresses: [...addresses] };
}
