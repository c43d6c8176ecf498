/** Unfinished commands, read for the deletion proofs and the diagnostics; and the failures that stand. */
import { and, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/client';
import { BIOMETRIC_TYPES, type BiometricType } from '../../protocol/adms';
import { type CommandKind, type CommandRow, DELETE_KINDS, INTERACTIVE_KINDS, NO_RESULT, USER_NOT_ON_DEVICE } from './kinds';
import { sqlList } from './query-plans';
import { deviceCommands } from './tables';

export interface OpenDelete {
  id: number;
  deviceId: string;
  kind: CommandKind;
}

/** Unfinished deletes (`pending`, `sent`) about this PIN, on every terminal. */
export async function openDeletesOf(q: Queryable, pin: string): Promise<OpenDelete[]> {
  return q
    .select({ id: deviceCommands.id, deviceId: deviceCommands.deviceId, kind: deviceCommands.kind })
    .from(deviceCommands)
    .where(
      and(
        inArray(deviceCommands.status, ['pending', 'sent']),
        inArray(deviceCommands.kind, [...DELETE_KINDS]),
        sql`json_extract(${deviceCommands.payload}, '$.pin') = ${pin}`,
      ),
    );
}

/** Commands as they stand now, by id (a proof shows the delete a terminal still owes, with its last answer's code). */
export async function commandStates(
  q: Queryable,
  ids: readonly number[],
): Promise<Map<number, { id: number; kind: CommandKind; status: string; returnCode: number | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .select({ id: deviceCommands.id, kind: deviceCommands.kind, status: deviceCommands.status, returnCode: deviceCommands.returnCode })
    .from(deviceCommands)
    .where(inArray(deviceCommands.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r]));
}

export interface WaitingCommands {
  deviceId: string;
  count: number;
  /** When the oldest of them was queued. */
  since: number;
}

/** Per terminal, its unfinished commands queued before `before` (deletes included). */
export async function waitingSince(q: Queryable, before: number): Promise<WaitingCommands[]> {
  return q
    .select({ deviceId: deviceCommands.deviceId, count: sql<number>`count(*)`, since: sql<number>`min(${deviceCommands.createdAt})` })
    .from(deviceCommands)
    .where(and(inArray(deviceCommands.status, ['pending', 'sent']), lt(deviceCommands.createdAt, before)))
    .groupBy(deviceCommands.deviceId);
}

/** The failed commands of one kind that stand on a terminal. */
export interface FailedKind {
  kind: CommandKind;
  count: number;
  /** When the first of them failed. */
  since: number;
  /** The first of them (its id), in queue order. */
  firstCommand: number;
  /** The newest of them: its id, when it failed, the terminal's answer (null: none) and the reason kept with it. */
  lastCommand: number;
  lastAt: number;
  returnCode: number | null;
  reason: string | null;
  /** The newest of them never went to the terminal: the service failed it (its data unreadable, the PIN taken there). */
  notSent: boolean;
  /** For template commands, the kinds of biometric they carried (their payload's `type`; none said: fingerprint); empty for others. */
  types: BiometricType[];
  /**
   * How many of them are deletes the terminal refused that are still owed and retried (see
   * refusalNoted): not `failed`, since a delete is retried for as long as it takes, but refused
   * all the same. For them, `since` is their first refusal and `lastAt` their latest.
   */
  retrying: number;
}

export interface FailingCommands {
  deviceId: string;
  /** The failed commands that stand (see failingCommands), of every kind, refused deletes still retried included. */
  count: number;
  /** Of them, the deletes refused and still retried. */
  retrying: number;
  /** When the first of them failed. */
  since: number;
  /** Per kind, the kind of the newest failure first. */
  kinds: FailedKind[];
}

/** Failures another diagnostic already says (with its own fix): a kind and the answers of it left out. */
export interface SaidElsewhere {
  kind: CommandKind;
  returnCodes: readonly number[];
}

/** The commands that carry one biometric template each (its `type` in the payload). */
const TEMPLATE_COMMAND_KINDS: ReadonlySet<CommandKind> = new Set<CommandKind>(['update_template', 'delete_template']);

/** Kept in the result of a delete refused and retried (refusalNoted): when, in ms, it was last refused and first. */
const REFUSED_AT = 'refused_at';
const REFUSED_SINCE = 'refused_since';

/**
 * The result to keep with a command the terminal answered and that is retried: for a delete it
 * refused (a code below zero: neither done, 0 or -10, nor a permanent failure, which ends it), when
 * it was refused now and first (carried over while its answers before were refusals too), so that
 * failingCommands says it from its first refusal as it says a failed command, though a delete is
 * never failed for a code it may take back.
 */
export function refusalNoted(command: CommandRow, code: number | null, result: Record<string, unknown>, now: number): Record<string, unknown> {
  if (!DELETE_KINDS.has(command.kind) || code === null || code >= 0) return result;
  const first = command.result?.[REFUSED_SINCE];
  const refusedBefore = command.returnCode !== null && command.returnCode < 0 && typeof first === 'number';
  return { ...result, [REFUSED_AT]: now, [REFUSED_SINCE]: refusedBefore ? first : now };
}

/**
 * Per terminal, its failed commands that still stand, when the newest of them failed at
 * `recentAfter` or later. A failure stands until a command of the same kind succeeds on that
 * terminal after it; one that got no result at all (NO_RESULT) until any command succeeds there
 * (the terminal answers again). Enroll commands are left out: their failures are a person's at
 * the terminal (a bad capture, a cancel), not the terminal's. A delete the terminal refused
 * (refusalNoted) is never failed, it is retried for as long as it takes, but it stands beside
 * them while its latest answer is a refusal, whatever else succeeds there: the person's data is
 * still on the terminal. The terminals are first narrowed to those with a recent failure or a
 * refused delete; `cross join` keeps them the outer loop, so their commands are read by the
 * queue's index (terminal, status), never every succeeded command of the table.
 */
export async function failingCommands(q: Queryable, recentAfter: number, saidElsewhere: readonly SaidElsewhere[] = []): Promise<FailingCommands[]> {
  const rows = await q.all<Omit<FailedKind, 'notSent' | 'types'> & { deviceId: string; notSent: number; bioTypes: string | null }>(
    failingSql(recentAfter, saidElsewhere),
  );
  const byDevice = new Map<string, FailedKind[]>();
  // SQLite answers the flag as 0 or 1, and the kinds present as one 0/1 character per biometric type.
  for (const { deviceId, notSent, bioTypes, ...kind } of rows) {
    const types = BIOMETRIC_TYPES.filter((_, i) => bioTypes?.[i] === '1');
    byDevice.set(deviceId, [...(byDevice.get(deviceId) ?? []), { ...kind, notSent: Boolean(notSent), types }]);
  }
  return [...byDevice].flatMap(([deviceId, kinds]) => {
    kinds.sort((a, b) => b.lastAt - a.lastAt || b.lastCommand - a.lastCommand);
    // Said while a failure of the last day stands: older ones alone are history.
    if (kinds[0]!.lastAt < recentAfter) return [];
    const total = (of: (k: FailedKind) => number) => kinds.reduce((n, k) => n + of(k), 0);
    return [{ deviceId, count: total((k) => k.count), retrying: total((k) => k.retrying), since: Math.min(...kinds.map((k) => k.since)), kinds }];
  });
}

/** A condition leaving out the failures another diagnostic says (its kind and return codes). */
function notSaidElsewhere(saidElsewhere: readonly SaidElsewhere[]): SQL {
  return sql.join(
    saidElsewhere
      .filter((s) => s.returnCodes.length > 0)
      .map(
        (s) =>
          // `is not null` first: a command failed with no answer has no code, and `null in (…)` would drop it.
          sql` and not (c.kind = ${s.kind} and c.return_code is not null and c.return_code in (${sql.join(
            s.returnCodes.map((code) => sql`${code}`),
            sql`, `,
          )}))`,
      ),
  );
}

/** The query of failingCommands: per terminal and kind, its standing failures and refused deletes, their newest with its answer. */
export function failingSql(recentAfter: number, saidElsewhere: readonly SaidElsewhere[]): SQL {
  const left = notSaidElsewhere(saidElsewhere);
  const deletes = sql.raw(sqlList(DELETE_KINDS));
  // A refused delete still owed: unfinished, its latest answer a code below zero (-10 would have confirmed it).
  const refusedDelete = sql`c.kind in (${deletes}) and c.return_code < 0 and c.return_code <> ${USER_NOT_ON_DEVICE}`;
  // Refused before refusalNoted kept the times: its latest send, the nearest the service knows.
  const refusedAt = sql`coalesce(c.result ->> ${REFUSED_AT}, c.sent_at, c.created_at)`;
  // The biometric kind of a template command (the first releases' carried none: fingerprints).
  const bio = sql`case when c.kind in (${sql.raw(sqlList(TEMPLATE_COMMAND_KINDS))}) then coalesce(c.payload ->> 'type', 'fingerprint') end`;
  // Which kinds a group of them carried, one 0/1 per type in BIOMETRIC_TYPES' order: max() is one pass, where a list would grow per row.
  const bioTypes = sql.join(
    BIOMETRIC_TYPES.map((t) => sql`coalesce(max(bio = ${t}) over (partition by device_id, kind), 0)`),
    sql` || `,
  );
  return sql`
    with failing as materialized (
      select device_id from fpa_device_commands where status = 'failed' and completed_at >= ${recentAfter}
      union
      select c.device_id from fpa_device_commands as c where c.status in ('pending', 'sent') and ${refusedDelete}
    ),
    ok as materialized (
      select c.device_id, c.kind, max(c.completed_at) as at
      from failing cross join fpa_device_commands as c on c.device_id = failing.device_id and c.status = 'succeeded'
      group by c.device_id, c.kind
    ),
    standing as (
      select c.id, c.device_id, c.kind, c.completed_at, c.completed_at as first_at, 0 as retrying, c.return_code,
        c.result ->> 'reason' as reason,
        -- The service's own failure (polls.ts retire); one recorded before it said so: never sent.
        coalesce(c.result ->> 'failed_by' = 'service', c.sent_at is null) as not_sent, ${bio} as bio
      from failing cross join fpa_device_commands as c on c.device_id = failing.device_id and c.status = 'failed'
      where c.kind not in (${sql.raw(sqlList(INTERACTIVE_KINDS))})${left}
        and c.completed_at > coalesce((select max(ok.at) from ok where ok.device_id = c.device_id
          and (ok.kind = c.kind or (c.return_code is null and c.result ->> 'reason' = ${NO_RESULT}))), 0)
      union all
      select c.id, c.device_id, c.kind, ${refusedAt}, coalesce(c.result ->> ${REFUSED_SINCE}, ${refusedAt}), 1, c.return_code, null, 0, ${bio}
      from failing cross join fpa_device_commands as c on c.device_id = failing.device_id and c.status in ('pending', 'sent')
      where ${refusedDelete}${left}
    ),
    ranked as (
      select *, row_number() over (partition by device_id, kind order by completed_at desc, id desc) as newest,
        count(*) over (partition by device_id, kind) as count, min(first_at) over (partition by device_id, kind) as since,
        min(id) over (partition by device_id, kind) as first_id, sum(retrying) over (partition by device_id, kind) as retrying_count,
        ${bioTypes} as bio_types
      from standing
    )
    select device_id as deviceId, kind, count, since, first_id as firstCommand, id as lastCommand, completed_at as lastAt,
      return_code as returnCode, reason, not_sent as notSent, retrying_count as retrying, bio_types as bioTypes
    from ranked where newest = 1`;
}
