/**
 * Why a person has no deletion proof (the 404 of `enrollees/{id}/deletion-proof/`). Proofs are
 * kept from the release that brought them (migration 0008): a person whose consent was withdrawn,
 * or who was deleted, under an earlier release has none, and none can be made for that request
 * afterwards (what the terminals answered then was not kept, and a proof signed now would claim
 * it). Telling them "withdraw their consent or delete them first" would be wrong: their answer
 * says what was asked, that no proof is kept of it, and what can still be done
 * (`details.reason: "no_proof_kept"`, README "Proof of deletion").
 */
import type { Queryable } from '../../platform/db/client';
import { FpaError } from '../../platform/errors';
import type { EnrolleeService } from '../enrollees';
import { lastWithdrawnAt } from '../enrollment';
import type { DeletionReason } from './tables';

const DAY_MS = 86_400_000;

/** The answer for a person with no deletion asked (or out of the caller's areas: the same, so nothing is revealed). */
export const notAsked = (enrolleeId: string): FpaError =>
  new FpaError(
    'not_found',
    'no deletion proof of this person for you: none was asked (withdraw their consent or delete them first), or they are outside your areas',
    { enrollee: enrolleeId },
  );

export interface NoProofContext {
  enrollees: EnrolleeService;
  /** Whether the caller may see a person of these areas. */
  visible(areaIds: string[]): Promise<boolean>;
  /** RETENTION_DELETION_PROOFS_DAYS (0: proofs are never removed). */
  retentionDays: number;
  now: number;
}

/** The 404 for a person without a proof: asked before proofs were kept (no_proof_kept), or never asked. */
export async function noProofError(q: Queryable, enrolleeId: string, ctx: NoProofContext): Promise<FpaError> {
  const person = await ctx.enrollees.find(q, enrolleeId);
  if (!person || !(await ctx.visible(await ctx.enrollees.membership.areaIdsOf(q, enrolleeId)))) return notAsked(enrolleeId);
  const deleted = person.status === 'deleted';
  const withdrawnAt = deleted ? null : await lastWithdrawnAt(q, enrolleeId);
  if (!deleted && withdrawnAt === null) return notAsked(enrolleeId);
  // A tombstone's last change is no earlier than the deletion: past the retention period, its proof may have been removed.
  const askedAt = withdrawnAt ?? person.updatedAt;
  const mayHaveExpired = ctx.retentionDays > 0 && askedAt < ctx.now - ctx.retentionDays * DAY_MS;
  const asked: DeletionReason = deleted ? 'deleted' : 'consent_withdrawn';
  return new FpaError('not_found', noProofMessage(asked, withdrawnAt, mayHaveExpired), { enrollee: enrolleeId, reason: 'no_proof_kept', asked });
}

function noProofMessage(asked: DeletionReason, withdrawnAt: number | null, mayHaveExpired: boolean): string {
  const why = `before this release kept deletion proofs${mayHaveExpired ? ' (or its proof was removed by retention, RETENTION_DELETION_PROOFS_DAYS after it was complete)' : ''}`;
  if (asked === 'deleted') {
    return `this person was deleted ${why}: no proof can be issued for that deletion, and a deleted person cannot be deleted again`;
  }
  const on = withdrawnAt === null ? '' : ` on ${new Date(withdrawnAt).toISOString()}`;
  return (
    `this person's consent was withdrawn${on} ${why}: no proof can be issued for that withdrawal. ` +
    'Withdrawing their consent again (DELETE enrollees/{id}/consent/) issues a proof from then on: no template on the server, and the deletes the terminals still owe'
  );
}
