/**
 * Address texts an administrator names (`POST devices/{sn}/confirm-address/`): one IPv4 or IPv6
 * address, compared as an address, not as text (src/platform/net/ip.ts).
 */
import { describe, expect, test } from 'bun:test';
import { isIpAddress, sameAddress } from '../../src/platform/net/ip';

describe('isIpAddress', () => {
  test('one IPv4 or IPv6 address', () => {
    for (const text of ['192.168.7.23', '127.0.0.1', '::1', 'fe80::1', '::ffff:10.0.0.7', '2001:db8::8a2e:370:7334', ' 10.0.0.1 ']) {
      expect(isIpAddress(text)).toBe(true);
    }
  });

  test('not a name, a network, a shorthand or an empty text', () => {
    for (const text of ['', 'terminal.example.com', '10.0.0.0/24', '127.0.0.256', '10.1', '010.0.0.1', '1.2.3.4.5', ':::1', 'fd00::/8']) {
      expect(isIpAddress(text)).toBe(false);
    }
  });
});

describe('sameAddress', () => {
  test('the same address however it is written', () => {
    expect(sameAddress('10.0.0.7', '10.0.0.7')).toBe(true);
    expect(sameAddress('::ffff:10.0.0.7', '10.0.0.7')).toBe(true);
    expect(sameAddress('::1', '0:0:0:0:0:0:0:1')).toBe(true);
    expect(sameAddress('FE80::A', 'fe80::a')).toBe(true);
  });

  test('another address, or a text that is none', () => {
    expect(sameAddress('10.0.0.7', '10.0.0.9')).toBe(false);
    expect(sameAddress('::1', '127.0.0.1')).toBe(false);
    expect(sameAddress('nonsense', 'nonsense')).toBe(false);
  });
});
