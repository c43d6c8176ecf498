/**
 * Terminals: the ADMS push protocol endpoints under ADMS_URL_PREFIX, attendance uploads,
 * templates handed to walk-up enrollment (enrollment/walk-up.ts), device commands rendered in
 * the terminal's words, terminal clocks across DST changes, and a terminal's USB attendance file
 * imported by hand. Assembled here from its parts.
 */
import type { CommandService } from '../commands';
import type { DeviceService } from '../devices';
import type { Enrollment } from '../enrollment';
import type { PunchService } from '../punches';
import { ClockSync } from './clock-sync';
import { TerminalEndpoints } from './endpoints';
import { AttendanceIngest } from './ingest';
import { CommandRenderer } from './render';
import { admsRoutes } from './routes';
import type { TerminalRuntime } from './runtime';
import { TerminalUploads } from './uploads';
import { UsbImport } from './usb-import';

export interface TerminalDeps {
  devices: DeviceService;
  commands: CommandService;
  enrollment: Enrollment;
  punches: PunchService;
}

export class Terminals {
  readonly clock: ClockSync;
  readonly endpoints: TerminalEndpoints;
  readonly renderer: CommandRenderer;
  /** A terminal's USB attendance file, imported by an administrator (`devices/{sn}/punches/import/`). */
  readonly usbImport: UsbImport;

  constructor(
    private readonly ctx: TerminalRuntime,
    deps: TerminalDeps,
  ) {
    const { devices, commands, enrollment, punches } = deps;
    this.clock = new ClockSync(ctx, devices, commands);
    const attendance = new AttendanceIngest(ctx, devices, punches);
    this.usbImport = new UsbImport(ctx, devices, punches);
    this.renderer = new CommandRenderer(
      commands,
      enrollment.templates,
      enrollment.fanOut,
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
      uploads: new TerminalUploads(ctx, devices, attendance, enrollment.walkUp),
      attendance,
      clock: this.clock,
    });
  }

  routes() {
    return admsRoutes(this.ctx, this.endpoints);
  }
}
