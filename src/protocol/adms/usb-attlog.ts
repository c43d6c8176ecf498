import { type AttlogLayout, type AttlogRecord, attlogRecordOf } from './attlog';
import { parseLines } from './lines';
import { type LineOutcome, type ParseResult, reject } from './types';

/**
 * The attendance file a terminal saves to a USB stick (`<machine number>_attlog.dat`, the
 * terminal's USB manager, "download attendance"), for a terminal that cannot send its punches:
 * one TAB-separated line a punch,
 * `PIN \t time \t machine number \t state \t verify \t workcode [\t reserved …]`, the PIN
 * right-aligned in spaces. Not the ADMS upload's order: the third field is the terminal's machine
 * number, and the state comes after it. The machine number says nothing the importer does not
 * know (it names the terminal), so it stays in `raw` only.
 *
 * Older black-and-white terminals write a binary file of the same name instead: it has NUL bytes,
 * which no text line has, and is refused as a whole (`isBinaryAttlog`).
 */
export function parseUsbAttlogLine(raw: string): LineOutcome<AttlogRecord> {
  // A byte that was not text (read as U+FFFD): a damaged line, never a PIN of a new user.
  if (raw.includes('\uFFFD')) return reject('the line holds bytes that are not text (a damaged file?)');
  return attlogRecordOf(raw, USB_LAYOUT);
}

/** The USB file's layout: the machine number third, then state, verify and workcode. */
const USB_LAYOUT: AttlogLayout = { state: 3, verify: 4, workCode: 5, fields: 'PIN, time, machine number, state, verify, …' };

/** Parse a USB attendance file. A bad line is reported and skipped; it never costs its neighbours. */
export function parseUsbAttlog(text: string): ParseResult<AttlogRecord> {
  return parseLines(text, parseUsbAttlogLine);
}

/** Whether the file is the binary kind (older terminals), which has NUL bytes no text line has. */
export function isBinaryAttlog(text: string): boolean {
  return text.includes('\u0000');
}

/** A record as a terminal writes it to the stick (tests and the simulator); the PIN right-aligned in 9. */
export function formatUsbAttlogLine(r: Pick<AttlogRecord, 'pin' | 'localTime' | 'state' | 'verifyType' | 'workCode' | 'extra'>, machineNumber = 1): string {
  return [r.pin.padStart(9, ' '), r.localTime, String(machineNumber), String(r.state), String(r.verifyType), r.workCode, ...r.extra].join('\t');
}
