/**
 * The address of the client behind a request: the one place that decides it (the console's
 * sign-in limit per address, the second-factor step). The socket peer, unless CONSOLE_TRUST_PROXY
 * says a proxy we control is in front: then the LAST entry of X-Forwarded-For, the address that
 * proxy appended for the peer it saw. Every earlier entry is whatever the client sent (nginx's
 * `$proxy_add_x_forwarded_for` and Caddy keep it and append), so believing the first let a client
 * choose its own address: lock out someone else's, or spray passwords from a new one each time.
 * A last entry that is not an IP address (`unknown`, a port, garbage) is not believed either: the
 * socket peer counts. Terminals are not asked this: their pinning stays on the TCP peer.
 */
import type { Server } from 'bun';
import { parseIPv4, parseIPv6 } from '../net/ip';
import { peerAddress } from './routable-url';

/** The last X-Forwarded-For entry when it is an IP address; null otherwise. */
function appendedByProxy(request: Request): string | null {
  // Several X-Forwarded-For lines arrive joined by `, ` in order: the last line's last entry is still the proxy's.
  const last = request.headers.get('x-forwarded-for')?.split(',').pop()?.trim() ?? '';
  return parseIPv4(last) !== null || parseIPv6(last) !== null ? last : null;
}

/** The client's address: the proxy's last X-Forwarded-For entry when `trustProxy`, else (or when that is no address) the socket peer. */
export function clientAddress(server: Server<unknown> | null | undefined, request: Request, trustProxy: boolean): string | null {
  return (trustProxy && appendedByProxy(request)) || peerAddress(server, request);
}
