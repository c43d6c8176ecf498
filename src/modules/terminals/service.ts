/**
 * Terminals: the ADMS push protocol endpoints under ADMS_URL_PREFIX, attendance uploads,
 * walk-up enrollment from terminal uploads, device commands rendered in the terminal's words,
 * and terminal clocks across DST changes. Assembled here from its parts.
 */
import type { Runtime } from '../../platform/runtime';
import type { Biometrics } from '../biometrics';
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { EnrolleeService } from '../enrollees';
import type { Enrollment } from '../enrollment';
import type { EventChannel, EventLog } from '../events';
import type { PunchService } from '../punches';
import { ClockSync } from './clock-sync';
import { TerminalEndpoints } from './endpoints';
import type { TerminalEvents } from './events';
import { AttendanceIngest } from './ingest';
import { CommandRenderer } from './render';
import { admsRoutes } from './routes';
import { TerminalUploads } from './uploads';
import { WalkUpEnrollment } from './walk-up';

export interface TerminalDeps {
  devices: DeviceService;
  commands: CommandService;
  enrollees: EnrolleeService;
  biometrics: Biometrics;
  enrollment: Enrollment;
  punches: PunchService;
}

export class Terminals {
  readonly events: EventChannel<TerminalEvents>;
  readonly clock: ClockSync;
  readonly endpoints: TerminalEndpoints;
  readonly renderer: CommandRenderer;

  constructor(
    private readonly ctx: Runtime,
    log: EventLog,
    deps: TerminalDeps,
  ) {
    const { devices, commands, enrollees, biometrics, enrollment, punches } = deps;
    this.events = log.channel<TerminalEvents>();
    this.clock = new ClockSync(ctx, devices, commands);
    const attendance = new AttendanceIngest(ctx, devices, punches);
    const walkUp = new WalkUpEnrollment(ctx, this.events, { devices, enrollees, biometrics, enrollment, commands });
    this.renderer = new CommandRenderer(
      commands,
      biometrics.templates,
      devices.users,
      ctx.log,
      { maxCommands: ctx.settings.ADMS_MAX_COMMANDS_PER_REQUEST, maxBytes: ctx.settings.ADMS_MAX_COMMAND_BYTES },
      ctx.clock,
      (device) => this.clock.zoneOf(device),
    );
    this.endpoints = new TerminalEndpoints(ctx, {
      devices,
      commands,
      renderer: this.renderer,
      uploads: new TerminalUploads(ctx, devices, attendance, walkUp),
      attendance,
      clock: this.clock,
    });
  }

  routes() {
    return admsRoutes(this.ctx, this.endpoints);
  }
}
