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

/** A `key=value` TAB-separated record line (rtlog, transaction) without its health fields. */
export function withoutHealthPairs(raw: string): string {
  const parts = raw.split('\t');
  const kept = parts.filter((part) => {
    const equals = part.indexOf('=');
    return equals < 0 || !HEALTH_KEYS.has(part.slice(0, equals).trim().toLowerCase());
  });
  return kept.length === parts.length ? raw : kept.join('\t');
}
