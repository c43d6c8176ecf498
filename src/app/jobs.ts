/**
 * The one list of periodic jobs. The schedules, `POST jobs/{name}/run/`, the `bun run fpa:<name>`
 * scripts (package.json; a test keeps them in line) and the CLI all come from it.
 */
import { attendanceJobs } from '../modules/attendance';
import { commandJobs } from '../modules/commands';
import { completenessJobs } from '../modules/completeness';
import { deviceJobs, rotateTerminalPasswords } from '../modules/devices';
import { enrollmentJobs, rotateStagedKeys, rotateTemplateKeys } from '../modules/enrollment';
import { fleetJobs } from '../modules/fleet';
import type { JobDefinition } from '../modules/jobs';
import { retentionJobs } from '../modules/retention';
import { rotateTotpSecrets } from '../modules/sign-in-factors';
import { terminalJobs } from '../modules/terminals';
import { rotateWebhookSecrets, webhookJobs } from '../modules/webhooks';
import type { Runtime } from '../platform/runtime';
import type { Modules } from './modules';

export function jobDefinitions(runtime: Runtime, m: Modules): JobDefinition[] {
  return [
    ...deviceJobs(m.devices),
    ...terminalJobs(m.terminals),
    ...commandJobs(m.commands),
    ...fleetJobs(m.fleet),
    ...enrollmentJobs(m.enrollment),
    ...attendanceJobs(m.absences),
    ...completenessJobs(m.completeness),
    ...retentionJobs(m.retention),
    ...webhookJobs(m.webhooks),
    {
      name: 'rotate-keys',
      schedule: null,
      description:
        "Re-encrypts every template, staged upload, webhook signing secret, TOTP secret, proof-signing key and terminal user's password under the first TEMPLATE_ENCRYPTION_KEYS key (resumable).",
      run: async () => ({
        ...(await rotateTemplateKeys(runtime)),
        ...(await rotateStagedKeys(runtime)),
        ...(await rotateWebhookSecrets(runtime)),
        proof_keys_resealed: await m.proofs.keys.reseal(),
        ...(await rotateTotpSecrets(runtime)),
        ...(await rotateTerminalPasswords(runtime)),
      }),
    },
    {
      name: 'rotate-proof-key',
      schedule: null,
      description:
        'Makes a new key for signing deletion proofs; the old private key is destroyed, and its public key stays published with when it was retired, so proofs it signed before still verify.',
      run: async () => ({ ...(await m.proofs.keys.rotate()) }),
    },
  ];
}
