/** Models of the fleet routes (docs/api.md, "Fleet: terminals and server agree"). */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, Int, Nullable, Page, PageQuery, Text } from '../../platform/http/model';
import { AreaNames } from '../devices';

const Pin = t.String({ pattern: '^[^\\s/\\u0000-\\u001f\\u007f]{1,24}$', description: 'A PIN as the terminal holds it.' });

export const TerminalUserParams = t.Object({ serial: t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }), pin: Pin });

export const TerminalUser = t.Object(
  {
    pin: t.String(),
    name: Nullable(t.String()),
    card: Nullable(t.String({ description: 'Card number (decimal).' })),
    privilege: Nullable(Int({ description: '0 user, 2 enroller, 6 administrator, 14 super administrator.' })),
    enrollee: Nullable(t.String({ description: 'The enrollee this user is; null for the terminal’s own user.' })),
    conflict: Nullable(
      t.Object(
        { enrollee: Nullable(t.String()), employee: Nullable(t.String()) },
        {
          description:
            'Another enrollee has this PIN: the terminal holds someone else under it. Adopt (as that enrollee, or a new one) or remove. Who it is stays null for a caller outside that enrollee’s areas.',
        },
      ),
    ),
    biometrics: t.Record(t.String(), Int(), { description: 'What the terminal holds for this user, counted by type (`fingerprint`, `face`…).' }),
  },
  { title: 'TerminalUser' },
);

export type TerminalUserView = Static<typeof TerminalUser>;

export const TerminalUserList = { query: t.Object(PageQuery), response: Page(TerminalUser) };

export const AdoptBody = Body(
  {
    employee: t.Optional(Text({ minLength: 1, maxLength: 200, description: 'Create a new enrollee for this employee with the terminal user’s PIN.' })),
    enrollee: t.Optional(Text({ minLength: 1, maxLength: 100, description: 'Or: the existing enrollee this user is (they must have the same PIN).' })),
    areas: t.Optional(AreaNames),
  },
  { title: 'AdoptTerminalUser' },
);

export const ResyncBody = t.Optional(
  Body(
    { full: t.Optional(t.Boolean({ description: 'Also remove from the terminal every user outside its scope, its own users included.' })) },
    { title: 'Resync' },
  ),
);

export const Resynced = t.Object({ queued: Int({ description: 'Commands queued.' }) });
