/**
 * Where the features are put together: each installs its routes, jobs, start/stop hooks and
 * its part of the in-process service onto the core. The order matters only for hooks that
 * must run in the same transaction (outbox rows and attendance days with new punches).
 */
import type { Elysia } from 'elysia';
import type { Core } from './core';
import type { Signals } from './context';
import { expireSessions } from '../modules/enrollment/sessions';
import { rotateTemplateKeys } from '../modules/biometrics/rotate-keys';
import { installTerminals } from '../modules/terminals';
import { installAgents } from '../modules/enrollment';
import { installIntegrations } from '../modules/webhooks';
import { installAttendance } from '../modules/attendance';

export interface FeatureParts<S extends object = object> {
  /** Routers mounted on the plugin; each carries its own prefix. */
  routes: Elysia[];
  starts?: Array<() => void>;
  /** Background work that is part of serving (the webhook worker): started by every serving
   *  instance whatever TASK_BACKEND says, but not by scripts (`startJobs: false`). */
  background?: Array<() => void>;
  stops?: Array<() => Promise<void>>;
  service: S;
}

export function installFeatures(core: Core, onSignals: (handlers: Partial<Signals>) => void) {
  registerCoreJobs(core);
  const terminals = installTerminals(core, onSignals);
  const agents = installAgents(core, onSignals);
  const integrations = installIntegrations(core, onSignals);
  const attendance = installAttendance(core, onSignals);
  const parts = [terminals, agents, integrations, attendance];
  return {
    routes: parts.flatMap((p) => p.routes),
    starts: parts.flatMap((p) => p.starts ?? []),
    background: parts.flatMap((p) => p.background ?? []),
    stops: parts.flatMap((p) => p.stops ?? []),
    service: { ...terminals.service, ...agents.service, ...integrations.service, ...attendance.service },
  };
}

export type Features = ReturnType<typeof installFeatures>;

function registerCoreJobs(core: Core): void {
  const { jobs, devices, commands, ctx } = core;
  jobs.register({
    name: 'check-devices',
    schedule: '0 * * * * *',
    description: 'Marks terminals silent for DEVICE_OFFLINE_AFTER offline.',
    run: () => devices.checkDevices(),
  });
  jobs.register({
    name: 'expire-commands',
    schedule: '30 */5 * * * *',
    description: 'Expires device commands past their expiry time.',
    run: () => commands.expireOverdue(),
  });
  jobs.register({
    name: 'retry-commands',
    schedule: '15 */2 * * * *',
    description: 'Resends (or fails) commands whose result never came.',
    run: () => commands.retryUnacknowledged(),
  });
  jobs.register({
    name: 'expire-sessions',
    schedule: '45 * * * * *',
    description: 'Expires enrollment sessions past ENROLLMENT_SESSION_TTL.',
    run: () => expireSessions(ctx, commands),
  });
  jobs.register({
    name: 'rotate-keys',
    schedule: null,
    description: 'Re-encrypts every template under the first TEMPLATE_ENCRYPTION_KEYS key (resumable).',
    run: () => rotateTemplateKeys(ctx),
  });
}
