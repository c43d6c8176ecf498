/** Deletion proofs: signed evidence that a person's biometric data is gone, server and terminals. */
export type { ProofEvents } from './events';
export type { Jwks } from './keys';
export type { DeletionProof } from './model';
export { confirmProofOnDelete, openProofOnDestruction } from './reactions';
export { deletionProofRoutes, PROOF_KEY_PATH, proofKeyRoutes } from './routes';
export { DeletionProofs } from './service';
