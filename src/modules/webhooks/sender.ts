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

/**
 * Why no answer came, in words an integrator reads in `deliveries/` and `last_error`: the system
 * code Bun gives kept in brackets (what to search for), Bun's own text and its advice to a
 * programmer ("pass `verbose: true` in the second argument to fetch()") left out.
 */
export function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `timed out after ${durationWords(timeoutMs)}`;
  const code = codeOf(error);
  const words = code ? FAILURE_WORDS[code] : undefined;
  if (code && words) return `${words} (${code})`;
  const message = (error instanceof Error ? error.message : String(error))
    .replace(/\s*For more information, pass `verbose: true`[^.]*\.?/, '')
    .replace(code ? new RegExp(`^${code}:\\s*`) : /^$/, '')
    .trim()
    .replace(/\.$/, '');
  const text = (message || 'the request failed').slice(0, MAX_ERROR_LENGTH);
  return code ? `${text} (${code})` : text;
}

/** The system (or TLS) error code of a failed fetch: `ECONNRESET`, `ENOTFOUND`, `CERT_HAS_EXPIRED`. */
function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? code : null;
}

/** 10000 → "10 s", 1500 → "1.5 s", 300 → "300 ms". */
function durationWords(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Number((ms / 1_000).toFixed(1))} s`;
}

const UNTRUSTED = 'the receiver’s TLS certificate is not trusted';

/** The codes Bun's fetch fails with, each in plain words (the code follows in brackets). */
const FAILURE_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'could not connect',
  ECONNRESET: 'the receiver closed the connection',
  EPIPE: 'the receiver closed the connection',
  ECONNABORTED: 'the connection was aborted',
  ETIMEDOUT: 'could not connect: the connection timed out',
  EHOSTUNREACH: 'could not connect: the host is unreachable',
  ENETUNREACH: 'could not connect: the network is unreachable',
  EADDRNOTAVAIL: 'could not connect: the address is not available',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved: DNS did not answer',
  EPROTO: 'the TLS handshake failed: does the receiver speak https on that port?',
  DEPTH_ZERO_SELF_SIGNED_CERT: `${UNTRUSTED}: it is self-signed`,
  SELF_SIGNED_CERT_IN_CHAIN: `${UNTRUSTED}: its chain ends in a self-signed certificate`,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: `${UNTRUSTED}: its issuer is unknown (or the chain sent is incomplete)`,
  UNABLE_TO_GET_ISSUER_CERT: `${UNTRUSTED}: its issuer is unknown (or the chain sent is incomplete)`,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: `${UNTRUSTED}: its issuer is unknown (or the chain sent is incomplete)`,
  CERT_HAS_EXPIRED: `${UNTRUSTED}: it has expired`,
  CERT_NOT_YET_VALID: `${UNTRUSTED}: it is not valid yet`,
  ERR_TLS_CERT_ALTNAME_INVALID: `${UNTRUSTED}: it is for another host name`,
};
