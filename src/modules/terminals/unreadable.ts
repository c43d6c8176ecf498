/**
 * Bodies that are not text. A terminal's tables are text; a compressed data pack (gzip of ATTLOG
 * lines, `ContentType=tgz`, a 3.x `datafmt=3` pack) or a binary file is not, and answering it
 * `OK` would tell the terminal its data was taken when none of it was read: it would be lost. So
 * such a body is refused (422) on every table, and the terminal keeps it and sends it again; the
 * device log says which table (`upload_refused`), so an installer can switch the pack off.
 *
 * Not text: a NUL, bytes that did not decode (U+FFFD), or control characters (not tab, LF, CR)
 * in the numbers binary has. A terminal whose code page maps every byte (Windows-1252 for the
 * Western languages, 1251 for Russian) decodes any binary without a U+FFFD, but not without many
 * control characters, which a table's text does not hold. A table
 * read line by line refuses such a body only when not one of its lines could be read: a text body
 * with a bad line (a stray byte) keeps its good lines and logs the bad one, as ever, and a firmware
 * that ends its body with a NUL loses nothing. The good bodies of the ingest path are never
 * scanned: the check runs once, only on a body of which nothing was read.
 */
import { type DeviceRow, noteOnDevice } from '../devices';
import { AdmsRefusal } from './reply';
import type { TerminalRuntime } from './runtime';

// biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL is what it looks for
const NOT_TEXT = /[\u0000\uFFFD]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it counts
const CONTROL = /[\u0001-\u0008\u000B\u000C\u000E-\u001F]/g;

/**
 * Whether a decoded body is not text: a NUL or bytes that did not decode, or control characters
 * (not tab, LF, CR) in the numbers binary has (about one byte in eight of compressed data), not
 * the stray one a damaged line of text may hold, which costs that line only.
 */
export function isNotText(text: string): boolean {
  if (NOT_TEXT.test(text)) return true;
  const controls = text.match(CONTROL)?.length ?? 0;
  return controls > Math.max(2, text.length / 100);
}

/**
 * Refuses (422) a body that is not text when `read` (the records, parameters or lines taken from
 * it) is 0: nothing of it could be read, so nothing may be acknowledged. Tables acknowledged
 * without being read pass 0: any body of them that is not text is refused.
 */
export async function refuseUnread(ctx: TerminalRuntime, device: DeviceRow, table: string, text: string, read: number): Promise<void> {
  if (read > 0 || !isNotText(text)) return;
  const now = ctx.clock.now();
  await ctx.db.write(({ tx }) =>
    noteOnDevice(
      tx,
      device.id,
      'upload_refused',
      `table ${table}: a body that is not text (a compressed data pack?), of which nothing could be read; refused, so the terminal keeps it`,
      { table, unreadable: true },
      now,
    ),
  );
  throw new AdmsRefusal(422, `table ${table}: the body is not text`);
}
