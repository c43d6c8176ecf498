/**
 * Health data in attendance records. Thermal and mask-detecting terminals add a mask flag, a
 * measured body temperature and the same temperature converted (°C/°F) to every punch (ADMS.md
 * §4.1 fields 8–10; 3.x `maskflag`, `temperature`, `convtemperature`). Attendance needs none of
 * it, and a temperature kept with a named person's punch is health data held for as long as the
 * punch: the parsers leave it out of what is stored (`raw`, `extra`), as access events already do,
 * and out of the line a rejection quotes (LineError `raw`, the excerpt the device log keeps).
 */
/** After the workcode, ADMS lines carry two reserved fields, then mask, temperature, converted temperature. */
const FIRST_HEALTH_EXTRA = 2;
const HEALTH_EXTRAS = 3;

/** 3.x record keys holding health data (compared in lower case). */
const HEALTH_KEYS = new Set(['maskflag', 'temperature', 'convtemperature']);

/**
 * A positional attendance line's fields with its health fields blanked: positions are kept (a
 * field after them, the MB10's record counter, stays where it was), blanks at the end dropped.
 * `workCode` is the workcode's position in this layout (ADMS upload and USB file differ). The
 * input is never changed: blanked fields come in a new array.
 */
export function blankHealthFields(fields: readonly string[], workCode: number): readonly string[] {
  const first = workCode + 1 + FIRST_HEALTH_EXTRA;
  // No health fields (most lines): the same array, so a caller keeps the line as sent without
  // rebuilding it (attlog.ts compares them); read-only both ways, so neither side can change it.
  if (fields.length <= first) return fields;
  const out = fields.map((field, i) => (i >= first && i < first + HEALTH_EXTRAS ? '' : field));
  // Nothing after them: the line ends where its health data began.
  return out.slice(first).every((field) => field === '') ? out.slice(0, first) : out;
}

/**
 * A `key=value` TAB-separated record line (rtlog, transaction) without its health fields. The
 * first field of a `tabledata` line carries the table's name before its key
 * (`transaction temperature=36.6`): that name stays, the pair goes.
 */
export function withoutHealthPairs(raw: string): string {
  const parts = raw.split('\t');
  const kept: string[] = [];
  // The table's name of a dropped first pair, put before the next pair kept.
  let name = '';
  for (const part of parts) {
    const equals = part.indexOf('=');
    const before = equals < 0 ? '' : part.slice(0, equals).trimEnd();
    const keyStart = before.search(/\S+$/);
    if (equals < 0 || keyStart < 0 || !HEALTH_KEYS.has(before.slice(keyStart).toLowerCase())) {
      kept.push(name === '' ? part : `${name} ${part}`);
      name = '';
      continue;
    }
    name = [name, before.slice(0, keyStart).trim()].filter((text) => text !== '').join(' ');
  }
  if (name !== '') kept.push(name);
  return kept.join('\t') === raw ? raw : kept.join('\t');
}
