import { formatUsbAttlogLine, parseAttlogLine } from '../protocol/adms';
import type { SimulatedTerminal } from './terminal';

/**
 * A simulated terminal's whole log as it saves it to a USB stick (`<machine number>_attlog.dat`):
 * every record it holds, sent or not, in the file's own order of fields.
 */
export function usbAttlogFile(terminal: Pick<SimulatedTerminal, 'attlog'>, machineNumber = 1): string {
  const lines = terminal.attlog.map((line) => {
    const parsed = parseAttlogLine(line);
    return parsed.ok ? formatUsbAttlogLine(parsed.record, machineNumber) : line;
  });
  return lines.map((l) => `${l}\r\n`).join('');
}
