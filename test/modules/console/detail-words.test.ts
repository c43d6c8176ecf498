/** The details of events and audit entries as the Operations page words them. */
import { describe, expect, test } from 'bun:test';
import { summarize } from '../../../src/modules/console/client/detail-words';
import { isolated } from '../../../src/modules/console/client/format';

const names = {
  person: (id: string) => (id === '0b0e7c55-1d2e-4f3a-9b8c-7d6e5f4a3b2c' ? 'Ada Obi' : null),
  terminal: (serial: string) => (serial === 'FRONTDOOR1' ? 'Front door' : null),
};
const ADA = '0b0e7c55-1d2e-4f3a-9b8c-7d6e5f4a3b2c';

describe('details in words', () => {
  test('a manual punch: the person named, the reason kept, its stored state left out (it says nothing of in or out)', () => {
    expect(summarize({ enrollee: ADA, employee: 'E-1', device_pin: '10000', state: 0, reason: 'forgot to clock out' }, names)).toBe(
      'Person: Ada Obi, Employee ID: E-1, PIN: 10000, Reason: forgot to clock out',
    );
  });

  test('a punch: whose, its local time as it was kept, its state in words, its terminal by name', () => {
    const punch = { id: '91d7bed7-4610-4b98-befe-df6538dccb39', employee: 'E-1', enrollee: ADA, device_pin: '10000', device: 'FRONTDOOR1' };
    const at = { punched_at: '2026-03-02T07:00:00.000Z', local_time: '2026-03-02 08:00:00' };
    // The wall time as it stands (not moved into a zone), in the one format of the console (the
    // runtime's language: two-digit hours on a 24-hour clock, `8:00 AM` on a 12-hour one).
    const twelve = new Intl.DateTimeFormat(undefined, { hour: 'numeric' }).resolvedOptions().hourCycle?.startsWith('h1');
    const when = new Intl.DateTimeFormat(undefined, {
      timeZone: 'UTC',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: twelve ? 'numeric' : '2-digit',
      minute: '2-digit',
    }).format(new Date('2026-03-02T08:00:00Z'));
    if (twelve) expect(when).not.toContain(' 08:00');
    expect(summarize({ punch: { ...punch, ...at, state: 1, source: 'device', voided: false }, sender: { id: 'x', serial_number: 'FRONTDOOR1' } }, names)).toBe(
      `Ada Obi, ${when}, check-out, Terminal: Front door`,
    );
    // Someone the page has no name for: their employee id; a voided punch says so.
    expect(summarize({ punch: { ...punch, enrollee: 'gone', ...at, state: 4, source: 'device', voided: true }, reason: 'twice' }, names)).toBe(
      `E-1, ${when}, overtime in, voided, Reason: twice`,
    );
    // A manual punch's state 0 is the one given when none is said: left out; another is said.
    expect(summarize({ punch: { ...punch, ...at, state: 0, source: 'manual', voided: false }, by: 'bea' }, names)).toBe(`Ada Obi, ${when}, By: bea`);
    expect(summarize({ punch: { ...punch, ...at, state: 1, source: 'import', voided: false } }, names)).toBe(`Ada Obi, ${when}, check-out`);
    // A terminal's own state key outside the usual six is said as its number.
    expect(summarize({ punch: { ...punch, ...at, state: 9, source: 'device', voided: false } }, names)).toBe(`Ada Obi, ${when}, state 9`);
    // A state the terminal sent that could not be read is stored as 0: said as unknown, never as check-in.
    expect(summarize({ punch: { ...punch, ...at, state: 0, flags: ['unknown_state'], source: 'device', voided: false } }, names)).toBe(
      `Ada Obi, ${when}, state unknown`,
    );
  });

  test('a stored fingerprint: the finger named, versions and parts left to the API', () => {
    expect(summarize({ index: 6, part: 0, algorithm_version: '10', version: 1, source: 'remote' })).toBe('Finger: Right index, Source: remote');
    // A face's index is not a finger.
    expect(summarize({ type: 'face', index: 0 })).toBe('Type: face, Index: 0');
  });

  test('an attendance day: whose, which date, what status', () => {
    expect(summarize({ day: { enrollee: ADA, employee: 'E-1', date: '2026-11-27', status: 'incomplete', worked_seconds: 0 } }, names)).toMatch(
      /^Ada Obi, .*27.*2026: missing punch$/,
    );
    expect(summarize({ day: { enrollee: 'someone-else', employee: 'E-9', date: '2026-11-27', status: 'present' } }, names)).toMatch(/^E-9, /);
  });

  test('a terminal by its name, a clock drift and an answer in words', () => {
    expect(summarize({ device: { serial_number: 'FRONTDOOR1' }, drift_seconds: -603, return_code: 0 }, names)).toBe(
      'Terminal: Front door, Clock behind by 10 minutes, Answer: done',
    );
    // A terminal heard from a new address: which address is which, as confirming it needs.
    expect(summarize({ device: { serial_number: 'FRONTDOOR1' }, pinned_ip: '10.0.0.5', ip: '10.0.0.9' }, names)).toBe(
      'Terminal: Front door, Trusted address: 10.0.0.5, From address: 10.0.0.9',
    );
    expect(summarize({ return_code: -1002 })).toBe('Answer: code -1002');
  });

  test('a right-to-left name is kept apart from the date, id or words after it (Unicode isolates, as <bdi>); others are left as they are', () => {
    const arabic = { person: (id: string) => (id === ADA ? isolated('سارة محمد') : null), terminal: () => null };
    const said = summarize({ day: { enrollee: ADA, date: '2026-03-02', status: 'absent' } }, arabic);
    expect(said.startsWith('\u2068سارة محمد\u2069, ')).toBe(true);
    expect(summarize({ name: { from: 'سارة', to: 'سارة محمد' } }, arabic)).toBe('Name: from \u2068سارة\u2069 to \u2068سارة محمد\u2069');
    expect(isolated('Ada Obi')).toBe('Ada Obi');
    expect(isolated('דנה לוי')).toBe('\u2068דנה לוי\u2069');
  });

  test('a change by what it was and what it is: a role, areas (none is every area), a name', () => {
    expect(summarize({ username: 'amy', role: { from: 'hr', to: 'admin' }, areas: { from: [], to: ['north', 'south'] } })).toBe(
      'Username: amy, Role: from hr to admin, Areas: from every area to north, south',
    );
    expect(summarize({ email: { from: null, to: 'amy@example.com' } })).toBe('Email: from none to amy@example.com');
  });
});
