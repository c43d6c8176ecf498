/**
 * What one write of an endpoint run records (endpoint-run.ts): the endpoint's state after it
 * (healthy, backing off, disabled), the attempt log, the dead-lettered messages, all under the
 * claim token in one transaction shared with the other endpoints worked on the same tick.
 */
import { and, eq } from 'drizzle-orm';
import type { Settings } from '../../platform/config/settings';
import type { Tx } from '../../platform/db/client';
import { audit } from '../audit';
import type { LoggedEvent } from '../events';
import { retryDelay } from './backoff';
import { errorOf, isDelivered, type Verdict } from './dispatch';
import type { WebhookResponse } from './sender';
import { webhookDeliveries, webhookEndpoints, webhookMessages } from './tables';
import type { Tries } from './tries';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** One event of a run: fetched in order, sent, answered, then handed off (or not). */
export interface Entry {
  event: LoggedEvent;
  /** The vetted address to connect to, or why the URL was refused (then nothing is sent). */
  connectTo: string | undefined;
  refused: string | null;
  response: WebhookResponse | null;
  /** What the answer means, decided when it came (it depends on the event's attempt). */
  verdict: Verdict | null;
}

/** What was handed off since the last write. */
export interface Progress {
  delivered: number;
  lastDelivered: { event: LoggedEvent; response: WebhookResponse } | null;
  dead: { event: LoggedEvent; response: WebhookResponse }[];
}

export const emptyProgress = (): Progress => ({ delivered: 0, lastDelivered: null, dead: [] });

/** Progress not written (`earlier`) followed by what was handed off since (`later`), as one. */
export function mergedProgress(earlier: Progress, later: Progress): Progress {
  return {
    delivered: earlier.delivered + later.delivered,
    lastDelivered: later.lastDelivered ?? earlier.lastDelivered,
    dead: [...earlier.dead, ...later.dead],
  };
}

/** The endpoint's columns after a write, and what they mean. */
export interface EndpointState {
  set: Partial<typeof webhookEndpoints.$inferInsert>;
  disabledReason: string | null;
  nextRetry: number | null;
}

/**
 * Where the endpoint's delivery stands as the run sees it: the attempts of its next message,
 * how many times each event after the position was sent (tries.ts), since when it has been
 * failing and why. Only a delivery the receiver accepted ends a failing period: a message
 * dead-lettered is a failure like any other.
 */
export interface RunHealth {
  attempts: number;
  tries: Tries;
  failingSince: number | null;
  lastError: string | null;
}

/**
 * The endpoint's state after a write: a 410 disables it; a failure backs it off; failing
 * continuously for WEBHOOK_DISABLE_AFTER (retryable failures and dead letters alike) disables
 * it, decided by a run that failed again (a run with nothing to send after a dead letter is
 * not a failure); else it is due again. Every write carries the run's health, so a later write never
 * undoes an earlier one.
 */
export function endpointStateAfter(input: {
  progress: Progress;
  final: boolean;
  /** The run met a failure: an endpoint is disabled by a run that still fails, never by a quiet one. */
  failedInRun: boolean;
  gone: boolean;
  failure: WebhookResponse | null;
  health: RunHealth;
  now: number;
  lease: number;
  settings: Pick<Settings, 'WEBHOOK_RETRY_BACKOFF' | 'WEBHOOK_DISABLE_AFTER'>;
}): EndpointState {
  const { progress, final, failure, health, now, settings } = input;
  const kept = { ...health, ...delivered(progress, now) };
  if (!final) return { set: { ...kept, leaseUntil: input.lease }, disabledReason: null, nextRetry: null };
  const released = { leaseUntil: null, claimToken: null };
  if (input.gone) {
    const disabledReason = 'the endpoint answered 410 Gone';
    return { set: { ...kept, ...released, active: false, disabledReason, lastError: 'HTTP 410' }, disabledReason, nextRetry: null };
  }
  const failingSince = health.failingSince;
  const disabledReason =
    input.failedInRun && failingSince !== null && now - failingSince >= settings.WEBHOOK_DISABLE_AFTER
      ? `failing continuously since ${new Date(failingSince).toISOString()}`
      : null;
  const nextRetry = failure !== null && !isDelivered(failure) ? now + retryDelay(health.attempts, settings.WEBHOOK_RETRY_BACKOFF) : null;
  const set = { ...kept, ...released, nextAttemptAt: nextRetry ?? now, ...(disabledReason ? { active: false, disabledReason } : {}) };
  return { set, disabledReason, nextRetry };
}

const delivered = (progress: Progress, now: number) => (progress.delivered > 0 ? { lastDeliveredAt: now } : {});

/** The attempt log of a write: one row per dead-lettered or failed event, one for the run of delivered ones. */
export function deliveryLog(input: {
  endpointId: string;
  progress: Progress;
  unhanded: readonly Entry[];
  state: EndpointState;
  gone: boolean;
  attemptOf: (event: LoggedEvent) => number;
  sinceLastWrite: number;
  now: number;
}): (typeof webhookDeliveries.$inferInsert)[] {
  const { endpointId, progress, attemptOf, now } = input;
  const retryAt = input.state.disabledReason || input.gone ? null : input.state.nextRetry;
  const log = progress.dead.map(({ event, response }) => attemptRow(endpointId, event.id, attemptOf(event), response, null, now));
  for (const { event, response } of input.unhanded) if (response) log.push(attemptRow(endpointId, event.id, attemptOf(event), response, retryAt, now));
  if (progress.lastDelivered) {
    log.push({
      messageId: progress.lastDelivered.event.id,
      endpointId,
      attempt: attemptOf(progress.lastDelivered.event),
      count: progress.delivered,
      statusCode: progress.lastDelivered.response.statusCode,
      error: null,
      durationMs: Math.round(input.sinceLastWrite),
      nextRetryAt: null,
      createdAt: now,
    });
  }
  return log;
}

/** The write itself, under the claim token: false when the claim had passed on (nothing written). */
export async function writeRunProgress(
  tx: Tx,
  input: {
    endpoint: EndpointRow;
    state: EndpointState;
    progress: Progress;
    deliveries: (typeof webhookDeliveries.$inferInsert)[];
    attemptOf: (event: LoggedEvent) => number;
    now: number;
  },
): Promise<boolean> {
  const { endpoint, state, progress, deliveries, attemptOf, now } = input;
  const [row] = await tx
    .update(webhookEndpoints)
    .set(state.set)
    .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.claimToken, endpoint.claimToken ?? '')))
    .returning({ id: webhookEndpoints.id });
  if (!row) return false;
  if (progress.dead.length > 0) {
    await tx
      .insert(webhookMessages)
      .values(
        progress.dead.map(({ event, response }) => ({
          endpointId: endpoint.id,
          eventSequence: event.sequence,
          eventId: event.id,
          eventType: event.type,
          eventAt: event.at,
          status: 'dead' as const,
          attempts: attemptOf(event),
          nextAttemptAt: now,
          lastError: errorOf(response),
          createdAt: now,
        })),
      )
      .onConflictDoNothing();
  }
  if (deliveries.length > 0) await tx.insert(webhookDeliveries).values(deliveries);
  if (state.disabledReason) {
    await audit(tx, now, {
      actor: 'system',
      action: 'webhook.disabled',
      targetType: 'webhook',
      targetId: endpoint.id,
      details: { reason: state.disabledReason },
    });
  }
  return true;
}

function attemptRow(
  endpointId: string,
  messageId: string,
  attempt: number,
  response: WebhookResponse,
  nextRetryAt: number | null,
  now: number,
): typeof webhookDeliveries.$inferInsert {
  return {
    messageId,
    endpointId,
    attempt,
    count: 1,
    statusCode: response.statusCode,
    error: errorOf(response),
    durationMs: response.durationMs,
    nextRetryAt,
    createdAt: now,
  };
}
