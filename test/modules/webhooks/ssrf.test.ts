import { describe, expect, test } from 'bun:test';
import { isIP } from 'node:net';
import fc from 'fast-check';
import { AllowedNetworks, checkWebhookUrl, isPrivateAddress, type Resolver } from '../../../src/modules/webhooks/ssrf';
import { parseIPv6 } from '../../../src/platform/net/ip';

const PRIVATE = [
  // IPv4
  '0.0.0.0',
  '0.1.2.3',
  '10.0.0.1',
  '10.255.255.255',
  '100.64.0.1',
  '100.127.255.255',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8',
  '192.0.2.10',
  '192.168.1.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv6
  '::',
  '::1',
  '0:0:0:0:0:0:0:1',
  'fc00::1',
  'fd12:3456:789a::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'fec0::1',
  'ff02::1',
  'ff0e::101',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.1.2.3',
  '::ffff:169.254.169.254',
  '::ffff:192.168.0.1',
  '::ffff:100.64.0.1',
  '::ffff:0.0.0.0',
  '::127.0.0.1',
  '::8.8.8.8',
  '64:ff9b::10.0.0.1',
  '64:ff9b::7f00:1',
  '2002:7f00:1::1',
  '2002:c0a8:101::',
  '2001:db8::1',
  '2001::1',
  '2001:10::1',
  '3fff::1',
  '100::1',
  '[::1]',
  // not addresses at all: fail closed
  '',
  'localhost',
  'example.com',
  '1.2.3',
  '01.2.3.4',
  '256.1.1.1',
  '1:2:3:4:5:6:7:8:9',
  '1::2::3',
  '::ffff:1.2.3.256',
  'fe80::1%',
];

const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '126.255.255.255',
  '128.0.0.1',
  '169.253.255.255',
  '172.15.255.255',
  '172.32.0.1',
  '192.0.1.1',
  '192.167.255.255',
  '192.169.0.1',
  '198.17.255.255',
  '198.20.0.1',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:82b::200e',
  '2001:200::1',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
  '2001:0db9::1',
];

describe('isPrivateAddress', () => {
  test.each(PRIVATE)('%p is private/refused', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });
  test.each(PUBLIC)('%p is public', (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });

  test('IPv6 parser agrees with node:net on validity', () => {
    const hex = fc.constantFrom(...'0123456789abcdefABCDEF:.%');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: hex, maxLength: 45 }), fc.ipV6(), fc.ipV4Extended()), (s) => {
        const ours = parseIPv6(s) !== null;
        const node = isIP(s) === 6;
        if (!s.includes('%')) expect(ours).toBe(node);
      }),
      { numRuns: 2000 },
    );
  });

  test('every generated IPv6 address parses and every IPv4 address is classified', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.ipV4(), (v6, v4) => {
        expect(parseIPv6(v6)).not.toBeNull();
        expect(typeof isPrivateAddress(v4)).toBe('boolean');
        // IPv4-mapped form is classified like the IPv4 address itself.
        expect(isPrivateAddress(`::ffff:${v4}`)).toBe(isPrivateAddress(v4));
      }),
      { numRuns: 1000 },
    );
  });
});

function resolverFrom(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string): Promise<string[]> => {
    calls.push(host);
    const hit = table[host];
    if (hit === undefined) throw new Error('ENOTFOUND');
    return hit;
  };
  return Object.assign(fn, { calls });
}

describe('checkWebhookUrl', () => {
  const resolve = resolverFrom({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'mapped.example.com': ['::ffff:169.254.169.254'],
    'empty.example.com': [],
    'junk.example.com': ['not-an-ip'],
  });
  const strict = { allowPrivateNetworks: false, resolve };

  test.each([
    ['https://hooks.example.com/webhooks', true],
    ['http://hooks.example.com:8080/x?y=1', true],
    ['https://HOOKS.example.com/', true],
    ['https://internal.example.com/', false],
    ['https://mixed.example.com/', false],
    ['https://mapped.example.com/', false],
    ['https://empty.example.com/', false],
    ['https://junk.example.com/', false],
    ['https://nxdomain.example.com/', false],
    ['https://8.8.8.8/hook', true],
    ['https://[2606:4700:4700::1111]/hook', true],
    ['http://127.0.0.1/', false],
    ['http://127.1/', false],
    ['http://0x7f000001/', false],
    ['http://2130706433/', false],
    ['http://0/', false],
    ['http://[::1]/', false],
    ['http://[::ffff:127.0.0.1]/', false],
    ['http://[fe80::1]/', false],
    ['http://169.254.169.254/latest/meta-data', false],
    ['http://localhost:3000/', false],
    ['http://api.localhost/', false],
    ['http://localhost./', false],
    ['ftp://hooks.example.com/', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['gopher://hooks.example.com/', false],
    ['https://user:pass@hooks.example.com/', false],
    ['https://user@hooks.example.com/', false],
    ['not a url', false],
    ['/relative/path', false],
    ['', false],
  ])('%p -> %p', async (url, expected) => {
    const r = await checkWebhookUrl(url, strict);
    expect(r.ok).toBe(expected);
    if (!r.ok) expect(r.reason.length).toBeGreaterThan(0);
  });

  test('returns the parsed URL and the vetted addresses', async () => {
    const r = await checkWebhookUrl('https://hooks.example.com/a', strict);
    if (!r.ok) throw new Error(r.reason);
    expect(r.url.href).toBe('https://hooks.example.com/a');
    expect(r.addresses).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  test('IP literals are not sent to the resolver', async () => {
    const own = resolverFrom({});
    await checkWebhookUrl('https://8.8.8.8/', { allowPrivateNetworks: false, resolve: own });
    await checkWebhookUrl('https://[::1]/', { allowPrivateNetworks: false, resolve: own });
    expect(own.calls).toEqual([]);
  });

  test('allowPrivateNetworks permits private targets but still checks scheme and credentials', async () => {
    const lax = { allowPrivateNetworks: true, resolve };
    for (const url of ['http://localhost:3000/', 'http://10.0.0.1/', 'http://[::1]/', 'https://internal.example.com/']) {
      expect((await checkWebhookUrl(url, lax)).ok).toBe(true);
    }
    expect((await checkWebhookUrl('ftp://10.0.0.1/', lax)).ok).toBe(false);
    expect((await checkWebhookUrl('http://u:p@10.0.0.1/', lax)).ok).toBe(false);
  });

  test('reasons do not leak credentials', async () => {
    const r = await checkWebhookUrl('https://admin:hunter2@hooks.example.com/', strict);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).not.toContain('hunter2');
  });

  test('httpsAcrossTheInternet: plain http only for a receiver on an allowed private network', async () => {
    const options = { allowPrivateNetworks: false, allowedNetworks: new AllowedNetworks(['10.0.0.0/8']), resolve, httpsAcrossTheInternet: true };
    const plainPublic = await checkWebhookUrl('http://hooks.example.com/x', options);
    expect(plainPublic).toMatchObject({ ok: false, reason: expect.stringContaining('use https') });
    expect((await checkWebhookUrl('http://93.184.216.34:22/x', options)).ok).toBe(false);
    expect((await checkWebhookUrl('https://hooks.example.com/x', options)).ok).toBe(true);
    expect((await checkWebhookUrl('http://internal.example.com/x', options)).ok).toBe(true);
    // Without the option (a delivery's check), an endpoint added before keeps being delivered to.
    expect((await checkWebhookUrl('http://hooks.example.com/x', { ...options, httpsAcrossTheInternet: false })).ok).toBe(true);
  });
});
