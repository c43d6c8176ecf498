/**
 * Deletion proofs: for a person whose consent was withdrawn or who was deleted, what the server
 * destroyed and when, and, per terminal that held (or was about to receive) their data, the
 * delete command it was sent and its answer. The proof is opened in the transaction that
 * destroyed the templates (reactions.ts), from the deletes that transaction left owed; each
 * terminal's answer to a delete (`device_command_finished`) confirms it. Complete once every
 * terminal confirmed: `deletion_proof_completed` is recorded then, in the same transaction.
 * The document is signed (keys.ts) each time it is read.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, Tx, WriteContext } from '../../platform/db/client';
import { deleteInBatches } from '../../platform/db/purge';
import type { Caller } from '../../platform/http/caller';
import { areaNames } from '../areas';
import { auditDownload } from '../audit';
import { type CommandEvents, type OpenDelete, openDeletesOf, type ReplacedDelete } from '../commands';
import { terminalsByIds } from '../devices';
import type { EnrolleeService } from '../enrollees';
import { hasConsent } from '../enrollment';
import type { EventChannel, EventLog } from '../events';
import { iso, proofBody, requestsOf } from './document';
import type { ProofEvents } from './events';
import type { DeletionProof } from './model';
import { noProofError, notAsked } from './no-proof';
import type { ProofRuntime } from './runtime';
import { ProofKeys } from './signing-keys';
import { type DeletionProofTerminalRow, type DeletionReason, deletionProofs, deletionProofTerminals, type ProofCommand } from './tables';

type ProofDocument = typeof DeletionProof.static;
type Finished = CommandEvents['device_command_finished'];

/** A part of a person a terminal uploaded and the walk-up refused (`template_rejected`), its delete queued. */
export interface ReturnedUpload {
  enrollee: string;
  deviceId: string;
  pin: string;
  type: string;
  index: number;
}

/** Why a delete a proof waits for is not cancelled (the 409's message, and the queue's `cancel_refused`). */
const KEPT_DELETE =
  'this delete carries out a person’s deletion (consent withdrawn or person deleted) and their deletion proof waits for it: it cannot be cancelled. A terminal gone for good is removed instead (its proof then shows it unreachable).';

export class DeletionProofs {
  readonly events: EventChannel<ProofEvents>;
  readonly keys: ProofKeys;

  constructor(
    private readonly ctx: ProofRuntime,
    log: EventLog,
    private readonly enrollees: EnrolleeService,
  ) {
    this.events = log.channel<ProofEvents>();
    this.keys = new ProofKeys(ctx);
  }

  /**
   * A deletion was asked (consent withdrawn, person deleted) and the server destroyed `count`
   * templates: the proof records it, with every terminal that owes a delete about the person now.
   * A later request adds to the same proof, which keeps the date of the first (no terminal's
   * confirmation predates it) and lists every request. A request that changes nothing (nothing
   * destroyed, no delete owed that the proof does not already wait for, the same reason: a
   * withdrawal with nothing left to withdraw) leaves the proof as it is: its dates, its completion.
   * `at` is the request's own instant (the withdrawal's `withdrawn_at`, the deletion's audit
   * entry), so the signed document and the records say the same time.
   */
  async open(w: WriteContext, enrolleeId: string, reason: DeletionReason, count: number, at: number): Promise<void> {
    const { tx } = w;
    const now = at;
    const person = await this.enrollees.find(tx, enrolleeId);
    if (!person) return;
    const owed = await openDeletesOf(tx, person.devicePin);
    const [before] = await tx.select().from(deletionProofs).where(eq(deletionProofs.enrolleeId, enrolleeId));
    const known = await tx.select().from(deletionProofTerminals).where(eq(deletionProofTerminals.enrolleeId, enrolleeId));
    const awaited = new Set(known.flatMap((k) => (k.status === 'pending' ? k.awaiting.map((id) => `${k.deviceId} ${id}`) : [])));
    const fresh = owed.filter((d) => !awaited.has(`${d.deviceId} ${d.id}`));
    if (before && count === 0 && fresh.length === 0 && before.reason === reason) return;
    // Complete stays complete when nothing new is owed (a deletion after a completed withdrawal, with nothing left anywhere).
    const completedAt = before && fresh.length === 0 ? before.completedAt : null;
    const areaIds = await this.enrollees.membership.areaIdsOf(tx, enrolleeId);
    const row = {
      enrolleeId,
      employee: person.employeeKey,
      pin: completedAt === null ? person.devicePin : null,
      // Who may read it: the person's areas at any of the requests.
      areaIds: [...new Set([...(before?.areaIds ?? []), ...areaIds])],
      reason,
      requestedAt: before?.requestedAt ?? now,
      requests: [...(before ? requestsOf(before) : []), { reason, at: now, templatesDestroyed: count }],
      templatesDestroyed: (before?.templatesDestroyed ?? 0) + count,
      // When templates were destroyed: a later request that found none left does not move it.
      destroyedAt: count > 0 || !before ? now : before.destroyedAt,
      completedAt,
      updatedAt: now,
    };
    await tx.insert(deletionProofs).values(row).onConflictDoUpdate({ target: deletionProofs.enrolleeId, set: row });
    const devices = new Set(fresh.map((d) => d.deviceId));
    await this.awaitDeletes(
      tx,
      enrolleeId,
      owed.filter((d) => devices.has(d.deviceId)),
      known,
    );
    // Complete at once when nothing is owed: at the request's instant.
    await this.completeIfDone(w, [enrolleeId], now);
  }

  /** The terminals that owe these deletes about the person are pending in their proof, waiting for them. */
  private async awaitDeletes(tx: Tx, enrolleeId: string, owed: readonly OpenDelete[], known: readonly DeletionProofTerminalRow[]): Promise<void> {
    const byDevice = new Map<string, OpenDelete[]>();
    for (const d of owed) byDevice.set(d.deviceId, [...(byDevice.get(d.deviceId) ?? []), d]);
    const facts = await terminalsByIds(tx, [...byDevice.keys()]);
    for (const [deviceId, deletes] of byDevice) {
      const was = known.find((k) => k.deviceId === deviceId);
      const awaiting = [...new Set([...(was?.status === 'pending' ? was.awaiting : []), ...deletes.map((d) => d.id)])];
      const last = deletes[deletes.length - 1]!;
      const values = {
        enrolleeId,
        deviceId,
        serialNumber: facts.get(deviceId)?.serialNumber ?? was?.serialNumber ?? deviceId,
        status: 'pending' as const,
        awaiting,
        command: { id: last.id, kind: last.kind, status: 'pending', return_code: null, at: null },
        confirmedAt: null,
      };
      await tx
        .insert(deletionProofTerminals)
        .values(values)
        .onConflictDoUpdate({ target: [deletionProofTerminals.enrolleeId, deletionProofTerminals.deviceId], set: values });
    }
  }

  /**
   * Why deletes may not be cancelled, by command id: a deletion proof waits for them (consent
   * withdrawn, person deleted), and cancelling one would leave the person's data on the terminal
   * with nothing left to remove it, and the proof pending for good. Other commands are absent.
   */
  async keptDeletes(q: Queryable, commands: readonly { id: number; deviceId: string; kind: string }[]): Promise<Map<number, string>> {
    const deletes = commands.filter((c) => c.kind === 'delete_user' || c.kind === 'delete_template');
    const kept = new Map<number, string>();
    if (deletes.length === 0) return kept;
    const rows = await q
      .select({ deviceId: deletionProofTerminals.deviceId, awaiting: deletionProofTerminals.awaiting })
      .from(deletionProofTerminals)
      .where(and(inArray(deletionProofTerminals.deviceId, [...new Set(deletes.map((d) => d.deviceId))]), eq(deletionProofTerminals.status, 'pending')));
    const awaited = new Set(rows.flatMap((r) => r.awaiting.map((id) => `${r.deviceId} ${id}`)));
    for (const d of deletes) if (awaited.has(`${d.deviceId} ${d.id}`)) kept.set(d.id, KEPT_DELETE);
    return kept;
  }

  /**
   * Deletes another delete took the place of (a person taken off a terminal: the delete of their
   * whole user replaces their unsent fingerprint deletes there): a proof waiting for one waits for
   * its replacement instead, which its answer confirms, which cannot be cancelled and which the
   * proof names.
   */
  async followReplaced(w: WriteContext, replaced: readonly ReplacedDelete[]): Promise<void> {
    const { tx } = w;
    const byId = new Map(replaced.map((r) => [`${r.deviceId} ${r.id}`, r.by]));
    for (const devices of chunks([...new Set(replaced.map((r) => r.deviceId))], 500)) {
      const rows = await tx
        .select()
        .from(deletionProofTerminals)
        .where(and(inArray(deletionProofTerminals.deviceId, devices), eq(deletionProofTerminals.status, 'pending')));
      for (const t of rows) {
        const by = (id: number) => byId.get(`${t.deviceId} ${id}`);
        if (!t.awaiting.some((id) => by(id))) continue;
        const awaiting = [...new Set(t.awaiting.map((id) => by(id)?.id ?? id))];
        const named = t.command ? by(t.command.id) : undefined;
        const command: ProofCommand | null = named ? { id: named.id, kind: named.kind, status: 'pending', return_code: null, at: null } : t.command;
        await tx
          .update(deletionProofTerminals)
          .set({ awaiting, command })
          .where(and(eq(deletionProofTerminals.enrolleeId, t.enrolleeId), eq(deletionProofTerminals.deviceId, t.deviceId)));
      }
    }
  }

  /**
   * A terminal uploaded data of a person whose deletion was asked (consent withdrawn and not given
   * again, or the person deleted): the walk-up refused it and queued its delete there. Their proof
   * is no longer complete: that terminal is pending again (listed, if it was not), waiting for the
   * deletes it owes them, and its entry says what it uploaded, when, and which delete answers it.
   */
  async dataReturned(w: WriteContext, returned: readonly ReturnedUpload[]): Promise<void> {
    const { tx } = w;
    const now = this.ctx.clock.now();
    for (const r of returned) {
      const [proof] = await tx.select().from(deletionProofs).where(eq(deletionProofs.enrolleeId, r.enrollee));
      // No deletion asked, or consent given again since: a refusal like any other.
      if (!proof || (await hasConsent(tx, r.enrollee))) continue;
      const deletes = (await openDeletesOf(tx, r.pin)).filter((d) => d.deviceId === r.deviceId);
      const last = deletes[deletes.length - 1];
      if (!last) continue;
      const [was] = await tx
        .select()
        .from(deletionProofTerminals)
        .where(and(eq(deletionProofTerminals.enrolleeId, r.enrollee), eq(deletionProofTerminals.deviceId, r.deviceId)));
      const facts = await terminalsByIds(tx, [r.deviceId]);
      const values = {
        enrolleeId: r.enrollee,
        deviceId: r.deviceId,
        serialNumber: facts.get(r.deviceId)?.serialNumber ?? was?.serialNumber ?? r.deviceId,
        status: 'pending' as const,
        awaiting: [...new Set([...(was?.status === 'pending' ? was.awaiting : []), ...deletes.map((d) => d.id)])],
        command: { id: last.id, kind: last.kind, status: 'pending', return_code: null, at: null },
        confirmedAt: null,
        returned: [...(was?.returned ?? []), { at: now, type: r.type, index: r.index, command: last.id, wasConfirmedAt: was?.confirmedAt ?? null }],
      };
      await tx
        .insert(deletionProofTerminals)
        .values(values)
        .onConflictDoUpdate({ target: [deletionProofTerminals.enrolleeId, deletionProofTerminals.deviceId], set: values });
      // Pending again: the PIN is kept again to recognise a delete of the whole user, until complete.
      await tx
        .update(deletionProofs)
        .set({ completedAt: null, pin: proof.pin ?? r.pin, updatedAt: now })
        .where(eq(deletionProofs.enrolleeId, r.enrollee));
    }
  }

  /** A terminal answered a delete: the proofs waiting for it from that terminal are updated. */
  async commandFinished(w: WriteContext, finished: readonly Finished[]): Promise<void> {
    const { tx } = w;
    const touched = new Set<string>();
    for (const data of finished) {
      const { command } = data;
      if (command.kind !== 'delete_user' && command.kind !== 'delete_template') continue;
      const rows = await tx
        .select({ terminal: deletionProofTerminals, pin: deletionProofs.pin })
        .from(deletionProofTerminals)
        .innerJoin(deletionProofs, eq(deletionProofs.enrolleeId, deletionProofTerminals.enrolleeId))
        .where(and(eq(deletionProofTerminals.deviceId, data.device.id), eq(deletionProofTerminals.status, 'pending')));
      const now = this.ctx.clock.now();
      const succeeded = data.status === 'succeeded';
      for (const { terminal, pin } of rows) {
        const awaited = terminal.awaiting.includes(command.id);
        // A delete of the whole user removes every template of theirs there that was written
        // before it: it answers the deletes awaited that were queued before it (or are it), never
        // one queued after it (a finger written after that delete, then withdrawn: this request's).
        const wholeUser = succeeded && command.kind === 'delete_user' && pin !== null && command.payload.pin === pin;
        const left = wholeUser
          ? terminal.awaiting.filter((id) => id > command.id)
          : succeeded
            ? terminal.awaiting.filter((id) => id !== command.id)
            : terminal.awaiting;
        if (!awaited && (!wholeUser || left.length === terminal.awaiting.length)) continue;
        const awaiting = left;
        const done = awaiting.length === 0;
        const shown: ProofCommand = { id: command.id, kind: command.kind, status: data.status, return_code: data.return_code, at: now };
        await tx
          .update(deletionProofTerminals)
          .set({ awaiting, command: shown, status: done ? 'confirmed' : 'pending', confirmedAt: done ? now : null })
          .where(and(eq(deletionProofTerminals.enrolleeId, terminal.enrolleeId), eq(deletionProofTerminals.deviceId, terminal.deviceId)));
        if (done) touched.add(terminal.enrolleeId);
      }
    }
    await this.completeIfDone(w, [...touched]);
  }

  /** Proofs with no terminal left pending become complete: the PIN is no longer kept, the event is recorded. */
  private async completeIfDone(w: WriteContext, enrolleeIds: readonly string[], now: number = this.ctx.clock.now()): Promise<void> {
    if (enrolleeIds.length === 0) return;
    const { tx } = w;
    for (const id of enrolleeIds) {
      const [pending] = await tx
        .select({ id: deletionProofTerminals.deviceId })
        .from(deletionProofTerminals)
        .where(and(eq(deletionProofTerminals.enrolleeId, id), eq(deletionProofTerminals.status, 'pending')))
        .limit(1);
      if (pending) continue;
      const [done] = await tx
        .update(deletionProofs)
        .set({ completedAt: now, pin: null, updatedAt: now })
        .where(and(eq(deletionProofs.enrolleeId, id), sql`${deletionProofs.completedAt} is null`))
        .returning();
      if (!done) continue;
      const [count] = await tx.select({ n: sql<number>`count(*)` }).from(deletionProofTerminals).where(eq(deletionProofTerminals.enrolleeId, id));
      await this.events.record(w, 'deletion_proof_completed', {
        enrollee: id,
        reason: done.reason,
        requested_at: iso(done.requestedAt)!,
        completed_at: iso(now)!,
        terminals: count?.n ?? 0,
      });
    }
  }

  /** Whether a proof of this person's deletion is kept (none: never asked, asked before proofs were kept, or removed by retention). */
  async kept(q: Queryable, enrolleeId: string): Promise<boolean> {
    const [proof] = await q.select({ id: deletionProofs.enrolleeId }).from(deletionProofs).where(eq(deletionProofs.enrolleeId, enrolleeId)).limit(1);
    return proof !== undefined;
  }

  /** Those of these people whose proof is kept (the enrollee view's `has_deletion_proof`). */
  async keptOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Set<string>> {
    const kept = new Set<string>();
    for (const ids of chunks(enrolleeIds, 500)) {
      const rows = await q
        .select({ id: deletionProofs.enrolleeId })
        .from(deletionProofs)
        .where(inArray(deletionProofs.enrolleeId, [...ids]));
      for (const r of rows) kept.add(r.id);
    }
    return kept;
  }

  /**
   * The signed proof of one person, for a caller who may see them (404 otherwise, or when no
   * deletion was asked), downloaded as JSON or PDF: audited (`proof.downloaded`) at the instant
   * it is issued, in a write of its own.
   */
  async document(enrolleeId: string, caller: Pick<Caller, 'areas' | 'by'>, format: 'json' | 'pdf'): Promise<ProofDocument> {
    const q = this.ctx.db.orm;
    const [proof] = await q.select().from(deletionProofs).where(eq(deletionProofs.enrolleeId, enrolleeId));
    if (!proof) {
      throw await noProofError(q, enrolleeId, {
        enrollees: this.enrollees,
        visible: (areaIds) => this.inScope(q, areaIds, caller),
        retentionDays: this.ctx.settings.RETENTION_DELETION_PROOFS_DAYS,
        now: this.ctx.clock.now(),
      });
    }
    if (!(await this.inScope(q, proof.areaIds, caller))) throw notAsked(enrolleeId);
    const terminals = await q.select().from(deletionProofTerminals).where(eq(deletionProofTerminals.enrolleeId, enrolleeId));
    const now = this.ctx.clock.now();
    const body = await proofBody(q, proof, terminals, { now, unreachableAfter: this.ctx.settings.DELETION_PROOF_UNREACHABLE_AFTER });
    const signature = await this.keys.sign(body, now);
    await auditDownload(this.ctx.db, now, { actor: caller.by, action: 'proof.downloaded', targetType: 'enrollee', targetId: enrolleeId, details: { format } });
    return { ...body, signature };
  }

  /** Whether a caller may see a proof of a person of these areas (the person's, when the deletion was asked). */
  private async inScope(q: Queryable, areaIds: string[], caller: Pick<Caller, 'areas'>): Promise<boolean> {
    if (caller.areas.length === 0) return true;
    const names = await areaNames(q, areaIds);
    return [...names.values()].some((name) => caller.areas.includes(name));
  }

  /**
   * Retention scrubbed these deleted people's tombstones: their proofs no longer name them (the
   * enrollee id stays; a proof downloaded before keeps its employee key and signature).
   */
  async forget(enrolleeIds: readonly string[]): Promise<void> {
    for (const ids of chunks(enrolleeIds, 500)) {
      await this.ctx.db.write(({ tx }) =>
        tx
          .update(deletionProofs)
          .set({ employee: null, pin: null })
          .where(inArray(deletionProofs.enrolleeId, [...ids])),
      );
    }
  }

  /** Retention: proofs complete (or asked, if never complete) before `cutoff` go, with their terminals. */
  async purgeBefore(cutoff: number): Promise<number> {
    const old = sql`coalesce(${deletionProofs.completedAt}, ${deletionProofs.requestedAt}) < ${cutoff}`;
    await deleteInBatches(
      this.ctx.db,
      deletionProofTerminals,
      sql`${deletionProofTerminals.enrolleeId} in (select ${deletionProofs.enrolleeId} from ${deletionProofs} where ${old})`,
    );
    return deleteInBatches(this.ctx.db, deletionProofs, old);
  }
}
