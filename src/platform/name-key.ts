/**
 * How people's names compare, wherever the service matches or orders them: folded, ignoring
 * accents and case (`Ångström` is `angstrom`, `Díaz` is `diaz`, a full-width `Ａ` an `a`), the
 * letters Unicode does not decompose read as the letters they are written with (`ß` ss, `Ø` o,
 * `Ł` l, `Æ` ae). The search matches parts of folded names; the sort by name orders by the folded
 * name (stored as `name_key`, so that a page is a seek on its index), then by id. Before, the sort
 * compared names case-insensitively for ASCII only (`collate nocase`), so `Ångström` came after
 * `Zoë` in `enrollees/?sort=name` and the attendance grid while the Today board put it under A.
 *
 * The console's client runs this module too (client/format.ts), so a list a page orders itself
 * agrees with those the server pages: it must import nothing (test/architecture/wire-shapes.test.ts).
 */

/** Letters that decompose into no base letter and marks: read as what they are written with. */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ı: 'i',
  ŀ: 'l',
  ŧ: 't',
  ŋ: 'n',
};
const UNDECOMPOSED = /[ßæœøłđðþħıŀŧŋ]/g;

/** A name as it is matched and sorted: no accents, lower case, `ß` as `ss` (`Ångström` → `angstrom`). */
export function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(UNDECOMPOSED, (c) => LETTERS[c] ?? c);
}

/**
 * Two keys in the order the database sorts them (SQLite's BINARY collation compares UTF-8 bytes,
 * that is code points), for the lists ordered in memory (the Today board) to agree with those
 * paged from the database. JavaScript compares UTF-16 units, which put a character past U+FFFF
 * (its surrogates, D800-DFFF) before U+E000-U+FFFF: each unit is moved to its code point's place.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number) => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);
