/** Deletion proofs: signed evidence that a person's biometric data is gone, server and terminals. */
export type { ProofEvents } from './events';
export type { DeletionProofView } from './model';
export * as proofReactions from './reactions';
export { deletionProofRoutes, proofKeyRoutes } from './routes';
export { PROOF_SETTINGS } from './runtime';
export { DeletionProofs } from './service';
export { sealedProofKeySamples } from './signing-keys';
