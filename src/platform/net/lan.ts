/** The machine's address on its local network, for what people type into terminals and browsers. */
import { networkInterfaces } from 'node:os';

/** The first non-internal IPv4 address, or null on a machine with none (then loopback is all there is). */
export function lanAddress(): string | null {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}
