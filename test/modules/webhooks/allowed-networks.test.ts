/**
 * WEBHOOK_ALLOWED_NETWORKS: the CIDR parser (strict, never throws on any text), containment
 * against a reference computed with BigInt, and the policy: a listed network opens its private
 * and loopback addresses only; link-local, metadata and reserved addresses stay refused, also
 * under the old WEBHOOK_ALLOW_PRIVATE_NETWORKS switch.
 */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { AllowedNetworks, acceptableAddress, checkWebhookUrl, classifyAddress, type Resolver } from '../../../src/modules/webhooks/ssrf';
import { checkConfiguration } from '../../../src/platform/config/check';
import { loadSettings } from '../../../src/platform/config/settings';
import { cidrContains, parseCidr, parseIPv4, parseIPv6 } from '../../../src/platform/net/ip';

/** An address as a 128-bit number (IPv4 as its IPv4-mapped IPv6 form). */
function big(ip: string): bigint {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return (0xffffn << 32n) | BigInt(v4);
  const b = parseIPv6(ip)!;
  return b.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

function referenceContains(base: string, prefix: number, ip: string): boolean {
  const isV4 = parseIPv4(base) !== null;
  const bits = BigInt(isV4 ? prefix + 96 : prefix);
  const shift = 128n - bits;
  return big(base) >> shift === big(ip) >> shift;
}

const v4Text = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));

describe('parseCidr', () => {
  test.each([
    ['10.0.0.0/8', true],
    ['127.0.0.1/32', true],
    ['127.0.0.1', true],
    ['0.0.0.0/0', true],
    ['fd12:3456::/48', true],
    ['::1', true],
    ['::/0', true],
    [' 192.168.0.0/16 ', true],
    ['10.0.0.1/8', false],
    ['fd00::1/8', false],
    ['10.0.0.0/33', false],
    ['::/129', false],
    ['10.0.0.0/', false],
    ['10.0.0.0/08', false],
    ['10.0.0.0/-1', false],
    ['10.0.0/8', false],
    ['fe80::1%eth0/128', false],
    ['::ffff:10.0.0.0/104', false],
    ['example.com/8', false],
    ['', false],
  ])('%p -> %p', (text, ok) => {
    expect(parseCidr(text).ok).toBe(ok);
  });

  test('the error names the network meant when bits are set after the prefix', () => {
    expect(parseCidr('10.1.2.3/8')).toEqual({ ok: false, error: expect.stringContaining('10.0.0.0/8') });
    expect(parseCidr('2001:db8:0:1::/48')).toEqual({ ok: false, error: expect.stringContaining('2001:db8::/48') });
  });

  test('any text: an answer, never a throw; what it accepts re-parses to the same network', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: fc.constantFrom(...'0123456789abcdef:./%'), maxLength: 50 })), (text) => {
        const parsed = parseCidr(text);
        if (parsed.ok) expect(parseCidr(text.trim()).ok).toBe(true);
        else expect(parsed.error.length).toBeGreaterThan(0);
      }),
      { numRuns: 3000 },
    );
  });

  test('IPv4 containment agrees with a BigInt reference, also for the IPv4-mapped form', () => {
    fc.assert(
      fc.property(v4Text, fc.nat(32), v4Text, (address, prefix, probe) => {
        // The network of `address` at `prefix`, written with its host bits cleared.
        const n = parseIPv4(address)!;
        const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
        const baseNum = (n & mask) >>> 0;
        const base = [baseNum >>> 24, (baseNum >>> 16) & 255, (baseNum >>> 8) & 255, baseNum & 255].join('.');
        const parsed = parseCidr(`${base}/${prefix}`);
        if (!parsed.ok) throw new Error(parsed.error);
        const expected = referenceContains(base, prefix, probe);
        expect(cidrContains(parsed.network, probe)).toBe(expected);
        expect(cidrContains(parsed.network, `::ffff:${probe}`)).toBe(expected);
        expect(cidrContains(parsed.network, address)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  test('IPv6 containment agrees with a BigInt reference', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.nat(128), fc.ipV6(), (address, prefix, probe) => {
        const all = (1n << 128n) - 1n;
        const mask = prefix === 0 ? 0n : (all << BigInt(128 - prefix)) & all;
        const baseNum = big(address) & mask;
        const groups: string[] = [];
        for (let i = 7; i >= 0; i--) groups.push(((baseNum >> BigInt(i * 16)) & 0xffffn).toString(16));
        const base = groups.join(':');
        const parsed = parseCidr(`${base}/${prefix}`);
        if (!parsed.ok) throw new Error(`${base}/${prefix}: ${parsed.error}`);
        expect(cidrContains(parsed.network, probe)).toBe(referenceContains(base, prefix, probe));
        expect(cidrContains(parsed.network, address)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the policy', () => {
  const loopback = new AllowedNetworks(['127.0.0.0/8']);
  const wide = new AllowedNetworks(['0.0.0.0/0', '::/0']);

  test('a listed network opens its private and loopback addresses, and nothing else private', () => {
    const options = { allowPrivateNetworks: false, allowedNetworks: loopback };
    expect(acceptableAddress('127.0.0.1', options)).toBe(true);
    expect(acceptableAddress('127.8.9.10', options)).toBe(true);
    expect(acceptableAddress('::ffff:127.0.0.1', options)).toBe(true);
    expect(acceptableAddress('10.0.0.1', options)).toBe(false);
    expect(acceptableAddress('::1', options)).toBe(false);
    expect(acceptableAddress('8.8.8.8', options)).toBe(true);
  });

  test('link-local, metadata and reserved addresses stay refused, even inside a listed network and under the old switch', () => {
    for (const allowPrivateNetworks of [false, true]) {
      const options = { allowPrivateNetworks, allowedNetworks: wide };
      for (const ip of [
        '169.254.169.254',
        '169.254.170.2',
        '169.254.1.1',
        '100.100.100.200',
        '168.63.129.16',
        'fe80::1',
        'fd00:ec2::254',
        '::ffff:169.254.169.254',
        '0.0.0.0',
        '224.0.0.1',
        '255.255.255.255',
        '192.0.2.1',
        '::',
        'ff02::1',
        '64:ff9b::10.0.0.1',
        '2002:7f00:1::1',
        'not an address',
      ]) {
        expect([ip, acceptableAddress(ip, options)]).toEqual([ip, false]);
      }
    }
  });

  test('every private or loopback address is opened by 0.0.0.0/0 + ::/0 or the old switch; the rest are not', () => {
    fc.assert(
      fc.property(fc.oneof(v4Text, fc.ipV6()), (ip) => {
        const kind = classifyAddress(ip);
        const open = kind === 'public' || kind === 'private';
        expect(acceptableAddress(ip, { allowPrivateNetworks: false, allowedNetworks: wide })).toBe(open);
        expect(acceptableAddress(ip, { allowPrivateNetworks: true })).toBe(open);
        expect(acceptableAddress(ip, { allowPrivateNetworks: false })).toBe(kind === 'public');
      }),
      { numRuns: 3000 },
    );
  });

  test('at the URL: a name resolving to a listed private address passes; one also resolving outside it does not', async () => {
    const table: Record<string, string[]> = {
      'hooks.corp.example': ['10.20.0.7'],
      'split.corp.example': ['10.20.0.7', '10.30.0.1'],
      'meta.corp.example': ['169.254.169.254'],
    };
    const resolve: Resolver = async (host) => table[host] ?? [];
    const options = { allowPrivateNetworks: false, allowedNetworks: new AllowedNetworks(['10.20.0.0/16']), resolve };
    expect(await checkWebhookUrl('https://hooks.corp.example/x', options)).toMatchObject({ ok: true, addresses: ['10.20.0.7'] });
    expect(await checkWebhookUrl('https://split.corp.example/x', options)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('WEBHOOK_ALLOWED_NETWORKS'),
    });
    expect(await checkWebhookUrl('https://meta.corp.example/x', { ...options, allowPrivateNetworks: true })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('never allowed'),
    });
    // localhost is loopback whatever a resolver says, pinned to 127.0.0.1.
    expect(await checkWebhookUrl('http://localhost:8080/x', { ...options, allowedNetworks: loopback })).toMatchObject({ ok: true, addresses: ['127.0.0.1'] });
    expect((await checkWebhookUrl('http://localhost:8080/x', options)).ok).toBe(false);
  });
});

describe('configuration check', () => {
  const base = { TEMPLATE_ENCRYPTION_KEYS: ['k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='], ADMIN_JWT_SECRET: 'x'.repeat(40) };
  const codesOf = (env: Record<string, string>) => checkConfiguration({ loaded: loadSettings(base, env) });

  test('a malformed entry is fpa.E019, naming it; valid networks pass', () => {
    const issues = codesOf({ FPA_WEBHOOK_ALLOWED_NETWORKS: '10.20.0.0/16,fd12:3456::/48,127.0.0.1/32,10.0.0.1/8,intranet' });
    const e019 = issues.filter((i) => i.code === 'fpa.E019');
    expect(e019.map((i) => i.message)).toEqual([expect.stringContaining('"10.0.0.1/8"'), expect.stringContaining('"intranet"')]);
    expect(e019[0]!.message).toContain('10.0.0.0/8');
    expect(codesOf({ FPA_WEBHOOK_ALLOWED_NETWORKS: '10.20.0.0/16,::1' }).map((i) => i.code)).not.toContain('fpa.E019');
  });

  test('the old switch warns (W002) and points at the CIDR setting', () => {
    const w002 = codesOf({ FPA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).find((i) => i.code === 'fpa.W002');
    expect(w002?.hint).toContain('WEBHOOK_ALLOWED_NETWORKS');
  });
});
