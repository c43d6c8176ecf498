/**
 * The webhook outbox: one row per (punch, endpoint subscribed to `punch_received`), written
 * inside the transaction that stores the punches, so a punch is never committed without its
 * messages nor a message without its punch. An endpoint that is disabled gets its rows `held`:
 * nothing is sent, and enabling it releases them (punches are not lost while it is off).
 */

import { chunks } from '../../platform/chunks';
import type { Tx } from '../../platform/db/client';
import type { LoggedEvent } from '../events';
import type { PunchEvents } from '../punches';
import { webhookEndpoints, webhookOutbox } from './tables';

export const WEBHOOK_EVENTS = ['punch_received'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The Standard Webhooks body of one punch (also what a receiver verifies the signature of). */
export interface PunchMessageBody {
  type: 'punch_received';
  timestamp: string;
  data: PunchEvents['punch_received'];
}

const INSERT_CHUNK = 500;

export function punchMessageBody(data: PunchEvents['punch_received']): string {
  const body: PunchMessageBody = { type: 'punch_received', timestamp: data.punch.received_at, data };
  return JSON.stringify(body);
}

/** A message id: usable as `webhook-id` (no '.', no spaces) and stable across retries. */
export function newMessageId(): string {
  return `msg_${crypto.randomUUID().replaceAll('-', '')}`;
}

/** Writes the outbox rows of newly inserted punches; returns how many. */
export async function writePunchMessages(tx: Tx, events: readonly LoggedEvent<string, PunchEvents['punch_received']>[], now: number): Promise<number> {
  if (events.length === 0) return 0;
  const endpoints = await tx.select({ id: webhookEndpoints.id, events: webhookEndpoints.events, active: webhookEndpoints.active }).from(webhookEndpoints);
  const subscribed = endpoints.filter((e) => e.events.includes('punch_received'));
  if (subscribed.length === 0) return 0;
  const values: Array<typeof webhookOutbox.$inferInsert> = [];
  for (const { data } of events) {
    const payload = punchMessageBody(data);
    for (const endpoint of subscribed) {
      values.push({
        id: newMessageId(),
        endpointId: endpoint.id,
        eventType: 'punch_received',
        payload,
        punchSequence: data.punch.sequence,
        status: endpoint.active ? 'pending' : 'held',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
      });
    }
  }
  for (const chunk of chunks(values, INSERT_CHUNK)) await tx.insert(webhookOutbox).values(chunk);
  return values.length;
}
