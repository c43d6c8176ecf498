/**
 * Where a change was asked from (src/platform/http/cross-site.ts): the headers a browser sends
 * with a change another site asks for, and the service's own origin as the request, a believed
 * proxy or the configured public address name it.
 */
import { describe, expect, test } from 'bun:test';
import { changeFromElsewhere } from '../../src/platform/http/cross-site';

const settings = { CONSOLE_URL: '', CONSOLE_TRUST_PROXY: false };
const request = (method: string, headers: Record<string, string>, url = 'http://10.0.0.5:3000/api/fingerprint/v1/jobs/x/run/') =>
  new Request(url, { method, headers: { host: new URL(url).host, ...headers } });

describe('a change asked from elsewhere', () => {
  test('the service’s own origin (any case), a script without Origin, and reads are not', () => {
    expect(changeFromElsewhere(request('POST', { origin: 'http://10.0.0.5:3000' }), settings)).toBeNull();
    expect(changeFromElsewhere(request('POST', { origin: 'HTTP://10.0.0.5:3000' }), settings)).toBeNull();
    expect(changeFromElsewhere(request('DELETE', {}), settings)).toBeNull();
    expect(changeFromElsewhere(request('GET', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), settings)).toBeNull();
  });

  test('another origin, Sec-Fetch-Site: cross-site, an opaque or unreadable Origin are, on every changing method', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(changeFromElsewhere(request(method, { origin: 'https://evil.example' }), settings)).toBe('https://evil.example');
    }
    expect(changeFromElsewhere(request('POST', { 'sec-fetch-site': 'cross-site' }), settings)).toBe('another site');
    expect(changeFromElsewhere(request('POST', { origin: 'null' }), settings)).toBe('null');
    expect(changeFromElsewhere(request('POST', { origin: 'not a url' }), settings)).toBe('not a url');
    // The same host on another port is another origin.
    expect(changeFromElsewhere(request('POST', { origin: 'http://10.0.0.5:8080' }), settings)).toBe('http://10.0.0.5:8080');
  });

  test('behind a proxy that rewrites Host: the browser’s same-origin, the believed X-Forwarded-Host, or CONSOLE_URL name the service', () => {
    const proxied = (headers: Record<string, string>) => request('POST', { origin: 'https://attendance.example.com', ...headers });
    expect(changeFromElsewhere(proxied({}), settings)).toBe('https://attendance.example.com');
    expect(changeFromElsewhere(proxied({ 'sec-fetch-site': 'same-origin' }), settings)).toBeNull();
    expect(changeFromElsewhere(proxied({ 'x-forwarded-host': 'attendance.example.com' }), settings)).toBe('https://attendance.example.com');
    expect(changeFromElsewhere(proxied({ 'x-forwarded-host': 'attendance.example.com' }), { ...settings, CONSOLE_TRUST_PROXY: true })).toBeNull();
    expect(changeFromElsewhere(proxied({}), { ...settings, CONSOLE_URL: 'https://attendance.example.com/console/' })).toBeNull();
    // Sec-Fetch-Site: same-site is a sibling site: its Origin decides.
    expect(changeFromElsewhere(proxied({ 'sec-fetch-site': 'same-site' }), { ...settings, CONSOLE_URL: 'https://attendance.example.com/console/' })).toBeNull();
    expect(changeFromElsewhere(request('POST', { origin: 'https://hr.example.com', 'sec-fetch-site': 'same-site' }), settings)).toBe('https://hr.example.com');
  });
});
