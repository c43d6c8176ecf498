/**
 * The one HTTP call of webhook delivery, injectable so hosts and tests can vary it. Follows no
 * redirect (a 3xx is a failure: a redirect could point anywhere, including inside the
 * network the SSRF check protects) and gives up after the timeout.
 *
 * With `connectTo` (an address the SSRF check vetted) the request goes to that address while
 * keeping the URL's Host header and, for https, its TLS server name (SNI and the certificate
 * check): fetch never resolves the name again, so a DNS answer changed between the check and
 * the request (rebinding) cannot redirect it inside the network.
 */

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Connect to this IP address instead of resolving the URL's host. */
  connectTo?: string;
}

export interface PinnedTarget {
  url: string;
  headers: Record<string, string>;
  /** The TLS server name to send and verify the certificate against (https only). */
  serverName?: string;
}

/** The URL rewritten to `address`, with the Host header and TLS name of the original host. */
export function pinnedTarget(url: string, address: string | undefined): PinnedTarget {
  const parsed = new URL(url);
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!address || hostname === address) return { url, headers: {} };
  const host = parsed.host;
  parsed.hostname = address.includes(':') ? `[${address}]` : address;
  return {
    url: parsed.toString(),
    headers: { host },
    // A fully qualified name's trailing dot is not part of the certificate's names.
    ...(parsed.protocol === 'https:' ? { serverName: hostname.replace(/\.$/, '') } : {}),
  };
}

export interface WebhookResponse {
  /** The receiver's HTTP status, or null when no response came (network error, timeout). */
  statusCode: number | null;
  /** Why no response came; null when one did. */
  error: string | null;
  durationMs: number;
}

export type WebhookSender = (request: WebhookRequest) => Promise<WebhookResponse>;

const MAX_ERROR_LENGTH = 300;

export const fetchSender: WebhookSender = async (request) => {
  const started = performance.now();
  try {
    const target = pinnedTarget(request.url, request.connectTo);
    const response = await fetch(target.url, {
      method: 'POST',
      headers: { ...request.headers, ...target.headers },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
      ...(target.serverName ? { tls: { serverName: target.serverName } } : {}),
    });
    // The body is not used; release the connection without reading it.
    await response.body?.cancel().catch(() => undefined);
    return { statusCode: response.status, error: null, durationMs: elapsed(started) };
  } catch (error) {
    return { statusCode: null, error: describeFailure(error, request.timeoutMs), durationMs: elapsed(started) };
  }
};

function elapsed(started: number): number {
  return Math.max(0, Math.round(performance.now() - started));
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no response within ${timeoutMs} ms`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, MAX_ERROR_LENGTH) || 'request failed';
}
