/**
 * The webhook outbox: one row per (punch, endpoint subscribed to `punch_received`), written
 * inside the transaction that stores the punches, so a punch is never committed without its
 * messages nor a message without its punch. An endpoint that is disabled gets its rows `held`:
 * nothing is sent, and enabling it releases them (punches are not lost while it is off).
 */
import type { Tx } from '../../platform/db/client';
import { webhookEndpoints, webhookOutbox } from '../../app/schema';
import type { DeviceRef } from '../events/bus';
import type { PunchRow } from '../punches/service';
import { punchView, type PunchView } from '../punches/view';

export const WEBHOOK_EVENTS = ['punch_received'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The Standard Webhooks body of one punch (also what a receiver verifies the signature of). */
export interface PunchMessageBody {
  type: 'punch_received';
  timestamp: string;
  data: { punch: PunchView; sender: DeviceRef };
}

const INSERT_CHUNK = 500;

export function punchMessageBody(row: PunchRow): string {
  const body: PunchMessageBody = {
    type: 'punch_received',
    timestamp: new Date(row.receivedAt).toISOString(),
    data: { punch: punchView(row), sender: { id: row.deviceId, serial_number: row.deviceSerial } },
  };
  return JSON.stringify(body);
}

/** A message id: usable as `webhook-id` (no '.', no spaces) and stable across retries. */
export function newMessageId(): string {
  return `msg_${crypto.randomUUID().replaceAll('-', '')}`;
}

/** Writes the outbox rows of newly inserted punches; returns how many. */
export async function writePunchMessages(tx: Tx, rows: PunchRow[], now: number): Promise<number> {
  if (rows.length === 0) return 0;
  const endpoints = await tx
    .select({ id: webhookEndpoints.id, events: webhookEndpoints.events, active: webhookEndpoints.active })
    .from(webhookEndpoints);
  const subscribed = endpoints.filter((e) => e.events.includes('punch_received'));
  if (subscribed.length === 0) return 0;
  const values: Array<typeof webhookOutbox.$inferInsert> = [];
  for (const row of rows) {
    const payload = punchMessageBody(row);
    for (const endpoint of subscribed) {
      values.push({
        id: newMessageId(),
        endpointId: endpoint.id,
        eventType: 'punch_received',
        payload,
        punchSequence: row.sequence,
        status: endpoint.active ? 'pending' : 'held',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
      });
    }
  }
  for (let i = 0; i < values.length; i += INSERT_CHUNK) {
    await tx.insert(webhookOutbox).values(values.slice(i, i + INSERT_CHUNK));
  }
  return values.length;
}
