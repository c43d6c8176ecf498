/**
 * Retry timing of webhook deliveries: exponential from WEBHOOK_RETRY_BACKOFF (doubling each
 * attempt), capped, with ±20% jitter so receivers that failed together are not hit together
 * again. An endpoint's ordered delivery never gives up on a retryable failure, so the cap is
 * also how soon after a receiver comes back its backlog starts flowing again.
 */

/** No retry waits longer than this, however many attempts came before. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
const JITTER = 0.2;

/** Delay before the attempt after `failedAttempt` (1 = the first attempt failed). */
export function retryDelay(failedAttempt: number, baseMs: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(failedAttempt - 1, 40));
  const plain = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** exponent);
  const factor = 1 + (random() * 2 - 1) * JITTER;
  return Math.max(1, Math.round(plain * factor));
}
