/**
 * The text of a CSV file chosen in the console. The API takes UTF-8 only (a body that is not is
 * refused), but Excel's default "CSV (Comma delimited)" is the Windows code page (Windows-1252 in
 * Western Europe and the Americas): read leniently as UTF-8 (`File.text()`), José came out as
 * Jos� and was stored so. A file is read as UTF-8 when it is valid UTF-8 (nearly never true of
 * Windows-1252 text with accented letters), as UTF-16 when it starts with that byte-order mark
 * (Excel's "Unicode Text"), else as Windows-1252, and the console says which (it cannot be sure
 * of the code page: a file from a Greek or Polish Windows is another one).
 */

/** How a file's bytes were read. */
export type FileEncoding = 'utf-8' | 'utf-16' | 'windows-1252';

export interface FileText {
  text: string;
  encoding: FileEncoding;
}

/** The text of a file's bytes, and how it was read (see above). Never throws. */
export function decodeTextFile(bytes: Uint8Array): FileText {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes), encoding: 'utf-16' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes), encoding: 'utf-16' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}

/** What the console says of a file that was not UTF-8; null for UTF-8. */
export function encodingNote(encoding: FileEncoding): string | null {
  if (encoding === 'windows-1252')
    return 'This file is not UTF-8: it was read as Windows-1252, what Excel saves as “CSV (Comma delimited)”. Check that the names below are spelt right; if letters look wrong, save the file in Excel as “CSV UTF-8 (Comma delimited)” and choose it again.';
  if (encoding === 'utf-16')
    return 'This file is UTF-16 (Excel’s “Unicode Text”): it was read as such. Its columns must be separated by commas: save it in Excel as “CSV UTF-8 (Comma delimited)” if they are not.';
  return null;
}
