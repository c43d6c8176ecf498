/**
 * A terminal's punches brought in from its USB stick (`<n>_attlog.dat`), for a terminal that
 * cannot send them: no network where it hangs, a broken board, or a firmware that cannot re-send.
 * The lines are the terminal's own, so they are stored as its upload would store them
 * (punches.ingest): its time zone and clock history, the owner of each PIN on that terminal, the
 * same dedupe key. A line already stored, or sent later by the terminal itself, is a duplicate:
 * importing a file again, or a newer file holding the older lines, stores each punch once. A line
 * whose person's punch at that instant came from another terminal is not stored (the wrong
 * terminal's file). Each punch is flagged `usb_file` and its event names who imported it; an
 * import that added punches is audited, even one that failed midway.
 *
 * A caller limited to areas neither learns of nor adds to the punches of people outside them:
 * their lines are counted only as `outside_areas` and not stored (nothing proves the text is the
 * terminal's; someone who sees those people, or the terminal itself, brings them in).
 * A dry run reads the file and the database and stores nothing.
 */
import { chunks } from '../../platform/chunks';
import { FpaError } from '../../platform/errors';
import type { AreaScope } from '../../platform/scope';
import { isBinaryAttlog } from '../../protocol/adms';
import { audit } from '../audit';
import type { DeviceRow, DeviceService } from '../devices';
import { holderAt, type IncomingPunch, type PunchService, punchesAt, storedOfDevice } from '../punches';
import type { TerminalRuntime } from './runtime';
import { fromOtherTerminals, notStoredYet, readUsbFile, spanOf } from './usb-lines';

/** Lines a transaction: a terminal's upload is 200 at most; a file of two years is 200,000. */
const LINES_PER_BATCH = 1_000;
/** Unknown PINs listed in the answer (all are counted). */
const LISTED_PINS = 100;

export interface UsbImportResult {
  dry_run: boolean;
  /** Punch lines read (bad lines not included). */
  lines: number;
  imported: number;
  duplicates: number;
  other_terminal: number;
  too_old: number;
  outside_areas: number;
  unknown_pins: string[];
  unknown_pin_count: number;
  from: string | null;
  to: string | null;
  errors: { line: number; message: string }[];
  error_count: number;
}

/** The file's lines sorted: what is stored, and what is only counted. */
interface Plan {
  fresh: IncomingPunch[];
  duplicates: number;
  otherTerminal: number;
  outside: number;
  unknown: string[];
}

/** A file that holds no line to read (empty: a wrong file, or one the terminal never wrote), or an older terminal's binary file: refused whole. */
function refuseUnreadable(text: string): void {
  if (text.trim() === '') {
    throw new FpaError('validation_error', 'the file is empty: choose the attendance file the terminal saved (named like 1_attlog.dat, one punch a line)', {
      field: 'body',
    });
  }
  if (isBinaryAttlog(text)) {
    throw new FpaError(
      'validation_error',
      'this is the binary attendance file of an older terminal: only the text file newer terminals write (lines such as “1 TAB 2026-10-03 08:59:01 TAB 1 …”) can be read',
      { field: 'body' },
    );
  }
}

export class UsbImport {
  constructor(
    private readonly ctx: TerminalRuntime,
    private readonly devices: DeviceService,
    private readonly punches: PunchService,
  ) {}

  /** `POST devices/{sn}/punches/import/`: the file's text; `dryRun` stores nothing. */
  async run(serial: string, text: string, options: { dryRun: boolean; by: string; scope: AreaScope }): Promise<UsbImportResult> {
    const device = await this.devices.visible(serial, options.scope);
    refuseUnreadable(text);
    if (device.status === 'pending_approval') {
      throw new FpaError('conflict', 'approve the terminal first: its punches are kept once it is approved', { status: device.status });
    }
    const now = this.ctx.clock.now();
    const history = await this.devices.reports.clockOffsets(this.ctx.db.orm, device.id);
    const read = await readUsbFile(text, this.devices.timeZoneOf(device), history, now);
    const kept = this.punches.withinRetention(read.punches, now);
    const plan = await this.plan(device, kept, options.scope);
    const result: UsbImportResult = {
      dry_run: options.dryRun,
      lines: read.punches.length,
      imported: plan.fresh.length,
      duplicates: plan.duplicates,
      other_terminal: plan.otherTerminal,
      too_old: read.punches.length - kept.length,
      outside_areas: plan.outside,
      unknown_pins: plan.unknown.slice(0, LISTED_PINS),
      unknown_pin_count: plan.unknown.length,
      ...spanOf(read.punches),
      errors: read.errors,
      error_count: read.errorCount,
    };
    return options.dryRun ? result : this.store(device, plan, result, options.by);
  }

  /** Which lines are stored, which are duplicates or another terminal's, and which the caller may not see. */
  private async plan(device: DeviceRow, lines: IncomingPunch[], scope: AreaScope): Promise<Plan> {
    const pins = [...new Set(lines.map((l) => l.pin))];
    const { owners, outside } = await this.punches.ownersOf(device, pins, scope);
    const ownerOf = (l: IncomingPunch) => holderAt(owners.get(l.pin), l.punchedAt);
    const { fresh: candidates, repeated } = notStoredYet(lines, await storedOfDevice(this.ctx.db.orm, device.id, lines));
    // Only lines not stored from this terminal can be another's: a re-import asks nothing more.
    const owned = candidates.flatMap((l) => {
      const owner = ownerOf(l);
      return owner ? [{ enrolleeId: owner.id, at: l.punchedAt }] : [];
    });
    const otherTerminal = fromOtherTerminals(device, candidates, owners, await punchesAt((s) => this.ctx.db.client.execute(s), owned));
    const fresh = candidates.filter((l) => !otherTerminal.has(l));
    const seen = (l: IncomingPunch) => !outside.has(l.pin);
    return {
      fresh: fresh.filter(seen),
      duplicates: repeated.filter(seen).length,
      otherTerminal: [...otherTerminal].filter(seen).length,
      outside: lines.filter((l) => !seen(l)).length,
      unknown: [...new Set(lines.filter((l) => !ownerOf(l)).map((l) => l.pin))],
    };
  }

  /**
   * Stores the new lines as the terminal's upload would, a batch a transaction; a line stored
   * meanwhile (the terminal came back and sent it) is still a duplicate, never stored twice. What
   * was stored is audited even when a batch fails (what was committed stays).
   */
  private async store(device: DeviceRow, plan: Plan, planned: UsbImportResult, by: string): Promise<UsbImportResult> {
    const result = { ...planned, imported: 0 };
    try {
      for (const batch of chunks(plan.fresh, LINES_PER_BATCH)) {
        const stored = await this.punches.ingest(device, batch, { by });
        result.imported += stored.inserted;
        result.duplicates += stored.duplicates;
        // Past the horizon since the file was checked (a purge ran meanwhile): too old after all.
        result.too_old += stored.pastRetention;
      }
    } finally {
      if (result.imported > 0) await this.audit(device, result, by);
    }
    return result;
  }

  private async audit(device: DeviceRow, result: UsbImportResult, by: string): Promise<void> {
    await this.ctx.db.write(({ tx }) =>
      audit(tx, this.ctx.clock.now(), {
        actor: by,
        action: 'device.punches_imported',
        targetType: 'device',
        targetId: device.serialNumber,
        details: {
          device: device.serialNumber,
          imported: result.imported,
          duplicates: result.duplicates,
          other_terminal: result.other_terminal,
          too_old: result.too_old,
          outside_areas: result.outside_areas,
          unknown_pins: result.unknown_pin_count,
          bad_lines: result.error_count,
          from: result.from,
          to: result.to,
        },
      }),
    );
  }
}
