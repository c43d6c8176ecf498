/**
 * The domain core: the services every transport (terminals, agents, administrators, jobs,
 * scripts, an embedding host) calls. Built once per instance from a Context.
 */
import type { AdminAuthenticator } from '../admin-api/auth';
import { CommandService } from '../commands/commands';
import { DeviceService } from '../devices/devices';
import { EnrolleeService } from '../enrollees/enrollees';
import { JobRunner } from '../jobs/jobs';
import { PunchService } from '../punches/punches';
import { TemplateService } from '../templates/templates';
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
