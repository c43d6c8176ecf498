/**
 * Per-device template sync status follows the terminal's answers: a template command that
 * succeeded makes the template `present` there; one that failed or expired makes it `failed`
 * (`incompatible` when the terminal said the algorithm does not match, Return=-30).
 */
import { and, eq } from 'drizzle-orm';
import type { Core } from '../../app/core';
import { templateSync } from '../../app/schema';
import { describeReturnCode } from '../enrollment/remote-sessions';

/** The terminal refused the template's algorithm version (2022+ firmware). */
const ALGORITHM_MISMATCH = -30;

export function trackTemplateSync(core: Core): void {
  core.commands.onFinished(async (tx, command, outcome, result) => {
    if (command.kind !== 'update_template') return;
    const payload = command.payload as { templateId?: unknown; templateVersion?: unknown };
    if (typeof payload.templateId !== 'string') return;
    const code = result?.returnCode ?? command.returnCode ?? null;
    const status = outcome === 'succeeded' ? 'present' : code === ALGORITHM_MISMATCH ? 'incompatible' : 'failed';
    const detail = outcome === 'succeeded' ? null : outcome === 'expired' ? 'the command expired before the terminal answered' : describeReturnCode(code);
    await tx
      .update(templateSync)
      .set({ status, detail, updatedAt: core.ctx.clock.now() })
      // Only the version this command carried: a newer version's status is left alone.
      .where(and(eq(templateSync.templateId, payload.templateId), eq(templateSync.deviceId, command.deviceId), eq(templateSync.templateVersion, Number(payload.templateVersion))));
  });
}
