/**
 * Every action the server writes to the audit log has words in the console (event-words.ts), so
 * that the log reads "Terminal approved", never a code turned into words ("Device approved").
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionWords, NAMED_ACTIONS } from '../../../src/modules/console/client/event-words';

const SRC = join(import.meta.dir, '../../../src');

/** The action codes in the server's source: the quoted codes after `action:` (a ternary included). */
function writtenActions(): Set<string> {
  const found = new Set<string>();
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.includes('console/client')) continue;
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const [clause] of text.matchAll(/action: [^,\n]*/g)) {
      for (const [, code] of clause.matchAll(/'([a-z]+[._][a-z_.]+)'/g)) found.add(code!);
    }
  }
  return found;
}

describe('audit actions in the console', () => {
  test('every action code the server writes has its own words', () => {
    const written = writtenActions();
    // The scan finds the codes (a scan that found none would pass for nothing).
    for (const known of ['device.approved', 'consent.withdrawn', 'user.enabled', 'console_signed_in']) expect(written).toContain(known);
    expect([...written].filter((code) => !NAMED_ACTIONS.includes(code))).toEqual([]);
  });

  test('actions read as the events do; an unknown code still reads as words', () => {
    expect(actionWords('device.approved')).toBe('Terminal approved');
    expect(actionWords('enrollee.created')).toBe('Person added');
    expect(actionWords('something_new.done')).toBe('Something new done');
  });
});
