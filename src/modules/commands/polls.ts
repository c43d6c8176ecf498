/**
 * The queue as a terminal's poll reads it: what is due now (batched with the reads of concurrent
 * polls), the hand-over of what it sends (claims.ts, one group commit shared with them), an idle
 * mark per terminal so an idle poll costs no query, and the commands a poll found it could not send.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { GroupCommit } from '../../platform/db/group-commit';
import { ReadBatch } from '../../platform/db/read-batch';
import type { Runtime } from '../../platform/runtime';
import type { CommandClaims } from './claims';
import type { CommandEndings } from './endings';
import { DELETE_KINDS, type DueCommand, type MarkCandidate } from './kinds';
import { notIndexed, sqlList } from './query-plans';
import { deviceCommands } from './tables';

/** How long "this device has nothing to send" may be trusted without asking the database. */
const IDLE_CACHE_MS = 3_000;

export class CommandPolls {
  /** deviceId → time until which a poll may answer OK without a query. */
  private readonly idleUntil = new Map<string, number>();
  /**
   * Group commit of the hand-overs (claims) of concurrent polls: a poll may hand a command over
   * only once its claim is committed, and one commit per poll would cap polls at the disk's sync rate.
   */
  private readonly sentMarks: GroupCommit<MarkCandidate[], Set<number>>;
  /** The due-command reads of concurrent polls, one statement per batch (takeDue). */
  private readonly dueReads: ReadBatch<DueRead, MarkCandidate[]>;

  constructor(
    private readonly ctx: Runtime,
    private readonly endings: CommandEndings,
    private readonly claims: CommandClaims,
  ) {
    this.sentMarks = new GroupCommit(ctx.db, async (w, polls) => {
      const marked = await this.claims.claim(w, polls.flat());
      return polls.map((candidates) => new Set(candidates.filter((c) => marked.has(c)).map((c) => c.id)));
    });
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
   * Commands past their expiry are never returned: a late poll must not run them.
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
   * Batch step (`dueReads`): the due commands of each asked device, oldest first, in one
   * statement (one `union all` arm per distinct device, each answered by the queue index in id
   * order), but those its terminal was handed already (claims.ts). Only what rendering needs;
   * the payload as stored text, both parsed for rendering and compared when the command is claimed.
   */
  private async readDue(reads: DueRead[]): Promise<MarkCandidate[][]> {
    const now = this.ctx.clock.now();
    const keys = [...new Set(reads.map(dueReadKey))];
    const slotOf = new Map(keys.map((key, slot) => [key, slot]));
    const arms = keys.map((key, slot) => {
      const deletesOnly = key.startsWith('d:');
      // `slot` is our own loop counter, never input; the device ids are bound (?3, ?4…).
      return `select * from (select ${slot} as slot, id, kind, payload from fpa_device_commands
        where device_id = ?${slot + 3} and status = 'pending' and not_before <= ?1 and expires_at > ?1${deletesOnly ? ` and kind in (${sqlList(DELETE_KINDS)})` : ''}
          and id not in (select j.value ->> 0 from fpa_command_claims c, json_each(c.claims) j where c.device_id = ?${slot + 3})
        order by id limit ?2)`;
    });
    const result = await this.ctx.db.client.execute({
      sql: arms.join('\nunion all\n'),
      args: [now, this.ctx.settings.ADMS_MAX_COMMANDS_PER_REQUEST, ...keys.map((key) => key.slice(2))],
    });
    const found: MarkCandidate[][] = keys.map(() => []);
    for (const row of result.rows) found[Number(row.slot)]!.push({ id: Number(row.id), kind: String(row.kind), payloadText: String(row.payload) });
    for (const rows of found) rows.sort((a, b) => a.id - b.id);
    return reads.map((read) => found[slotOf.get(dueReadKey(read))!]!);
  }

  /**
   * Marks rendered commands `sent` (claimed for their terminal, committed) through the group
   * commit shared with concurrent polls; resolves with the ids that may go to the terminal. A
   * command that another instance took, or that was replaced in place, since it was read is not
   * marked and must not be sent.
   */
  markSent(candidates: MarkCandidate[]): Promise<Set<number>> {
    return candidates.length === 0 ? Promise.resolve(new Set()) : this.sentMarks.submit(candidates);
  }

  /** Closes queued commands that cannot be sent: data gone (superseded) or unreadable (failed, with the reason). */
  async retire(unrenderable: number[], unreadable: { id: number; reason: string }[]): Promise<void> {
    if (unrenderable.length === 0 && unreadable.length === 0) return;
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async (w) => {
      const { tx } = w;
      // Rows changed only once what polls claimed is in them (claims.ts).
      await this.claims.settle(tx);
      for (const { id, reason } of unreadable) {
        const [command] = await tx.select().from(deviceCommands).where(eq(deviceCommands.id, id));
        if (command?.status !== 'pending') continue;
        await this.endings.close(w, command, 'failed', now, null, { reason });
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

/** Devices per due-read statement (one `union all` arm each; SQLite allows 500 arms). */
const DUE_READS_PER_STATEMENT = 100;

/** The idle mark of a terminal polled for its deletes only. */
function deletesOnlyKey(deviceId: string): string {
  return `deletes:${deviceId}`;
}
