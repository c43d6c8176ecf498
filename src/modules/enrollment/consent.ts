/**
 * Consent to biometric processing (docs/spec.md): recorded with a version, a method and who approved
 * it. Giving consent again replaces the current record; withdrawing it destroys every template
 * and deletes them from the terminals (sessions close by reacting to `consent_withdrawn`). A
 * withdrawal that finds nothing to withdraw records nothing: no event tells listeners and
 * webhooks of a withdrawal that did not happen.
 */
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { chunks } from '../../platform/chunks';
import type { Queryable, WriteContext } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import { cursorOf, type Page, timeIdCursor } from '../../platform/http/paging';
import { audit } from '../audit';
import type { ConsentView, ConsentWithdrawalView, EnrolleeService } from '../enrollees';
import type { EventChannel } from '../events';
import { consentView, lastWithdrawnAt } from './consent-records';
import type { EnrollmentEvents } from './events';
import type { ConsentRecordView } from './model';
import type { EnrollmentRuntime } from './runtime';
import { OPEN_STATUSES } from './sessions';
import { consents, enrollmentSessions } from './tables';
import type { TemplateStore } from './template-store';

/** Whether a deletion proof is kept for this person (the proofs module answers: src/app/reactions.ts). */
export type ProofKept = (q: Queryable, enrolleeId: string) => Promise<boolean>;

export class ConsentService {
  private proofKept: ProofKept = async () => true;

  constructor(
    private readonly ctx: EnrollmentRuntime,
    private readonly events: EventChannel<EnrollmentEvents>,
    private readonly enrollees: EnrolleeService,
    private readonly templates: TemplateStore,
  ) {}

  async give(enrolleeId: string, consent: { version: string; method: string; by: string }): Promise<ConsentView> {
    const version = consent.version?.trim();
    const method = consent.method?.trim();
    if (!version || !method) throw new FpaError('validation_error', 'consent needs a version and a method', { fields: ['version', 'method'] });
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const enrollee = await this.enrollees.requireActive(w.tx, enrolleeId);
      // A new consent replaces the current one (for example a new version of the notice).
      await this.endCurrent(w, enrollee.id, consent.by, now);
      const row = {
        id: crypto.randomUUID(),
        enrolleeId: enrollee.id,
        version,
        method,
        givenBy: consent.by,
        givenAt: now,
        withdrawnAt: null,
        withdrawnBy: null,
      };
      await w.tx.insert(consents).values(row);
      await audit(w.tx, now, { actor: consent.by, action: 'consent.given', targetType: 'enrollee', targetId: enrollee.id, details: { version, method } });
      await this.events.record(w, 'consent_given', { enrollee: enrollee.id, version, method, by: consent.by });
      return consentView(row);
    });
  }

  /** How a withdrawal tells whether the person's deletion has its proof already. */
  askingProofsWith(kept: ProofKept): void {
    this.proofKept = kept;
  }

  /**
   * Withdrawal destroys every template and deletes them from the terminals. With no consent to
   * end and nothing of the person's left anywhere (never consented, or withdrawn already), it
   * changes nothing and records nothing: no event, no audit entry.
   */
  async withdraw(enrolleeId: string, options: { by: string }): Promise<{ withdrawn: boolean; templates_destroyed: number }> {
    return this.ctx.db.write(async (w) => {
      const now = this.ctx.clock.now();
      const enrollee = await this.enrollees.get(enrolleeId, w.tx);
      const withdrawn = await this.endCurrent(w, enrollee.id, options.by, now);
      if (!withdrawn && !(await this.leftToWithdraw(w.tx, enrollee.id))) return { withdrawn: false, templates_destroyed: 0 };
      // The withdrawal first, then what follows from it (`templates_destroyed`, and the proof its
      // reaction may complete at once), as a deletion's `enrollee_deleted` comes before its proof.
      await this.events.record(w, 'consent_withdrawn', { enrollee: enrollee.id, by: options.by }, { at: now });
      const destroyed = await this.templates.destroyTemplatesIn(w, enrollee, 'consent withdrawn', options.by, { at: now });
      if (withdrawn) await this.noteDestroyed(w, enrollee.id, now, destroyed);
      await audit(w.tx, now, {
        actor: options.by,
        action: 'consent.withdrawn',
        targetType: 'enrollee',
        targetId: enrollee.id,
        details: { templates_destroyed: destroyed },
      });
      return { withdrawn, templates_destroyed: destroyed };
    });
  }

  /**
   * What a withdrawal with no consent to end still has to do: templates stored without consent
   * (ENROLLMENT_REQUIRE_CONSENT off), data of the person's on terminals that the service did not
   * store (parts refused as theirs and kept there, a terminal user of theirs holding biometrics),
   * an open enrollment session, or the proof of a withdrawal made before proofs were kept
   * (withdrawing again issues one from then on, README "Proof of deletion").
   */
  private async leftToWithdraw(q: Queryable, enrolleeId: string): Promise<boolean> {
    if (await this.templates.anythingLeftOf(q, enrolleeId)) return true;
    const [open] = await q
      .select({ id: enrollmentSessions.id })
      .from(enrollmentSessions)
      .where(and(eq(enrollmentSessions.enrolleeId, enrolleeId), inArray(enrollmentSessions.status, [...OPEN_STATUSES])))
      .limit(1);
    if (open) return true;
    return (await lastWithdrawnAt(q, enrolleeId)) !== null && !(await this.proofKept(q, enrolleeId));
  }

  /**
   * How many templates the end of a consent at `at` destroyed (a withdrawal, the person's
   * deletion): kept on the record, so that whoever may read the person reads what it did.
   */
  async noteDestroyed(w: WriteContext, enrolleeId: string, at: number, destroyed: number): Promise<void> {
    await w.tx
      .update(consents)
      .set({ templatesDestroyed: destroyed })
      .where(and(eq(consents.enrolleeId, enrolleeId), eq(consents.withdrawnAt, at)));
  }

  /** Ends the current consent (deletion of the enrollee, a replacement); true if there was one. */
  async endCurrent(w: WriteContext, enrolleeId: string, by: string, now: number): Promise<boolean> {
    const ended = await w.tx
      .update(consents)
      .set({ withdrawnAt: now, withdrawnBy: by })
      .where(and(eq(consents.enrolleeId, enrolleeId), isNull(consents.withdrawnAt)))
      .returning({ id: consents.id });
    return ended.length > 0;
  }

  /**
   * The last withdrawal of each of these enrollees that has no consent now (a consent replaced by
   * a new one was not withdrawn): when, by whom, and how many templates it destroyed.
   */
  async lastWithdrawalOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, ConsentWithdrawalView>> {
    const out = new Map<string, ConsentWithdrawalView>();
    for (const ids of chunks(enrolleeIds, 500)) {
      const rows = await q
        .select({ enrolleeId: consents.enrolleeId, at: consents.withdrawnAt, by: consents.withdrawnBy, destroyed: consents.templatesDestroyed })
        .from(consents)
        .where(and(inArray(consents.enrolleeId, ids), isNotNull(consents.withdrawnAt)))
        .orderBy(desc(consents.withdrawnAt));
      for (const r of rows) {
        if (out.has(r.enrolleeId) || r.at === null) continue;
        out.set(r.enrolleeId, { withdrawn_at: new Date(r.at).toISOString(), withdrawn_by: r.by ?? '', templates_destroyed: r.destroyed });
      }
    }
    return out;
  }

  /**
   * Every consent record of the person, oldest first (subject access, `enrollees/{id}/consents/`):
   * what each record holds, never anything biometric. A record ended by the consent recorded after
   * it (its end is that one's start) was replaced, not withdrawn.
   */
  async history(enrolleeId: string, page: { limit: number; cursor?: string }): Promise<Page<ConsentRecordView>> {
    // The record's columns by its table's name (a select of one table names them bare), the next one's by its alias.
    const replaced = sql<number>`exists (select 1 from ${consents} next_consent where next_consent.enrollee_id = ${consents}.enrollee_id
      and next_consent.given_at = ${consents}.withdrawn_at and next_consent.id <> ${consents}.id)`;
    const after = timeIdCursor('enrollee-consents', page.cursor);
    const rows = await this.ctx.db.orm
      .select({ record: consents, replaced })
      .from(consents)
      .where(
        and(
          eq(consents.enrolleeId, enrolleeId),
          after ? or(gt(consents.givenAt, after.time), and(eq(consents.givenAt, after.time), gt(consents.id, after.id))) : undefined,
        ),
      )
      .orderBy(asc(consents.givenAt), asc(consents.id))
      .limit(page.limit + 1);
    const shown = rows.slice(0, page.limit);
    const last = shown[shown.length - 1]?.record;
    return {
      results: shown.map(({ record: r, replaced: wasReplaced }) => ({
        ...consentView(r),
        withdrawn_at: r.withdrawnAt === null ? null : new Date(r.withdrawnAt).toISOString(),
        withdrawn_by: r.withdrawnBy,
        ended: r.withdrawnAt === null ? null : wasReplaced ? 'replaced' : 'withdrawn',
        templates_destroyed: r.templatesDestroyed,
      })),
      next_cursor: rows.length > page.limit && last ? cursorOf('enrollee-consents', [last.givenAt, last.id]) : null,
    };
  }

  /** Current consent per enrollee. */
  async currentOf(q: Queryable, enrolleeIds: readonly string[]): Promise<Map<string, ConsentView>> {
    const out = new Map<string, ConsentView>();
    for (const ids of chunks(enrolleeIds, 500)) {
      const rows = await q
        .select()
        .from(consents)
        .where(and(inArray(consents.enrolleeId, ids), isNull(consents.withdrawnAt)));
      for (const r of rows) out.set(r.enrolleeId, consentView(r));
    }
    return out;
  }
}
