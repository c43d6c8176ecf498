/**
 * Guards outgoing webhook URLs against server-side request forgery.
 *
 * Checks: http/https only, no credentials, and every address the host resolves to must be
 * acceptable. Each address is classified (classifyAddress): publicly routable unicast is
 * acceptable; private and loopback addresses only when WEBHOOK_ALLOWED_NETWORKS lists a network
 * holding them (or, the older all-or-nothing switch, WEBHOOK_ALLOW_PRIVATE_NETWORKS is on);
 * link-local, cloud metadata and reserved addresses never, whatever the settings say: a
 * receiver has no business there, and 169.254.169.254 answers with the host's cloud
 * credentials. The classification is an allow-list for IPv6 (only global unicast 2000::/3 minus
 * special-purpose blocks) and a deny-list of special-purpose blocks for IPv4; an IPv4-mapped
 * IPv6 address (::ffff:0:0/96) is the IPv4 address it maps, and one embedded in NAT64
 * (64:ff9b::/96) or 6to4 (2002::/16) is acceptable only when that address is public.
 *
 * The check resolves DNS when called (the worker may reuse an answer for up to a second, see
 * cachingResolver), and gives up on a lookup after `lookupTimeoutMs`. To defeat DNS rebinding the
 * delivery client connects to one of the returned `addresses` (sender.ts) rather than resolving
 * the name again; the worker runs this check again before every delivery.
 */
import { promises as dns } from 'node:dns';
import { type Cidr, cidrContains, parseCidr, parseIPv4, parseIPv6 } from '../../platform/net/ip';

export type Resolver = (host: string) => Promise<string[]>;

export interface CheckWebhookUrlOptions {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: every private and loopback address (never link-local, metadata or reserved). */
  allowPrivateNetworks: boolean;
  /** WEBHOOK_ALLOWED_NETWORKS: private or loopback addresses inside these networks are acceptable. */
  allowedNetworks?: AllowedNetworks;
  /** Defaults to `dns.promises.lookup(host, { all: true })`. */
  resolve?: Resolver;
  /** The lookup is given up after this long (default DNS_LOOKUP_TIMEOUT_MS): a hung resolver must not hold a delivery slot. */
  lookupTimeoutMs?: number;
  /**
   * Plain `http:` only for a receiver on the operator's own networks (a private or loopback
   * address WEBHOOK_ALLOWED_NETWORKS opened): across the internet names and punches travel in
   * clear. Checked when an endpoint is added or its URL changed, not at delivery.
   */
  httpsAcrossTheInternet?: boolean;
}

export const DNS_LOOKUP_TIMEOUT_MS = 5_000;

export type CheckWebhookUrlResult = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

type V4Block = readonly [base: number, prefix: number];

/** The kinds of address, as the check treats them. */
export type AddressClass = 'public' | 'private' | 'link-local' | 'metadata' | 'reserved';

/** Private and loopback IPv4 blocks: the ones WEBHOOK_ALLOWED_NETWORKS may open. */
const IPV4_PRIVATE: readonly V4Block[] = [
  [ipv4(10, 0, 0, 0), 8], // private
  [ipv4(100, 64, 0, 0), 10], // CGNAT shared address space
  [ipv4(127, 0, 0, 0), 8], // loopback
  [ipv4(172, 16, 0, 0), 12], // private
  [ipv4(192, 168, 0, 0), 16], // private
];

/**
 * Cloud instance metadata and platform services: never acceptable. 169.254.169.254 (AWS, GCP,
 * Azure, Oracle, OpenStack) and 169.254.170.2 (AWS ECS task credentials) are link-local anyway;
 * 100.100.100.200 (Alibaba Cloud) sits in the CGNAT block and 168.63.129.16 (Azure's platform
 * address) in public space, so they are named here.
 */
const IPV4_METADATA: readonly number[] = [ipv4(169, 254, 169, 254), ipv4(169, 254, 170, 2), ipv4(100, 100, 100, 200), ipv4(168, 63, 129, 16)];

/** Other non-public IPv4 blocks (IANA special-purpose registry, plus multicast/reserved). */
const IPV4_RESERVED: readonly V4Block[] = [
  [ipv4(0, 0, 0, 0), 8], // "this network", includes 0.0.0.0
  [ipv4(192, 0, 0, 0), 24], // IETF protocol assignments
  [ipv4(192, 0, 2, 0), 24], // TEST-NET-1
  [ipv4(192, 88, 99, 0), 24], // 6to4 relay anycast (deprecated)
  [ipv4(198, 18, 0, 0), 15], // benchmarking
  [ipv4(198, 51, 100, 0), 24], // TEST-NET-2
  [ipv4(203, 0, 113, 0), 24], // TEST-NET-3
  [ipv4(224, 0, 0, 0), 4], // multicast
  [ipv4(240, 0, 0, 0), 4], // reserved, includes 255.255.255.255
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

function inBlock(addr: number, [base, prefix]: V4Block): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (addr & mask) >>> 0 === (base & mask) >>> 0;
}

function classifyIPv4(addr: number): AddressClass {
  if (IPV4_METADATA.includes(addr)) return 'metadata';
  if (inBlock(addr, [ipv4(169, 254, 0, 0), 16])) return 'link-local';
  if (IPV4_PRIVATE.some((c) => inBlock(addr, c))) return 'private';
  if (IPV4_RESERVED.some((c) => inBlock(addr, c))) return 'reserved';
  return 'public';
}

function v4At(b: Uint8Array, offset: number): number {
  return (((b[offset] ?? 0) << 24) >>> 0) + ((b[offset + 1] ?? 0) << 16) + ((b[offset + 2] ?? 0) << 8) + (b[offset + 3] ?? 0);
}

function zeros(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}

/** An address translated to IPv4 by a gateway: only a public one is acceptable (a private one is reached through someone else's gateway). */
function translated(v4: number): AddressClass {
  const inner = classifyIPv4(v4);
  return inner === 'public' || inner === 'metadata' ? inner : 'reserved';
}

function classifyIPv6(b: Uint8Array): AddressClass {
  const g0 = ((b[0] ?? 0) << 8) | (b[1] ?? 0);
  const g1 = ((b[2] ?? 0) << 8) | (b[3] ?? 0);
  // ::ffff:a.b.c.d (IPv4-mapped): the socket talks to the IPv4 address itself.
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return classifyIPv4(v4At(b, 12));
  // 64:ff9b::/96 (NAT64 well-known prefix).
  if (g0 === 0x0064 && g1 === 0xff9b && zeros(b, 4, 12)) return translated(v4At(b, 12));
  // ::1 loopback.
  if (zeros(b, 0, 15) && b[15] === 1) return 'private';
  // fd00:ec2::254, AWS's instance metadata over IPv6 (inside fc00::/7).
  if (g0 === 0xfd00 && g1 === 0x0ec2 && zeros(b, 4, 14) && b[14] === 0x02 && b[15] === 0x54) return 'metadata';
  // fc00::/7 unique local addresses: IPv6's private networks.
  if ((g0 & 0xfe00) === 0xfc00) return 'private';
  // fe80::/10 link-local.
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  // Anything else outside global unicast 2000::/3: ::, deprecated IPv4-compatible ::a.b.c.d,
  // fec0::/10 (deprecated site-local), ff00::/8 multicast, 100::/64 discard, ...
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  // 2001::/23 IETF protocol assignments (Teredo 2001::/32, ORCHID, ...).
  if (g0 === 0x2001 && g1 < 0x0200) return 'reserved';
  // 2001:db8::/32 documentation.
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved';
  // 3fff::/20 documentation (RFC 9637).
  if (g0 === 0x3fff && g1 < 0x1000) return 'reserved';
  // 2002::/16 6to4: judged by the embedded IPv4 address.
  if (g0 === 0x2002) return translated(v4At(b, 2));
  return 'public';
}

/** What kind of address `ip` is; unparseable input is `reserved` (fail closed). */
export function classifyAddress(ip: string): AddressClass {
  if (typeof ip !== 'string') return 'reserved';
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const v4 = parseIPv4(text);
  if (v4 !== null) return classifyIPv4(v4);
  const v6 = parseIPv6(text);
  if (v6 !== null) return classifyIPv6(v6);
  return 'reserved';
}

/**
 * True when `ip` is not a publicly routable unicast address: loopback,
 * private, link-local, metadata, unspecified, CGNAT, multicast, documentation,
 * reserved, or an IPv6 form embedding one of those. Unparseable input is
 * reported as private (fail closed).
 */
export function isPrivateAddress(ip: string): boolean {
  return classifyAddress(ip) !== 'public';
}

/** WEBHOOK_ALLOWED_NETWORKS, parsed once; entries that do not parse open nothing (the configuration check reports them, fpa.E019). */
export class AllowedNetworks {
  private readonly networks: Cidr[];

  constructor(entries: readonly string[]) {
    this.networks = [];
    for (const entry of entries) {
      const parsed = parseCidr(entry);
      if (parsed.ok) this.networks.push(parsed.network);
    }
  }

  get size(): number {
    return this.networks.length;
  }

  /** Whether a listed network holds `ip`. */
  holds(ip: string): boolean {
    const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
    return this.networks.some((n) => cidrContains(n, text));
  }
}

/** Whether a webhook may be sent to `ip` under these options (see the module comment). */
export function acceptableAddress(ip: string, options: Pick<CheckWebhookUrlOptions, 'allowPrivateNetworks' | 'allowedNetworks'>): boolean {
  const kind = classifyAddress(ip);
  if (kind === 'public') return true;
  if (kind !== 'private') return false;
  return options.allowPrivateNetworks || (options.allowedNetworks?.holds(ip) ?? false);
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
  const lowered = host.toLowerCase().replace(/\.$/, '');
  let addresses: string[];
  if (literal) {
    addresses = [host];
  } else if (lowered === 'localhost' || lowered.endsWith('.localhost')) {
    // Loopback by definition (RFC 6761), whatever a resolver says: judged (and pinned) as 127.0.0.1.
    addresses = ['127.0.0.1'];
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
  const refused = addresses.find((a) => !acceptableAddress(a, options));
  if (refused !== undefined) return { ok: false, reason: reasonFor(classifyAddress(refused)) };
  if (options.httpsAcrossTheInternet && parsed.protocol === 'http:' && addresses.some((a) => classifyAddress(a) === 'public')) {
    return { ok: false, reason: 'plain http is accepted only for a receiver on a private network (WEBHOOK_ALLOWED_NETWORKS): use https' };
  }
  return { ok: true, url: parsed, addresses: [...addresses] };
}

function reasonFor(kind: AddressClass): string {
  if (kind === 'private') return 'host resolves to a private or loopback address outside WEBHOOK_ALLOWED_NETWORKS';
  if (kind === 'link-local' || kind === 'metadata') return `host resolves to a ${kind} address (never allowed)`;
  return 'host resolves to a private or reserved address';
}
