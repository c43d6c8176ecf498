/**
 * A terminal's punches brought in from its USB stick (`<n>_attlog.dat`), for a terminal that
 * cannot send them: no network where it hangs, a broken board, or a log older than its upload
 * stamp. The lines are the terminal's own, so they are stored as its upload would store them
 * (punches.ingest): its time zone and clock history, the owner of each PIN on that terminal, the
 * same dedupe key. A line already stored, or sent later by the terminal itself, is a duplicate:
 * importing a file again, or a newer file holding the older lines, stores each punch once. Each
 * punch is flagged `usb_file` and its event names who imported it; an import that added punches
 * is audited.
 *
 * A dry run reads the file and the database and stores nothing: what would be new, what is
 * already stored, what is older than retention, whose PINs are nobody's, and the bad lines.
 */
import { chunks } from '../../platform/chunks';
import { FpaError } from '../../platform/errors';
import type { AreaScope } from '../../platform/scope';
import { isBinaryAttlog, parseUsbAttlogLine, splitNumberedRecords } from '../../protocol/adms';
import { audit } from '../audit';
import type { DeviceRow, DeviceService } from '../devices';
import { type IncomingPunch, type PunchService, storedOfDevice } from '../punches';
import { type OffsetHistory, toIncomingPunch } from './ingest';
import type { TerminalRuntime } from './runtime';

/** The flag of every punch that came from a USB file. */
export const USB_FILE_FLAG = 'usb_file';
/** Lines a transaction: a terminal's upload is 200 at most; a file of two years is 200,000. */
const LINES_PER_BATCH = 1_000;
/** Bad lines and unknown PINs listed in the answer (all are counted). */
const LISTED = 100;

export interface UsbImportResult {
  dry_run: boolean;
  /** Punch lines read (bad lines not included). */
  lines: number;
  imported: number;
  duplicates: number;
  too_old: number;
  unknown_pins: string[];
  unknown_pin_count: number;
  from: string | null;
  to: string | null;
  errors: { line: number; message: string }[];
  error_count: number;
}

interface Read {
  punches: IncomingPunch[];
  errors: { line: number; message: string }[];
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
    if (isBinaryAttlog(text)) {
      throw new FpaError(
        'validation_error',
        'this is the binary attendance file of an older terminal: only the text file newer terminals write (lines such as “1 TAB 2026-10-03 08:59:01 TAB 1 …”) can be read',
        { field: 'body' },
      );
    }
    if (device.status === 'pending_approval') {
      throw new FpaError('conflict', 'approve the terminal first: its punches are kept once it is approved', { status: device.status });
    }
    const now = this.ctx.clock.now();
    const read = await this.read(device, text, now);
    const kept = this.punches.withinRetention(read.punches, now);
    const { fresh, repeated } = await this.split(device, kept);
    const unknown = await this.punches.unknownPins(device, [...new Set(kept.map((p) => p.pin))]);
    const counts = options.dryRun ? { imported: fresh.length, duplicates: repeated } : await this.store(device, fresh, repeated, options.by);
    const dates = read.punches.map((p) => p.localTime.slice(0, 10)).sort();
    const result: UsbImportResult = {
      dry_run: options.dryRun,
      lines: read.punches.length,
      ...counts,
      too_old: read.punches.length - kept.length,
      unknown_pins: unknown.slice(0, LISTED),
      unknown_pin_count: unknown.length,
      from: dates[0] ?? null,
      to: dates[dates.length - 1] ?? null,
      errors: read.errors.slice(0, LISTED),
      error_count: read.errors.length,
    };
    // Audited when it added punches: a file that added nothing changed nothing.
    if (!options.dryRun && result.imported > 0) await this.audit(device, result, options.by);
    return result;
  }

  /** The file's lines as the terminal's punches (its zone, its clock history), and the lines that cannot be used. */
  private async read(device: DeviceRow, text: string, now: number): Promise<Read> {
    const zone = this.devices.timeZoneOf(device);
    const history: OffsetHistory = await this.devices.reports.clockOffsets(this.ctx.db.orm, device.id);
    const out: Read = { punches: [], errors: [] };
    for (const { line, text: raw } of splitNumberedRecords(text)) {
      const parsed = parseUsbAttlogLine(raw);
      if (!parsed.ok) {
        out.errors.push({ line, message: parsed.reason });
        continue;
      }
      const punch = toIncomingPunch(parsed.record, zone, now, history);
      if (punch) out.punches.push({ ...punch, flags: [...(punch.flags ?? []), USB_FILE_FLAG] });
      else out.errors.push({ line, message: `time ${parsed.record.localTime} cannot be converted in zone ${zone}` });
    }
    return out;
  }

  /** The lines not stored yet, each once; `repeated` counts the others (stored, or earlier in the file). */
  private async split(device: DeviceRow, lines: IncomingPunch[]): Promise<{ fresh: IncomingPunch[]; repeated: number }> {
    const seen = await storedOfDevice(this.ctx.db.orm, device.id, lines);
    const fresh: IncomingPunch[] = [];
    for (const line of lines) {
      const key = `${line.pin}\t${line.localTime}`;
      if (seen.has(key)) continue;
      seen.add(key);
      fresh.push(line);
    }
    return { fresh, repeated: lines.length - fresh.length };
  }

  /** Stores the new lines as the terminal's upload would, a batch a transaction. */
  private async store(device: DeviceRow, fresh: IncomingPunch[], repeated: number, by: string): Promise<{ imported: number; duplicates: number }> {
    let imported = 0;
    // Stored meanwhile (the terminal came back and sent them): still a duplicate, never twice.
    let duplicates = repeated;
    for (const batch of chunks(fresh, LINES_PER_BATCH)) {
      const stored = await this.punches.ingest(device, batch, { by });
      imported += stored.inserted;
      duplicates += stored.duplicates;
    }
    return { imported, duplicates };
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
          too_old: result.too_old,
          unknown_pins: result.unknown_pin_count,
          bad_lines: result.error_count,
          from: result.from,
          to: result.to,
        },
      }),
    );
  }
}
