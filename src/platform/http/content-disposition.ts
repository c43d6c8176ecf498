/**
 * `Content-Disposition` of every download (RFC 6266): one builder, so no route puts a name in the
 * header as it is. A header value must be bytes, and Bun refuses anything past Latin-1 (an
 * employee key `李雷` made the deletion proof's PDF a 500), sends Latin-1 as raw non-UTF-8 bytes
 * (`Jürgen`), and a quote in the name ended the quoted string (`a"b; filename=evil.exe` added a
 * second `filename`). So `filename=` is a plain ASCII fallback (letters and accents stripped of
 * their marks, digits, `.`, `_`, `-`; anything else `_`) and, when that differs from the real
 * name, `filename*=UTF-8''…` (RFC 8187 percent-encoding) keeps the real one, which every current
 * browser prefers.
 */

/** Characters that make a name a path or a line (separators, controls): never in a file name. */
const NOT_IN_A_NAME = /[\\/\p{Cc}]/gu;
/** An unpaired surrogate (text cut mid-character): not UTF-8, so it cannot be percent-encoded. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The name as a file name: no separators or controls, well-formed text; `download` when nothing is left. */
function fileNameOf(name: string): string {
  const cleaned = name.replace(LONE_SURROGATE, '\uFFFD').replace(NOT_IN_A_NAME, '_');
  return cleaned === '' ? 'download' : cleaned;
}

/** The ASCII fallback: `Jürgen` as `Jurgen`, `李雷` as `_`; `download` when only marks were left (a lone combining accent). */
function asciiOf(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_');
  return ascii === '' ? 'download' : ascii;
}

/** RFC 8187 `value-chars`: UTF-8 percent-encoded but for `attr-char` (encodeURIComponent also leaves `'()*`, which are not). */
function extValueOf(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `attachment; filename="…"` (ASCII), with `filename*=UTF-8''…` when the real name is more than that. */
export function attachmentDisposition(name: string): string {
  const real = fileNameOf(name);
  const ascii = asciiOf(real);
  return ascii === real ? `attachment; filename="${ascii}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${extValueOf(real)}`;
}
