/** The settings this module reads: all it is given of them (src/platform/runtime.ts). */
import type { Settings } from '../../platform/config/settings';
import type { ModuleRuntime, Sealing } from '../../platform/runtime';

export const PROOF_SETTINGS = ['DELETION_PROOF_UNREACHABLE_AFTER', 'RETENTION_DELETION_PROOFS_DAYS'] as const satisfies readonly (keyof Settings)[];

export type ProofRuntime = ModuleRuntime<(typeof PROOF_SETTINGS)[number]> & Sealing;
