/**
 * The domain core: the services every transport (terminals, agents, administrators, jobs,
 * scripts, an embedding host) calls. Built once per instance from a Context.
 */
import type { AdminAuthenticator } from '../platform/http/admin-auth';
import { CommandService } from '../modules/commands/service';
import { DeviceService } from '../modules/devices/service';
import { EnrolleeService } from '../modules/enrollees/service';
import { JobRunner } from '../modules/jobs/runner';
import { PunchService } from '../modules/punches/service';
import { TemplateService } from '../modules/biometrics/service';
import type { Context } from './context';

export interface Core {
  ctx: Context;
  auth: AdminAuthenticator;
  commands: CommandService;
  templates: TemplateService;
  devices: DeviceService;
  enrollees: EnrolleeService;
  punches: PunchService;
  jobs: JobRunner;
}

export function createCore(ctx: Context, auth: AdminAuthenticator): Core {
  const commands = new CommandService(ctx);
  const templates = new TemplateService(ctx, commands);
  const devices = new DeviceService(ctx, commands, templates);
  const enrollees = new EnrolleeService(ctx, commands, templates);
  const punches = new PunchService(ctx);
  const jobs = new JobRunner(ctx);
  return { ctx, auth, commands, templates, devices, enrollees, punches, jobs };
}
