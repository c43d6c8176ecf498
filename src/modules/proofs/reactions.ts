/**
 * What the deletion proofs react to (wired in src/app/reactions.ts): the destruction of a
 * person's templates opens (or adds to) their proof, in the same transaction, once the deletes
 * are queued; a person's data a terminal uploads again (refused) reopens it until that delete is
 * answered; a terminal's answer to a delete confirms it; a delete that takes the place of one
 * the proof waits for is waited for instead; an operator's cancel of a delete a proof waits for
 * is refused.
 */

import type { CancelRefusal, CommandEvents, DeletesReplaced } from '../commands';
import type { ViewPart } from '../enrollees';
import type { EnrollmentEvents, TemplatesDestroyed } from '../enrollment';
import type { ReactionTo } from '../events';
import type { DeletionProofs } from './service';
import type { DeletionReason } from './tables';

/** The reasons of a destruction that ask for a proof (retention of the deactivated does not). */
const PROVEN: Readonly<Record<string, DeletionReason>> = { 'consent withdrawn': 'consent_withdrawn', 'enrollee deleted': 'deleted' };

/**
 * A person's templates destroyed (consent withdrawn, person deleted), none found included (no
 * `templates_destroyed` is raised then): their proof opens, listing every terminal that owes a delete.
 */
export const openProofOnDestruction =
  (proofs: DeletionProofs): TemplatesDestroyed =>
  async (w, destroyed) => {
    // Dated by the withdrawal's or the deletion's own instant, as its records are.
    const reason = PROVEN[destroyed.reason];
    if (reason) await proofs.open(w, destroyed.enrollee, reason, destroyed.count, destroyed.at);
  };

/**
 * template_rejected (a part taken to be a person's): if a deletion of theirs was asked and stands,
 * it is their data back on a terminal, and their proof waits for the delete the refusal queued.
 */
export const reopenProofOnReturnedData =
  (proofs: DeletionProofs): ReactionTo<EnrollmentEvents, 'template_rejected'> =>
  (w, rejected) =>
    proofs.dataReturned(
      w,
      rejected.flatMap(({ data }) =>
        data.enrollee ? [{ enrollee: data.enrollee, deviceId: data.device.id, pin: data.pin, type: data.type, index: data.index }] : [],
      ),
    );

/** device_command_finished (a delete): the terminal's confirmation goes into the proof; the last one completes it. */
export const confirmProofOnDelete =
  (proofs: DeletionProofs): ReactionTo<CommandEvents, 'device_command_finished'> =>
  (w, finished) =>
    proofs.commandFinished(
      w,
      finished.map((e) => e.data),
    );

/** A delete the proof waits for gave way to another (the person taken off the terminal): the proof waits for that one. */
export const followReplacedDeletes =
  (proofs: DeletionProofs): DeletesReplaced =>
  (w, replaced) =>
    proofs.followReplaced(w, replaced);

/** An operator's cancel of a delete that a deletion proof waits for is refused (withdrawal deletes everywhere). */
export const keepDeletesProofsAwait =
  (proofs: DeletionProofs): CancelRefusal =>
  (q, commands) =>
    proofs.keptDeletes(q, commands);

/**
 * A person's view says whether a proof of their deletion is kept (`has_deletion_proof`), so the
 * console asks for the proof only of those who have one (a 404 for everyone else was an error in
 * the browser's console and a refusal in the server's log at every visit of a person's page).
 */
export const deletionProofOfPeople =
  (proofs: DeletionProofs): ViewPart =>
  async (q, ids) => {
    const kept = await proofs.keptOf(q, ids);
    return new Map(ids.map((id) => [id, { has_deletion_proof: kept.has(id) }]));
  };
