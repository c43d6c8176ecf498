/**
 * A terminal's punches from its USB stick (`devices/{sn}/punches/import/`), for a terminal that
 * cannot send them: choose the file the terminal saved, see what it would add (new punches, those
 * already here, those too old to keep, PINs nobody holds there, lines that cannot be read), then
 * import. Importing the same file again adds nothing.
 */
import type { DeviceDetailView } from '../../../devices';
import type { UsbImportResult } from '../../../terminals';
import { api, can, currentSession } from '../api';
import { h, section, table } from '../dom';
import { fileImport } from '../file-import';
import { count, localDay } from '../format';

/** The section, for those who may import, on a terminal that is approved (or disabled: its last punches). */
export function usbImportSection(device: DeviceDetailView): HTMLElement | null {
  if (!can('POST devices/{sn}/punches/import/') || device.status === 'pending_approval') return null;
  const path = `devices/${encodeURIComponent(device.serial_number)}/punches/import/`;
  const { form, out } = fileImport<UsbImportResult>({
    label: 'Attendance file',
    hint: 'The file the terminal saved, named like 1_attlog.dat.',
    accept: '.dat,.txt,text/plain',
    bytes: true,
    maxBytes: currentSession().terminal_file_max_bytes,
    send: (bytes, check) => api.postFile<UsbImportResult>(`${path}${check ? '?dry_run=true' : ''}`, bytes),
    report,
    summary,
    worth: (result) => result.imported > 0,
  });
  return section(
    'Punches from a USB stick',
    h(
      'p',
      {},
      'When this terminal cannot send its punches (no network where it hangs, or it is broken), save them on the terminal to a USB stick (its USB menu, “Download”, attendance records) and choose that file here. Punches already here are left out, so a file can be imported again, or a newer one holding the same days.',
    ),
    form,
    out,
  );
}

function summary(result: UsbImportResult): string {
  const punches = (n: number) => count(n, 'punch', 'punches');
  const added = result.dry_run ? `${punches(result.imported)} would be added` : `${punches(result.imported)} added`;
  const parts = [added];
  if (result.duplicates > 0) parts.push(`${result.duplicates} already here or repeated in the file`);
  if (result.other_terminal > 0) parts.push(`${punches(result.other_terminal)} another terminal’s (not added)`);
  if (result.too_old > 0) parts.push(`${punches(result.too_old)} older than what is kept (not added)`);
  if (result.outside_areas > 0) parts.push(`${punches(result.outside_areas)} of people outside your areas (not added: someone who sees them imports them)`);
  if (result.error_count > 0) parts.push(`${count(result.error_count, 'line', 'lines')} cannot be read`);
  return `${parts.join(', ')}.`;
}

function report(result: UsbImportResult): HTMLElement[] {
  const span =
    result.from && result.to
      ? h(
          'p',
          { class: 'muted' },
          result.from === result.to
            ? `The file holds punches of ${localDay(result.from)}.`
            : `The file holds punches from ${localDay(result.from)} to ${localDay(result.to)}.`,
        )
      : null;
  const unknown =
    result.unknown_pin_count > 0
      ? h(
          'p',
          { class: 'form-warn' },
          `${count(result.unknown_pin_count, 'PIN is', 'PINs are')} nobody’s on this terminal (${result.unknown_pins.join(', ')}${result.unknown_pin_count > result.unknown_pins.length ? ', …' : ''}): their punches are kept as the terminal’s own users’, and count for a person once that user is adopted (People on the terminal, below).`,
        )
      : null;
  const errors =
    result.error_count > 0
      ? [
          h('h3', {}, 'Lines that cannot be read'),
          h(
            'p',
            { class: 'muted' },
            result.error_count > result.errors.length
              ? `The first ${result.errors.length} of ${result.error_count}; nothing of them is added.`
              : 'Nothing of them is added.',
          ),
          table(
            ['Line', 'Problem'],
            result.errors.map((e) => [String(e.line), `${e.message.charAt(0).toUpperCase()}${e.message.slice(1)}.`]),
          ),
        ]
      : [];
  // Most of the file another terminal's: the file of another terminal was chosen (each saves 1_attlog.dat).
  const wrongFile =
    result.other_terminal > 0
      ? h(
          'p',
          { class: 'form-warn' },
          `${count(result.other_terminal, 'punch was', 'punches were')} sent by another terminal at the very same second: they are not added twice. If that is most of the file, it is probably another terminal’s: each terminal names its file 1_attlog.dat. (Another terminal’s punches are noticed only once that terminal has sent them.)`,
        )
      : null;
  return [h('p', { class: 'import-summary', role: 'status' }, summary(result)), span, wrongFile, unknown, ...errors].filter(
    (x): x is HTMLElement => x !== null,
  );
}
