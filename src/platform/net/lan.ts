/** The machine's address on its local network, for what people type into terminals and browsers. */
import { networkInterfaces } from 'node:os';

/** The first non-internal IPv4 address, or null on a machine with none (then loopback is all there is). */
export function lanAddress(): string | null {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}

/**
 * The address people reach a server listening on `host` at: the LAN address when it listens on
 * every interface, else the one it listens on (127.0.0.1 behind a proxy: a link elsewhere would
 * not open).
 */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return lanAddress() ?? '127.0.0.1';
  // An IPv6 address goes in brackets in a URL (`http://[fd00::5]:3000/`).
  return host.includes(':') ? `[${host}]` : host;
}
