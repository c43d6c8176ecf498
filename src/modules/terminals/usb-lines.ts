/**
 * The lines of a terminal's USB file (usb-import.ts), read as its upload is read, and sorted into
 * what an import stores and what it only counts.
 */
import { yieldToOthers } from '../../platform/event-loop';
import { parseUsbAttlogLine, splitNumberedRecords } from '../../protocol/adms';
import type { DeviceRow } from '../devices';
import type { IncomingPunch } from '../punches';
import { type OffsetHistory, toIncomingPunch } from './ingest';

/** The flag of every punch that came from a USB file. */
const USB_FILE_FLAG = 'usb_file';
/** Bad lines listed in the answer (all are counted): a file of garbage must not fill memory with them. */
const LISTED_ERRORS = 100;
/** Lines read between two turns of the event loop: a file of 250,000 lines never holds the terminals' answers up. */
const LINES_PER_TURN = 5_000;

export interface ReadFile {
  punches: IncomingPunch[];
  errors: { line: number; message: string }[];
  errorCount: number;
}

/** The file's lines as the terminal's punches (its zone, its clock history); the lines that cannot be used, the first LISTED_ERRORS of them. */
export async function readUsbFile(text: string, zone: string, history: OffsetHistory, now: number): Promise<ReadFile> {
  const out: ReadFile = { punches: [], errors: [], errorCount: 0 };
  const refuse = (line: number, message: string) => {
    out.errorCount++;
    if (out.errors.length < LISTED_ERRORS) out.errors.push({ line, message });
  };
  let turn = 0;
  for (const { line, text: raw } of splitNumberedRecords(text)) {
    if (++turn % LINES_PER_TURN === 0) await yieldToOthers();
    const parsed = parseUsbAttlogLine(raw);
    if (!parsed.ok) {
      refuse(line, parsed.reason);
      continue;
    }
    const punch = toIncomingPunch(parsed.record, zone, now, history);
    if (punch) out.punches.push({ ...punch, flags: [...(punch.flags ?? []), USB_FILE_FLAG] });
    else refuse(line, `time ${parsed.record.localTime} cannot be converted in zone ${zone}`);
  }
  return out;
}

/**
 * The lines of a person whose punch at that very instant came from *another* terminal: the file
 * of another terminal chosen by mistake (every terminal saves `1_attlog.dat`). A person punches
 * on one terminal at a time: storing them would count each punch twice.
 */
export function fromOtherTerminals(
  device: DeviceRow,
  lines: readonly IncomingPunch[],
  owners: ReadonlyMap<string, { id: string }>,
  stored: readonly { enrolleeId: string; deviceId: string | null; at: number }[],
): Set<IncomingPunch> {
  const elsewhere = new Set(stored.filter((p) => p.deviceId !== null && p.deviceId !== device.id).map((p) => `${p.enrolleeId}\t${p.at}`));
  const out = new Set<IncomingPunch>();
  if (elsewhere.size === 0) return out;
  for (const line of lines) {
    const owner = owners.get(line.pin);
    if (owner && elsewhere.has(`${owner.id}\t${line.punchedAt}`)) out.add(line);
  }
  return out;
}

/** The lines not stored yet, each once (`seen`: what the terminal's punches hold, `PIN \t local time`); `repeated` counts the others. */
export function notStoredYet(lines: readonly IncomingPunch[], seen: Set<string>): { fresh: IncomingPunch[]; repeated: IncomingPunch[] } {
  const fresh: IncomingPunch[] = [];
  const repeated: IncomingPunch[] = [];
  for (const line of lines) {
    const key = `${line.pin}\t${line.localTime}`;
    if (seen.has(key)) repeated.push(line);
    else {
      seen.add(key);
      fresh.push(line);
    }
  }
  return { fresh, repeated };
}

/** The file's first and last local dates. */
export function spanOf(lines: readonly IncomingPunch[]): { from: string | null; to: string | null } {
  if (lines.length === 0) return { from: null, to: null };
  let [from, to] = [lines[0]!.localTime, lines[0]!.localTime];
  for (const l of lines) {
    if (l.localTime < from) from = l.localTime;
    if (l.localTime > to) to = l.localTime;
  }
  return { from: from.slice(0, 10), to: to.slice(0, 10) };
}
