import { describe, expect, test } from 'bun:test';
import { counted } from '../../src/platform/words';

describe('counted', () => {
  test('says a count with its noun, never `noun(s)`: the plural is the noun + s unless given', () => {
    expect([0, 1, 2].map((n) => counted(n, 'command'))).toEqual(['0 commands', '1 command', '2 commands']);
    expect([1, 3].map((n) => counted(n, 'person was', 'people were'))).toEqual(['1 person was', '3 people were']);
  });
});
