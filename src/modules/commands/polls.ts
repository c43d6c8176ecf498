/**
 * The queue as a terminal's poll reads it: what is due now (batched with the reads of concurrent
 * polls), the `sent` marks (one group commit shared with them), an idle mark per terminal so
 * an idle poll costs no query, and the commands a poll found it could not send.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { WriteContext } from '../../platform/db/client';
import { GroupCommit } from '../../platform/db/group-commit';
import { ReadBatch } from '../../platform/db/read-batch';
import type { CommandEndings } from './endings';
import {
  type CommandKind,
  DELETE_KINDS,
  type DueCommand,
  INTERACTIVE_KINDS,
  INVENTORY_QUERY_OPEN,
  type MarkCandidate,
  PIN_KINDS,
  PIN_WRITE_KINDS,
} from './kinds';
import { notIndexed, sqlList } from './query-plans';
import type { CommandRuntime } from './runtime';
import { deviceCommands } from './tables';

/** How long "this device has nothing to send" may be trusted without asking the database. */
const IDLE_CACHE_MS = 3_000;

export class CommandPolls {
  /** deviceId → time until which a poll may answer OK without a query. */
  private readonly idleUntil = new Map<string, number>();
  /**
   * Group commit of the `sent` marks of concurrent polls: a poll may hand a command over only
   * once it is marked `sent`, and one commit per poll would cap polls at the disk's sync rate.
   */
  private readonly sentMarks: GroupCommit<MarkCandidate[], Set<number>>;
  /** The same for polls carrying an enroll command, synced to the disk: it is never sent twice. */
  private readonly durableSentMarks: GroupCommit<MarkCandidate[], Set<number>>;
  /** The due-command reads of concurrent polls, one statement per batch (takeDue). */
  private readonly dueReads: ReadBatch<DueRead, MarkCandidate[]>;

  constructor(
    private readonly ctx: CommandRuntime,
    private readonly endings: CommandEndings,
  ) {
    const applyMarks = async (w: WriteContext, polls: MarkCandidate[][]) => {
      const marked = await this.applySentMarks(w, polls.flat());
      return polls.map((candidates) => new Set(candidates.filter((c) => marked.has(c)).map((c) => c.id)));
    };
    // Not synced to the disk on commit (WriteOptions.durable): a mark lost in a power cut only
    // sends its command again, which a terminal takes as it takes a re-send after a lost answer.
    this.sentMarks = new GroupCommit(ctx.db, applyMarks, { durable: false });
    this.durableSentMarks = new GroupCommit(ctx.db, applyMarks);
    this.dueReads = new ReadBatch((reads) => this.readDue(reads), DUE_READS_PER_STATEMENT);
  }

  /** Marks a device as having work, so its next poll reads the queue. */
  markQueued(deviceId: string): void {
    this.idleUntil.delete(deviceId);
    this.idleUntil.delete(deletesOnlyKey(deviceId));
  }

  /**
   * The pending commands of a device that are due now, oldest first, for its poll to render;
   * null when there is nothing (answered from memory while the device is known to be idle).
   * Commands past their expiry are never returned: a late poll must not run them. Nor are its
   * commands about a PIN while it has not answered the query of its users (DUE_SQL): they wait,
   * pending, for that answer, which wakes the device (fleet/reactions.ts).
   */
  async takeDue(deviceId: string, options: { deletesOnly?: boolean } = {}): Promise<DueCommand[] | null> {
    const now = this.ctx.clock.now();
    // A terminal that is not approved gets deletes only (its other commands wait for approval):
    // its idle mark is its own, or the first poll after an approval would trust it.
    const idleKey = options.deletesOnly ? deletesOnlyKey(deviceId) : deviceId;
    const idle = this.idleUntil.get(idleKey);
    if (idle !== undefined && idle > now) return null;
    // Read outside any write, batched with the reads of concurrent polls (dueReads).
    const due = await this.dueReads.load({ deviceId, deletesOnly: options.deletesOnly === true });
    if (due.length === 0) {
      this.idleUntil.set(idleKey, now + IDLE_CACHE_MS);
      return null;
    }
    return due.map((row) => ({ ...row, payload: JSON.parse(row.payloadText) as Record<string, unknown> }));
  }

  /**
   * Batch step (`dueReads`): the due commands of each asked device, oldest first, in one fixed
   * statement (DUE_SQL): the devices go in as one JSON value, so the statement's text, and the
   * cost of preparing it, do not grow with the number of polls in the batch. Only what rendering
   * needs; the payload as stored text, both parsed for rendering and compared when the command
   * is marked sent.
   */
  private async readDue(reads: DueRead[]): Promise<MarkCandidate[][]> {
    const keys = [...new Set(reads.map(dueReadKey))];
    const slotOf = new Map(keys.map((key, slot) => [key, slot]));
    const asked = JSON.stringify(keys.map((key) => [key.slice(2), key.startsWith('d:') ? 1 : 0]));
    const result = await this.ctx.db.client.execute({ sql: DUE_SQL, args: [this.ctx.clock.now(), this.ctx.settings.ADMS_MAX_COMMANDS_PER_REQUEST, asked] });
    const found: MarkCandidate[][] = keys.map(() => []);
    // The kind column holds COMMAND_KINDS only (tables.ts; migration 0036 renamed the older names).
    for (const row of result.rows)
      found[Number(row.slot)]!.push({ id: Number(row.id), kind: String(row.kind) as CommandKind, payloadText: String(row.payload) });
    for (const rows of found) rows.sort((a, b) => a.id - b.id);
    return reads.map((read) => found[slotOf.get(dueReadKey(read))!]!);
  }

  /**
   * Marks rendered commands `sent` (committed) through the group commit shared with concurrent
   * polls; resolves with the ids that may go to the terminal. A command that another instance
   * took, or that was replaced in place, since it was read is not marked and must not be sent.
   */
  markSent(candidates: MarkCandidate[]): Promise<Set<number>> {
    if (candidates.length === 0) return Promise.resolve(new Set());
    const marks = candidates.some((c) => INTERACTIVE_KINDS.has(c.kind)) ? this.durableSentMarks : this.sentMarks;
    return marks.submit(candidates);
  }

  /**
   * Group-commit step (`sentMarks`): marks `sent` the candidates whose command is still pending
   * and still holds the kind and payload the poll rendered. A command replaced in place
   * (supersede) since the read keeps its id but not its content: sending the old text under
   * that id would let the terminal's answer close the new command.
   */
  private async applySentMarks(w: WriteContext, candidates: MarkCandidate[]): Promise<Set<MarkCandidate>> {
    const now = this.ctx.clock.now();
    // Two polls of one terminal may have read the same command: the first one gets it.
    const chosen = new Map<number, MarkCandidate>();
    for (const c of candidates) if (!chosen.has(c.id)) chosen.set(c.id, c);
    const marked = new Set<MarkCandidate>();
    // One fixed statement per group, the candidates as one JSON value (json_each): its text
    // never changes, so preparing it costs the same for 4 commands or 4,000, where a list of
    // bound values made SQLite compile a new statement the size of the group every commit.
    // The status guard stays (another instance's poll may have taken the command meanwhile,
    // and the database decides), and the row must still hold what the poll rendered.
    const result = await w.execute({
      sql: MARK_SENT_SQL,
      args: [now, now + this.ctx.settings.COMMAND_ACK_TIMEOUT, JSON.stringify([...chosen.values()].map((c) => [c.id, c.kind, c.payloadText]))],
    });
    for (const row of result.rows) marked.add(chosen.get(Number(row.id))!);
    return marked;
  }

  /** Closes queued commands that cannot be sent: data gone (superseded) or unreadable (failed, with the reason). */
  async retire(unrenderable: number[], unreadable: { id: number; reason: string }[]): Promise<void> {
    if (unrenderable.length === 0 && unreadable.length === 0) return;
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async (w) => {
      const { tx } = w;
      for (const { id, reason } of unreadable) {
        const [command] = await tx.select().from(deviceCommands).where(eq(deviceCommands.id, id));
        if (command?.status !== 'pending') continue;
        // The service failed it, not the terminal, whether or not an earlier send went out.
        await this.endings.close(w, command, 'failed', now, null, { reason, failed_by: 'service' });
      }
      if (unrenderable.length > 0) {
        await tx
          .update(deviceCommands)
          .set({ status: 'superseded', completedAt: now, result: { reason: 'data no longer exists' } })
          .where(and(inArray(deviceCommands.id, unrenderable), notIndexed(deviceCommands.status, 'pending')));
      }
    });
  }
}

/** A due-command read of one poll: its device, and whether it may be sent deletes only. */
interface DueRead {
  deviceId: string;
  deletesOnly: boolean;
}

function dueReadKey(read: DueRead): string {
  return `${read.deletesOnly ? 'd' : 'a'}:${read.deviceId}`;
}

/** Devices per due-read statement (bounds one statement's answer). */
const DUE_READS_PER_STATEMENT = 200;

/**
 * The supersede key of the delete of the part a write of `q` writes (enrollment/fan-out.ts
 * `deleteKey`); null for a user record (no `fingerIndex`). A payload without a type is a fingerprint's.
 */
const PART_DELETE_KEY = `'tpl:' || (q.payload ->> 'pin') || ':'
  || case when coalesce(q.payload ->> 'type', 'fingerprint') = 'fingerprint' then '' else (q.payload ->> 'type') || ':' end
  || (q.payload ->> 'fingerIndex')`;

/**
 * The due commands of several devices: `?1` now, `?2` the most per device, `?3` the devices as a
 * JSON array of `[deviceId, deletesOnly]`; `slot` is the device's place in it. For each device
 * the queue index answers its first pending commands in id order (a correlated subquery with
 * its own limit). A device whose inventory is outstanding (the query of its users sent on its
 * approval or first contact, queued or sent and not answered: kinds.ts `INVENTORY_QUERY_OPEN`) is
 * `holding`: its commands about a PIN (PIN_KINDS) are not due, they wait in its queue for the
 * answer, which tells whether the PIN is its own user's. Worked out once per device (the
 * materialized `asked`), by the supersede index, not once per command. A template waits while the
 * user record of its PIN is queued behind it (a template queued before the terminal's inventory
 * was answered, its person only after: a terminal refuses a finger of a user it does not hold,
 * Return=-10): the record goes first, then the template, found by the supersede index too.
 * A write under a PIN (PIN_WRITE_KINDS) waits while a delete queued before it on that terminal
 * is unfinished (pending, its retry included, or sent without an answer): the delete of the
 * user (`user:<pin>`) or of the part it writes (enrollment/fan-out.ts `deleteKey`: `tpl:<pin>:<finger>`
 * for a finger, `tpl:<pin>:<type>:<index>` for another kind). Not even in the same poll: a
 * terminal that refuses the delete (a transient code, retried later) would still take the write,
 * and the delete's retry would then remove the user put back or the finger enrolled again, which
 * the service believes the terminal holds. Found by the supersede index as well.
 */
export const DUE_SQL = `with asked as materialized (
    select key as slot, value ->> 0 as device_id, value ->> 1 as deletes_only,
      exists (select 1 from fpa_device_commands
        where fpa_device_commands.device_id = value ->> 0 and ${INVENTORY_QUERY_OPEN}) as holding
    from json_each(?3))
  select asked.slot, c.id, c.kind, c.payload
  from asked
  join fpa_device_commands as c on c.id in (
    select q.id from fpa_device_commands as q
    where q.device_id = asked.device_id and q.status = 'pending' and q.not_before <= ?1 and q.expires_at > ?1
      and (asked.deletes_only = 0 or q.kind in (${sqlList(DELETE_KINDS)}))
      and (asked.holding = 0 or q.kind not in (${sqlList(PIN_KINDS)}))
      and not (q.kind = 'update_template' and exists (select 1 from fpa_device_commands as u
        where u.device_id = q.device_id and u.supersede_key = 'user:' || (q.payload ->> 'pin')
          and u.status = 'pending' and u.kind = 'add_user' and u.expires_at > ?1 and u.id > q.id))
      and not (q.kind in (${sqlList(PIN_WRITE_KINDS)}) and exists (select 1 from fpa_device_commands as d
        where d.device_id = q.device_id and d.supersede_key in ('user:' || (q.payload ->> 'pin'), ${PART_DELETE_KEY})
          and d.id < q.id and d.kind in (${sqlList(DELETE_KINDS)}) and d.status in ('pending', 'sent')))
    order by q.id limit ?2)`;

/**
 * Marks `sent` the listed commands that are still pending with the kind and payload a poll
 * rendered (a command replaced in place keeps its id, not its content), and returns their ids.
 * `?1` now, `?2` the acknowledgement deadline, `?3` the candidates as a JSON array of
 * `[id, kind, payload]`. The candidates drive the lookup by rowid; `+status` keeps the planner
 * off the status index. An enroll command waits for a person at the terminal: only its
 * session's end stops it.
 */
const MARK_SENT_SQL = `update fpa_device_commands
    set status = 'sent', attempts = attempts + 1, sent_at = ?1,
      ack_deadline = case when fpa_device_commands.kind in (${sqlList(INTERACTIVE_KINDS)}) then expires_at else ?2 end
    from (select value ->> 0 as id, value ->> 1 as kind, value ->> 2 as payload from json_each(?3)) as candidate
    where fpa_device_commands.id = candidate.id and +fpa_device_commands.status = 'pending'
      and fpa_device_commands.kind = candidate.kind and fpa_device_commands.payload = candidate.payload
    returning fpa_device_commands.id as id`;

/** The idle mark of a terminal polled for its deletes only. */
function deletesOnlyKey(deviceId: string): string {
  return `deletes:${deviceId}`;
}
