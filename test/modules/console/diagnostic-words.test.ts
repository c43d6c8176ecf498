/** A diagnostic's time as the console says it: once, in its own form, never another time's place. */
import { describe, expect, test } from 'bun:test';
import { diagnosticWords } from '../../../src/modules/console/client/pages/diagnostics';

const format = (iso: string) => `<${iso}>`;

describe('diagnostic words', () => {
  test('one time in the message: the console’s form takes its place, nothing after', () => {
    const d = { message: 'Terminal T1 has not contacted the server since 2026-11-28 14:09 (Europe/Berlin).', since: '2026-11-28T13:09:00.000Z' };
    expect(diagnosticWords(d, format)).toEqual({ message: 'Terminal T1 has not contacted the server since <2026-11-28T13:09:00.000Z>.', sinceAfter: false });
  });

  test('two times (failed since one, refused since another): both left as said, since not put in either place', () => {
    const d = {
      message:
        'Terminal T1 refuses its commands: 1 command for it failed since 2026-11-28 14:00 (Europe/Berlin). It refuses deletes too: 1 delete refused since 2026-11-28 09:00 (Europe/Berlin).',
      since: '2026-11-28T08:00:00.000Z',
    };
    expect(diagnosticWords(d, format)).toEqual({ message: d.message, sinceAfter: false });
  });

  test('no time in the message: since said after it; no since, nothing', () => {
    expect(diagnosticWords({ message: 'Clock off.', since: '2026-11-28T08:00:00.000Z' }, format)).toEqual({ message: 'Clock off.', sinceAfter: true });
    expect(diagnosticWords({ message: 'Clock off.', since: null }, format)).toEqual({ message: 'Clock off.', sinceAfter: false });
  });
});
