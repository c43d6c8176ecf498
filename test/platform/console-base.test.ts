/** Where printed links open: CONSOLE_URL, else the address the server listens on as people reach it. */
import { describe, expect, test } from 'bun:test';
import { consoleBaseOf } from '../../src/app/console-base';
import { lanAddress, reachableHost } from '../../src/platform/net/lan';

describe('consoleBaseOf', () => {
  test('a server bound to loopback (behind a proxy) gets links to loopback, not the LAN address', () => {
    expect(consoleBaseOf({ CONSOLE_URL: '', HOST: '127.0.0.1' }, 3114)).toBe('http://127.0.0.1:3114');
  });

  test('every interface: the LAN address (loopback on a machine without one)', () => {
    expect(consoleBaseOf({ CONSOLE_URL: '', HOST: '0.0.0.0' }, 3000)).toBe(`http://${lanAddress() ?? '127.0.0.1'}:3000`);
    expect(reachableHost('::')).toBe(lanAddress() ?? '127.0.0.1');
  });

  test('an IPv6 address is bracketed, as a URL wants it', () => {
    expect(consoleBaseOf({ CONSOLE_URL: '', HOST: 'fd00::5' }, 3000)).toBe('http://[fd00::5]:3000');
  });

  test('CONSOLE_URL wins, without its /console', () => {
    expect(consoleBaseOf({ CONSOLE_URL: 'https://hr.example.com/att/console/', HOST: '127.0.0.1' }, 3000)).toBe('https://hr.example.com/att');
  });
});
