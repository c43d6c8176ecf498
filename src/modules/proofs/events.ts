/** What the proofs module announces: ids and facts, never personal data. */
import type { DeletionReason } from './tables';

export interface ProofEvents {
  /**
   * Every terminal that held a person's data confirmed its delete (or none held any): their
   * deletion proof (`GET enrollees/{id}/deletion-proof/`) is complete; again when a proof their
   * data back on a terminal reopened completes again.
   */
  deletion_proof_completed: { enrollee: string; reason: DeletionReason; requested_at: string; completed_at: string; terminals: number };
}
