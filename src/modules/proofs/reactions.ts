/**
 * What the deletion proofs react to, wired by the composition root (src/app/modules.ts): the
 * destruction of a person's templates opens (or adds to) their proof, in the same transaction,
 * once the deletes are queued; a terminal's answer to a delete confirms it.
 */
import type { Biometrics } from '../biometrics';
import type { CommandService } from '../commands';
import type { DeletionProofs } from './service';
import type { DeletionReason } from './tables';

/** The `templates_destroyed` reasons that ask for a proof (retention of the deactivated does not). */
const PROVEN: Readonly<Record<string, DeletionReason>> = { 'consent withdrawn': 'consent_withdrawn', 'enrollee deleted': 'deleted' };

export function openProofOnDestruction(proofs: DeletionProofs, biometrics: Biometrics): void {
  biometrics.events.react('templates_destroyed', async (w, destroyed) => {
    for (const { data } of destroyed) {
      const reason = PROVEN[data.reason];
      if (reason) await proofs.open(w, data.enrollee, reason, data.count);
    }
  });
}

export function confirmProofOnDelete(proofs: DeletionProofs, commands: CommandService): void {
  commands.events.react('device_command_finished', (w, finished) =>
    proofs.commandFinished(
      w,
      finished.map((e) => e.data),
    ),
  );
}
