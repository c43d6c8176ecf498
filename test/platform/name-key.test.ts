/**
 * How names compare (platform/name-key.ts): folded as the search folds them, ignoring accents and
 * case; ordered as the database orders the stored keys; and the console's order by name
 * (client/format.ts, which runs the same module) the same as the server's, so the lists a page
 * sorts itself agree with those the server pages.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { byName } from '../../src/modules/console/client/format';
import { openDatabase } from '../../src/platform/db/client';
import { compareKeys, nameKey } from '../../src/platform/name-key';
import { tempDir } from '../support/harness';

const NAMES = [
  'Zoë Zimmer',
  'Ångström Anders',
  'ada Lovelace',
  'Ada Lovelace',
  'ÉMILE Zola',
  'Émile Zola',
  'Łukasz Łęcki',
  'Søren Ødegård',
  'Straße Strasse',
  'Æsa Œdipe',
  'İlkay Işık',
  'Ｆｕｌｌ Ｗｉｄｔｈ',
  'سارة محمد',
  'דנה לוי',
  '王小明',
  'Emoji 😀 Person',
  'Private \uE000 Use',
  '',
];

describe('name keys', () => {
  test('accents, case and letters that do not decompose are folded', () => {
    expect(nameKey('Ångström')).toBe('angstrom');
    expect(nameKey('Zoë')).toBe('zoe');
    expect(nameKey('ÉMILE')).toBe('emile');
    expect(nameKey('Łukasz Łęcki')).toBe('lukasz lecki');
    expect(nameKey('Søren Ødegård')).toBe('soren odegard');
    expect(nameKey('Straße')).toBe('strasse');
    expect(nameKey('Æsa Œdipe')).toBe('aesa oedipe');
    expect(nameKey('İlkay Işık')).toBe('ilkay isik');
    expect(nameKey('Ｆｕｌｌ')).toBe('full');
    // Scripts without case or accents are left as they are.
    expect(nameKey('سارة محمد')).toBe('سارة محمد');
  });

  test('Ångström sorts under A, with Ada, not after Zoë; case and accents do not part namesakes', () => {
    const sorted = ['Zoë Zimmer', 'Ångström Anders', 'Ada Lovelace', 'émile Zola'].sort((a, b) => compareKeys(nameKey(a), nameKey(b)));
    expect(sorted).toEqual(['Ada Lovelace', 'Ångström Anders', 'émile Zola', 'Zoë Zimmer']);
    expect(nameKey('ada lovelace')).toBe(nameKey('ADA LOVELACE'));
  });

  test('keys compare as the database orders them (code points), here and in the console', async () => {
    const tmp = tempDir('fpa-name-key-');
    const db = await openDatabase({ url: `file:${join(tmp.dir, 'keys.db')}`, backgroundCheckpoint: false });
    try {
      await db.client.execute('create table k (key text not null, id text not null)');
      const people = NAMES.map((name, i) => ({ id: `id-${String(i).padStart(2, '0')}`, display_name: name }));
      for (const p of people) await db.client.execute({ sql: 'insert into k values (?, ?)', args: [nameKey(p.display_name), p.id] });
      const stored = (await db.client.execute('select id from k order by key, id')).rows.map((r) => String(r.id));
      const server = [...people].sort((a, b) => compareKeys(nameKey(a.display_name), nameKey(b.display_name)) || (a.id < b.id ? -1 : 1));
      expect(server.map((p) => p.id)).toEqual(stored);
      expect([...people].sort(byName).map((p) => p.id)).toEqual(stored);
      // A character past U+FFFF after U+E000 (JavaScript's own `<` puts it first).
      expect(compareKeys('\uE000', '😀')).toBeLessThan(0);
      expect('\uE000' < '😀').toBe(false);
    } finally {
      await db.close();
      tmp.cleanup();
    }
  });
});
