/**
 * How new commands take their place in a terminal's queue: a command whose supersede key matches
 * a pending one of the same device that never went to the terminal replaces it in place (same id,
 * same place in the queue), so a renamed user's record still goes before their templates. A
 * pending command that did go out (no answer in time, or a transient error: it waits to be
 * resent) keeps its id for its own content, because the terminal may still answer that id: it is
 * superseded and the new command gets a row (and an id) of its own, at the end of the queue; the
 * same content again is that very command, unless it is a delete (a new delete never reuses one
 * that went out: see placeAmong). An unsent delete is never replaced by anything but a
 * delete: a record or template queued after it goes behind it, so the terminal first drops what
 * it should no longer hold. A delete is never superseded by a command of its key (a deletion
 * proof may wait for its answer): an unsent one is rewritten in place by a newer delete (same id,
 * still owed); one that went out stays, and a different delete of the same key queues behind it.
 * Only a person taken off a terminal (`closeKeyed`) closes an unsent delete, for the delete of
 * their whole user there, which takes its place and is announced as such (the proof follows);
 * and an accepted walk-up upload drops its refusal's delete (`supersedeRefusalDelete`), as
 * consent recorded drops those of refusals for want of it (`supersedeConsentRefusalDeletes`).
 */
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Tx } from '../../platform/db/client';
import { type CommandKind, DELETE_KINDS, type NewCommand, wentOut } from './kinds';
import { notIndexed } from './query-plans';
import { deviceCommands } from './tables';

/** SQLite bind-variable budget per `IN (...)` list. */
const IN_CHUNK = 500;

/** Where a command goes: an unsent command queued before (`id`) or a new row of this batch (`slot`). */
export type QueueRef = { id: number } | { slot: number };

/** A pending command with a given supersede key: queued before (`id`) or in this batch (`slot`). */
interface QueuedEntry {
  kind: CommandKind;
  /** Its kind and payload (contentOf): what the terminal is told under its id. */
  content: string;
  /** Whether it went to the terminal at least once: its id is then bound to its content. */
  sent: boolean;
  ref: QueueRef;
}

/** What a batch of new commands does to the queue: rows rewritten in place, closed, inserted. */
export interface QueuePlan<Values> {
  /** Never-sent commands that take a new command's values (id → values). */
  replacements: Map<number, Values>;
  /** Pending commands a newer one with their key makes pointless. */
  superseded: Set<number>;
  /** New rows, in queue order (some already superseded by a later one of the same batch). */
  inserts: Values[];
  /** Per given command, where it went. */
  targets: QueueRef[];
}

/**
 * Places `commands` in their queues (`queues`: pendingWithKeys, updated as it goes). `supersededValues`
 * gives the values of a new row that a later command of the same batch replaces.
 */
export function planQueue<Values>(
  commands: NewCommand[],
  queues: Map<string, QueuedEntry[]>,
  valuesOf: (c: NewCommand) => Values,
  supersededValues: (values: Values) => Values,
): QueuePlan<Values> {
  const plan: QueuePlan<Values> = { replacements: new Map(), superseded: new Set(), inserts: [], targets: [] };
  const supersede = (ref: QueueRef) => {
    if ('id' in ref) {
      plan.replacements.delete(ref.id);
      plan.superseded.add(ref.id);
    } else {
      plan.inserts[ref.slot] = supersededValues(plan.inserts[ref.slot]!);
    }
  };
  for (const c of commands) {
    const values = valuesOf(c);
    const content = contentOf(c.kind, c.payload);
    const pair = c.supersedeKey ? pairKey(c.deviceId, c.supersedeKey) : null;
    const queue = pair ? (queues.get(pair) ?? []) : [];
    const isDelete = DELETE_KINDS.has(c.kind);
    // A delete may take any pending place of its key; anything else only a place after the last delete.
    const start = isDelete ? 0 : queue.findLastIndex((e) => DELETE_KINDS.has(e.kind)) + 1;
    const { target, kept, closed } = placeAmong(queue.slice(start), content, isDelete);
    for (const e of closed) supersede(e.ref);
    if (target && !target.sent) {
      if ('id' in target.ref) plan.replacements.set(target.ref.id, values);
      else plan.inserts[target.ref.slot] = values;
      Object.assign(target, { kind: c.kind, content });
    }
    const placed = target ?? { kind: c.kind, content, sent: false, ref: { slot: plan.inserts.push(values) - 1 } };
    if (pair) queues.set(pair, [...queue.slice(0, start), ...kept, ...(target ? [] : [placed])]);
    plan.targets.push(placed.ref);
  }
  return plan;
}

/**
 * Among the pending commands of one key that a new command may take the place of (`range`, in
 * queue order): the one it becomes (`target`: the first never sent, rewritten in place, or, for
 * a command other than a delete, the first that went out with this very content, left as it is),
 * those that stay (`kept`, in order, the target among them) and those it supersedes (`closed`).
 * Every other delete stays: one that went out may be carried out by the terminal, and a deletion
 * proof may wait for any of them. A delete that went out is never the target of a new delete:
 * a late answer to that earlier send says nothing of what the terminal took in since (a user or
 * finger written again), so the new delete gets a row of its own at the end of the queue (sent
 * twice, the terminal answers -10 to the second, which confirms it).
 */
function placeAmong(range: QueuedEntry[], content: string, isDelete: boolean): { target: QueuedEntry | undefined; kept: QueuedEntry[]; closed: QueuedEntry[] } {
  const target = range.find((e) => !e.sent || (!isDelete && e.content === content));
  const kept: QueuedEntry[] = [];
  const closed: QueuedEntry[] = [];
  for (const e of range) (e === target || DELETE_KINDS.has(e.kind) ? kept : closed).push(e);
  return { target, kept, closed };
}

/** A command's kind and payload as one comparable text. */
function contentOf(kind: string, payload: Record<string, unknown>): string {
  return `${kind}\n${JSON.stringify(canonical(payload))}`;
}

/** A JSON value with its object keys sorted: the payload read back may list them in another order than a new command's. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  // Keys of one object are distinct: never equal.
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, canonical(v)]),
  );
}

/**
 * Pending commands carrying the supersede keys of `commands`, by device and key, in queue
 * order, with their content and whether they went out. Asks per device (a backfill: one
 * device, many keys) or per key (a fan-out: one key, many devices), and not at all when none
 * of the devices has a pending keyed command (a fresh approval).
 */
export async function pendingWithKeys(tx: Tx, commands: NewCommand[]): Promise<Map<string, QueuedEntry[]>> {
  const found = new Map<string, QueuedEntry[]>();
  const wanted = new Set<string>();
  const keysByDevice = new Map<string, Set<string>>();
  const devicesByKey = new Map<string, Set<string>>();
  for (const c of commands) {
    if (!c.supersedeKey) continue;
    wanted.add(pairKey(c.deviceId, c.supersedeKey));
    addTo(keysByDevice, c.deviceId, c.supersedeKey);
    addTo(devicesByKey, c.supersedeKey, c.deviceId);
  }
  if (wanted.size === 0 || !(await anyKeyedPending(tx, [...keysByDevice.keys()]))) return found;

  const columns = {
    id: deviceCommands.id,
    deviceId: deviceCommands.deviceId,
    kind: deviceCommands.kind,
    payload: deviceCommands.payload,
    supersedeKey: deviceCommands.supersedeKey,
    sentAt: deviceCommands.sentAt,
    attempts: deviceCommands.attempts,
  };
  const rows: {
    id: number;
    deviceId: string;
    kind: CommandKind;
    payload: Record<string, unknown>;
    supersedeKey: string | null;
    sentAt: number | null;
    attempts: number;
  }[] = [];
  const byDevice = keysByDevice.size <= devicesByKey.size;
  for (const [outer, inner] of byDevice ? keysByDevice : devicesByKey) {
    for (const chunk of chunks([...inner], IN_CHUNK)) {
      rows.push(
        ...(await tx
          .select(columns)
          .from(deviceCommands)
          // By the supersede index (device, key); the status is read from the row (notIndexed):
          // otherwise SQLite walks every pending command of the terminal to find these keys.
          .where(
            byDevice
              ? and(eq(deviceCommands.deviceId, outer), inArray(deviceCommands.supersedeKey, chunk), notIndexed(deviceCommands.status, 'pending'))
              : and(inArray(deviceCommands.deviceId, chunk), eq(deviceCommands.supersedeKey, outer), notIndexed(deviceCommands.status, 'pending')),
          )),
      );
    }
  }
  for (const row of rows.sort((a, b) => a.id - b.id)) {
    const pair = pairKey(row.deviceId, row.supersedeKey ?? '');
    if (!wanted.has(pair)) continue;
    const entry: QueuedEntry = { kind: row.kind, content: contentOf(row.kind, row.payload), sent: wentOut(row), ref: { id: row.id } };
    const queue = found.get(pair);
    if (queue) queue.push(entry);
    else found.set(pair, [entry]);
  }
  return found;
}

/** Whether any of these devices has a pending command with a supersede key. */
async function anyKeyedPending(tx: Tx, deviceIds: string[]): Promise<boolean> {
  for (const chunk of chunks(deviceIds, IN_CHUNK)) {
    const [row] = await tx
      .select({ id: deviceCommands.id })
      .from(deviceCommands)
      .where(and(inArray(deviceCommands.deviceId, chunk), eq(deviceCommands.status, 'pending'), isNotNull(deviceCommands.supersedeKey)))
      .limit(1);
    if (row) return true;
  }
  return false;
}

/** An unsent delete closed for the delete that takes its place on the same terminal (`by`). */
export interface ReplacedDelete {
  deviceId: string;
  id: number;
  by: { id: number; kind: string };
}

/**
 * Closes (`superseded`) the pending commands with these keys on these devices: every write, sent
 * or not (one that went out keeps its id, so its late answer changes nothing, and the delete
 * queued with this call removes what it wrote); a delete only when it never went out and
 * `replacement` names the delete that takes its place there (the delete of the person's whole
 * user). A delete that went out is never closed: the terminal may be carrying it out, and a
 * deletion proof may wait for its answer. Returns the deletes replaced.
 */
export async function closeKeyed(
  tx: Tx,
  deviceIds: readonly string[],
  keys: readonly string[],
  replacement: (deviceId: string, key: string) => { id: number; kind: string } | undefined,
  now: number,
): Promise<ReplacedDelete[]> {
  const closed: number[] = [];
  const replaced: ReplacedDelete[] = [];
  for (const devicesChunk of chunks(deviceIds, 100)) {
    for (const keysChunk of chunks(keys, 400)) {
      const rows = await tx
        .select({
          id: deviceCommands.id,
          deviceId: deviceCommands.deviceId,
          kind: deviceCommands.kind,
          key: deviceCommands.supersedeKey,
          sentAt: deviceCommands.sentAt,
          attempts: deviceCommands.attempts,
        })
        .from(deviceCommands)
        // By the supersede index (device, key), the status from the row (see pendingWithKeys).
        .where(
          and(inArray(deviceCommands.deviceId, devicesChunk), inArray(deviceCommands.supersedeKey, keysChunk), notIndexed(deviceCommands.status, 'pending')),
        );
      for (const row of rows) {
        if (!DELETE_KINDS.has(row.kind)) {
          closed.push(row.id);
          continue;
        }
        const by = wentOut(row) ? undefined : replacement(row.deviceId, row.key ?? '');
        if (!by) continue;
        closed.push(row.id);
        replaced.push({ deviceId: row.deviceId, id: row.id, by });
      }
    }
  }
  for (const chunk of chunks(closed, IN_CHUNK)) {
    await tx.update(deviceCommands).set({ status: 'superseded', completedAt: now }).where(inArray(deviceCommands.id, chunk));
  }
  return replaced;
}

function pairKey(deviceId: string, supersedeKey: string): string {
  return `${deviceId}\n${supersedeKey}`;
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

/**
 * A walk-up upload accepted at a terminal: the unsent delete of the same part that an earlier
 * refusal there queued (`payload.rejected`, enrollment/walk-up.ts) is pointless now. Only those:
 * a delete that carries out a withdrawal or a deletion stays (its proof waits for it).
 */
export async function supersedeRefusalDelete(tx: Tx, deviceId: string, supersedeKey: string, now: number): Promise<void> {
  await tx
    .update(deviceCommands)
    .set({ status: 'superseded', completedAt: now })
    .where(
      and(
        eq(deviceCommands.deviceId, deviceId),
        eq(deviceCommands.supersedeKey, supersedeKey),
        notIndexed(deviceCommands.status, 'pending'),
        eq(deviceCommands.kind, 'delete_template'),
        sql`json_extract(${deviceCommands.payload}, '$.rejected') = 1`,
      ),
    );
}

/**
 * Consent recorded for the person who holds `pin`: the deletes that walk-up refusals for want of
 * it queued under that PIN (`payload.consentMissing`, enrollment/walk-up-reject.ts), on any
 * terminal, are pointless now if they never went out: the terminal keeps the finger, which the
 * query of their fingerprints then finds. One that went out stays (the terminal may have carried
 * it out); so does a delete of a person whose deletion was asked (it carries no such mark: their
 * proof waits for it). Returns the terminals whose delete was dropped.
 */
export async function supersedeConsentRefusalDeletes(tx: Tx, pin: string, now: number): Promise<string[]> {
  const rows = await tx
    .update(deviceCommands)
    .set({ status: 'superseded', completedAt: now })
    .where(
      and(
        eq(deviceCommands.status, 'pending'),
        eq(deviceCommands.kind, 'delete_template'),
        isNull(deviceCommands.sentAt),
        eq(deviceCommands.attempts, 0),
        sql`json_extract(${deviceCommands.payload}, '$.pin') = ${pin}`,
        sql`json_extract(${deviceCommands.payload}, '$.consentMissing') = 1`,
      ),
    )
    .returning({ deviceId: deviceCommands.deviceId });
  return [...new Set(rows.map((r) => r.deviceId))];
}
