/**
 * A strict reader of `Content-Disposition` (RFC 6266, RFC 8187), written apart from the builder
 * it checks: the type, then `; name=value` parameters (a token or a quoted string; `filename*` an
 * ext-value, UTF-8 only), nothing else; a parameter twice is an error. The file name is
 * `filename*` when given, else `filename`, as browsers read it.
 */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"';
const PARAM = new RegExp(`;[ \\t]*(${TOKEN})[ \\t]*=[ \\t]*(${QUOTED}|${TOKEN})[ \\t]*`, 'y');
const EXT_VALUE = /^UTF-8'[A-Za-z0-9-]*'((?:[!#$&+.^_`|~0-9A-Za-z-]|%[0-9A-Fa-f]{2})*)$/i;

export function readDisposition(header: string): { type: string; filename: string } {
  const type = /^[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*/.exec(header);
  if (!type) throw new Error(`no disposition type: ${header}`);
  const params = new Map<string, string>();
  PARAM.lastIndex = type[0].length;
  while (PARAM.lastIndex < header.length) {
    const match = PARAM.exec(header);
    if (!match) throw new Error(`not a parameter at ${PARAM.lastIndex}: ${header}`);
    const name = (match[1] ?? '').toLowerCase();
    if (params.has(name)) throw new Error(`${name} twice: ${header}`);
    const raw = match[2] ?? '';
    params.set(name, raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw);
  }
  const ext = params.get('filename*');
  if (ext !== undefined) {
    const encoded = EXT_VALUE.exec(ext);
    if (!encoded) throw new Error(`filename* is not a UTF-8 ext-value: ${ext}`);
    return { type: type[1] ?? '', filename: decodeURIComponent(encoded[1] ?? '') };
  }
  const filename = params.get('filename');
  if (filename === undefined) throw new Error(`no filename: ${header}`);
  return { type: type[1] ?? '', filename };
}
