/**
 * The console's imports (people, punches, a terminal's USB file) work one way: a file is chosen
 * and checked (a dry run: what would be done, what cannot be used), then imported on request.
 * Choosing another file starts over; the same file is sent both times.
 */
import { announce, field, h, replace, section, table } from './dom';
import { decodeTextFile, encodingNote, type FileEncoding } from './file-text';
import { FieldError, onSubmit } from './form-errors';
import { fileSize } from './format';
import { focusHeadingOf } from './keep-focus';

export interface FileImport<R> {
  /** The file field's label and hint, and the files it offers. */
  label: string;
  hint: string;
  accept: string;
  /** The largest file the server takes here (the console session says): a larger one is refused before it is sent, in words. */
  maxBytes: number;
  /** Sends the file's content: a dry run (`check`) or the import. */
  send(content: string | ArrayBuffer, check: boolean): Promise<R>;
  /** Read as text (CSV: UTF-8, else Windows-1252, said so; file-text.ts) or as the bytes it holds (a terminal's file). */
  bytes?: boolean;
  report(result: R): HTMLElement[];
  summary(result: R): string;
  /** Whether the check found anything to import (Import is offered then). */
  worth(result: R): boolean;
}

/** The form (with its Check and Import buttons) and where the reports go. */
export function fileImport<R>(spec: FileImport<R>): { form: HTMLFormElement; out: HTMLElement } {
  const file = h('input', { type: 'file', accept: spec.accept, required: true });
  const out = h('div', { class: 'import-result' });
  let content: string | ArrayBuffer | null = null;
  let encoding: FileEncoding = 'utf-8';
  const show = (result: R) => {
    const note = encodingNote(encoding);
    replace(out, note ? h('p', { class: 'form-warn' }, note) : null, ...spec.report(result));
  };
  const importNow = h('button', { type: 'button', class: 'primary', hidden: true }, 'Import');
  const form = onSubmit(
    h(
      'form',
      { class: 'stack' },
      field(spec.label, file, `${spec.hint} At most ${fileSize(spec.maxBytes)}.`),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Check the file'), importNow),
    ),
    { file, body: file },
    async () => {
      const chosen = file.files?.[0];
      if (!chosen) throw new Error('Choose the file first.');
      if (chosen.size > spec.maxBytes) throw tooLarge(chosen.size, spec.maxBytes);
      const bytes = await chosen.arrayBuffer();
      ({ content, encoding } = spec.bytes ? { content: bytes, encoding: 'utf-8' } : asText(bytes));
      // What is sent is the text as UTF-8: a Windows-1252 file's accents take two bytes there.
      const sent = typeof content === 'string' ? new TextEncoder().encode(content).length : content.byteLength;
      if (sent > spec.maxBytes) throw tooLarge(sent, spec.maxBytes);
      const result = await spec.send(content, true);
      show(result);
      importNow.hidden = !spec.worth(result);
    },
  );
  file.addEventListener('change', () => {
    importNow.hidden = true;
    replace(out);
  });
  let importing = false;
  importNow.addEventListener('click', async () => {
    if (content === null || importing) return;
    // Busy, not disabled: a disabled button loses focus (to <body>) while the file is sent.
    importing = true;
    importNow.setAttribute('aria-disabled', 'true');
    try {
      const result = await spec.send(content, false);
      show(result);
      // Done, Import goes away: focus to the heading of its section (not <body>), the result said.
      if (document.activeElement === importNow) focusHeadingOf(importNow);
      importNow.hidden = true;
      announce(spec.summary(result));
    } finally {
      importing = false;
      importNow.removeAttribute('aria-disabled');
    }
  });
  return { form, out };
}

/** A file over the limit, said before it is sent (the server would answer 413). */
function tooLarge(size: number, max: number): FieldError {
  return new FieldError(
    'file',
    `This file is ${fileSize(size)}: the largest that can be imported here is ${fileSize(max)}. Split it into smaller files and import each.`,
  );
}

/** A CSV file's text as it is sent (always UTF-8 on the wire), and how its bytes were read. */
function asText(bytes: ArrayBuffer): { content: string; encoding: FileEncoding } {
  const { text, encoding } = decodeTextFile(new Uint8Array(bytes));
  return { content: text, encoding };
}

/** The lines a file could not use, each problem as a sentence; `note` says what became of them. Null when there are none. */
export function badLines(errors: readonly { line: number; message: string }[], note: string): HTMLElement | null {
  if (errors.length === 0) return null;
  return section(
    'Lines that cannot be used',
    h('p', { class: 'muted' }, note),
    table(
      ['Line', 'Problem'],
      errors.map((e) => [String(e.line), `${e.message.charAt(0).toUpperCase()}${e.message.slice(1)}.`]),
    ),
  );
}
