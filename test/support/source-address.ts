/**
 * Requests from another source address on loopback (`127.0.0.2`): what a second machine on the
 * office network, or a terminal that moved, looks like to the server. Bun's fetch cannot choose
 * its source address; node:http can (`localAddress`). `fetchFrom` has fetch's shape, so a
 * SimulatedTerminal (its `fetch` option) speaks from that address.
 */
import http from 'node:http';

export const SECOND_ADDRESS = '127.0.0.2';

/** A fetch that connects from `localAddress` (plain HTTP, one request per connection, as terminals do). */
export function fetchFrom(localAddress: string): typeof fetch {
  const impl = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init.body === undefined || init.body === null ? null : new Uint8Array(await new Response(init.body).arrayBuffer());
    if (body) headers['content-length'] = String(body.byteLength);
    headers.connection = 'close';
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: init.method ?? 'GET',
          headers,
          localAddress,
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const out = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: out }));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
  };
  return impl as typeof fetch;
}
