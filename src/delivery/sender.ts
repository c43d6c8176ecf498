/**
 * The one HTTP call of webhook delivery, injectable so hosts and tests can vary it. Follows no
 * redirect (a 3xx is a failure: a redirect could point anywhere, including inside the
 * network the SSRF check protects) and gives up after the timeout.
 */

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
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
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
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
