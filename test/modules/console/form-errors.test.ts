/**
 * The API's validation errors as the console's forms say them beside each field: a message the
 * API already words as what a value must be (`must be one of: oldest, newest`) is shown as a
 * sentence, not replaced by "This value is not accepted."; TypeBox's own messages keep their
 * plain words.
 */
import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../../src/modules/console/client/api';
import { plainErrors } from '../../../src/modules/console/client/form-errors';

const refused = (errors: { path: string; message: string }[]) => new ApiError(400, 'validation_error', 'refused', { in: 'body', errors });

describe('validation errors beside their fields', () => {
  test('what a value must be, as the API says it, is a sentence', () => {
    expect(plainErrors(refused([{ path: '/role', message: 'must be one of: owner, admin, viewer' }]))).toEqual([
      { field: 'role', message: 'Must be one of: owner, admin, viewer.' },
    ]);
    expect(plainErrors(refused([{ path: '/email', message: 'must be an e-mail address' }]))).toEqual([
      { field: 'email', message: 'Must be an e-mail address.' },
    ]);
  });

  test('required, and TypeBox’s own words, as before', () => {
    expect(plainErrors(refused([{ path: '/name', message: 'required' }]))).toEqual([{ field: 'name', message: 'This is required.' }]);
    expect(plainErrors(refused([{ path: '/name', message: 'Expected string length less or equal to 200' }]))).toEqual([
      { field: 'name', message: 'At most 200 characters.' },
    ]);
    // A field with its own rule keeps it.
    expect(plainErrors(refused([{ path: '/from', message: 'must be a date (YYYY-MM-DD)' }]))).toEqual([{ field: 'from', message: 'A date is needed.' }]);
  });
});

describe('a pay period not over yet', () => {
  const notOver = (message: string, timeZone: string) =>
    new ApiError(409, 'conflict', message, { pay_period: 'p', to: '2026-03-12', today: '2026-03-12', time_zone: timeZone, lockable_from: '2026-03-13' });

  test('when it can be locked; and for whom, when an area behind the attendance zone is still on its last date', () => {
    const [plain] = plainErrors(notOver('the pay period ends on 2026-03-12, which is not over yet: it can be locked from 2026-03-13 on', 'Europe/London'));
    expect(plain?.message).toMatch(/^This pay period ends on .+, which is not over yet: it can be locked from .+ on\.$/);
    const [behind] = plainErrors(
      notOver(
        'the pay period ends on 2026-03-12, which is not over yet in America/New_York (the zone of an area whose people are still on 2026-03-12): it can be locked from 2026-03-13 on there',
        'America/New_York',
      ),
    );
    expect(behind?.message).toMatch(/^This pay period ends on .+, which is not over yet for the people of America\/New_York: it can be locked from .+ on\.$/);
  });
});
