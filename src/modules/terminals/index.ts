/**
 * The terminals feature: the ADMS endpoints under ADMS_URL_PREFIX, walk-up enrollment from
 * terminal uploads, remote enrollment (API route and `startRemoteEnrollment`), and the job
 * that keeps terminal clocks right across DST changes.
 */
import type { Elysia } from 'elysia';
import type { Core } from '../../app/core';
import type { Signals } from '../../app/context';
import { RemoteEnrollment, type StartRemoteEnrollment } from '../enrollment/remote-sessions';
import type { SessionView } from '../enrollment/sessions';
import type { FeatureParts } from '../../app/features';
import { syncDeviceClocks } from './clock-sync';
import { TerminalEndpoints } from './endpoints';
import { remoteEnrollmentRoutes } from '../enrollment/remote-routes';
import { admsRoutes } from './routes';
import { trackTemplateSync } from '../biometrics/sync-status';
import { TerminalUploads } from './uploads';
import { WalkUpEnrollment } from './walk-up';

export interface TerminalService {
  /** SPEC `start_enrollment_session(enrollee, device, fingers)`; `enrollee` is its UUID or PIN. */
  startRemoteEnrollment(enrollee: string, options: StartRemoteEnrollment): Promise<SessionView>;
}

export function installTerminals(core: Core, onSignals: (handlers: Partial<Signals>) => void): FeatureParts<TerminalService> {
  // Polls read the queue through CommandService's own idle cache; no signal is needed here.
  void onSignals;
  trackTemplateSync(core);
  core.jobs.register({
    name: 'sync-device-clocks',
    schedule: '0 5 * * * *',
    description: 'Queues CHECK to terminals whose zone changed its UTC offset (DST) since their last handshake.',
    run: () => syncDeviceClocks(core),
  });
  const remote = new RemoteEnrollment(core);
  const walkUp = new WalkUpEnrollment(core, remote);
  const endpoints = new TerminalEndpoints(core, new TerminalUploads(core, walkUp));
  return {
    // Each router carries its own prefix; FeatureParts holds them as plain Elysia instances.
    routes: [admsRoutes(core, endpoints) as unknown as Elysia, remoteEnrollmentRoutes(core, remote) as unknown as Elysia],
    service: {
      startRemoteEnrollment: (enrollee, options) => remote.start(enrollee, options),
    },
  };
}
