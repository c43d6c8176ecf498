/** The enrollees module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, IdList, Instant, Int, Nullable, OneOf, Page, PageQuery, Text, Uuid } from '../../platform/http/model';
import { AreaNames } from '../devices';
import { DEVICE_PIN_PATTERN } from './pin-allocation';
import { ENROLLEE_SORTS } from './search';
import { ENROLLEE_STATUSES } from './tables';

export const EnrolleeParams = t.Object({ id: Text({ maxLength: 100, description: 'Enrollee id (UUID).' }) });

export const Consent = t.Object({ version: t.String(), method: t.String(), given_by: t.String(), given_at: Instant() }, { title: 'Consent' });
export type ConsentView = Static<typeof Consent>;

export const ConsentWithdrawal = t.Object(
  {
    withdrawn_at: Instant(),
    withdrawn_by: t.String(),
    templates_destroyed: Nullable(Int({ description: 'Templates the withdrawal destroyed on the server (null: not recorded).' })),
  },
  { title: 'ConsentWithdrawal', description: 'The last withdrawal of consent, when the person has none now.' },
);
export type ConsentWithdrawalView = Static<typeof ConsentWithdrawal>;

export const Enrollee = t.Object(
  {
    id: Uuid(),
    employee: t.String({ description: 'The employee’s key in the HR system (EMPLOYEE_LOOKUP_FIELD).' }),
    device_pin: t.String({ description: 'Auto-generated, numeric, never reused.' }),
    display_name: t.String(),
    card: Nullable(t.String({ description: 'Card number (decimal), sent to the terminals with the user record.' })),
    status: OneOf(ENROLLEE_STATUSES),
    areas: t.Array(t.String()),
    consent: Nullable(Consent),
    consent_withdrawn: Nullable(ConsentWithdrawal),
    has_deletion_proof: t.Boolean({
      description:
        'A proof of deletion is kept for them (their consent was withdrawn, and consent given again since leaves it true; false before the first withdrawal, for a withdrawal made before proofs were kept, and once retention removed it): `GET enrollees/{id}/deletion-proof/` shows it to those who may read proofs; false, it answers 404.',
    }),
    fingers: t.Array(Int(), { description: 'Fingers with a stored template.' }),
    biometrics: t.Record(t.String(), t.Array(Int()), {
      description:
        'Body parts with a stored template, by kind (`fingerprint`, `face`, `visible_face`, `palm`, `finger_vein`; only kinds stored): a finger 0–9, a face 0, a palm 0 (left) or 1 (right), however many templates each has. `fingers` is its `fingerprint`.',
    }),
    created_at: Instant(),
  },
  { title: 'Enrollee' },
);

export const EnrolleeList = {
  query: t.Object({
    employee: t.Optional(Text({ maxLength: 200 })),
    device_pin: t.Optional(t.String({ pattern: DEVICE_PIN_PATTERN })),
    search: t.Optional(
      Text({
        maxLength: 200,
        description:
          'Every word a part of the name (ignoring case and accents), or the start of the employee id, or the PIN, or the card number (leading zeros dropped).',
      }),
    ),
    ids: t.Optional(IdList('Only these people: up to 100 enrollee ids separated by commas (the console names the people a page shows).')),
    area: t.Optional(Text({ maxLength: 100, description: 'Members of this area (its name).' })),
    status: t.Optional(OneOf(['active', 'deactivated'] as const, 'Active or deactivated people (deleted people are never listed).')),
    consent: t.Optional(OneOf(['given', 'missing'] as const, 'Consent on record (not withdrawn), or none.')),
    biometrics: t.Optional(OneOf(['none', 'some'] as const, 'Without any stored template, or with at least one.')),
    sort: t.Optional(
      OneOf(ENROLLEE_SORTS, '`name` (case-insensitive), `employee`, `pin` (numerically: 1, 11, 10020), `-created_at` (newest first); default: by id.'),
    ),
    ...PageQuery,
  }),
  response: Page(Enrollee),
};

export const EnrolleeCreate = Body(
  { employee: Text({ maxLength: 200, description: 'Lookup value of the employee.' }), areas: t.Optional(AreaNames) },
  { title: 'EnrolleeCreate' },
);

export const EnrolleePatch = Body(
  {
    areas: t.Optional(AreaNames),
    display_name: t.Optional(Text({ maxLength: 200 })),
    card: t.Optional(
      Nullable(
        // No digits pattern here: a string that is not a card is the documented 422 `invalid_card`
        // with its reason (card-rules.ts), not a 400 about the shape; a number or any other type,
        // a control character or a string past 200 characters is 400.
        Text({
          minLength: 0,
          maxLength: 200,
          description:
            'Card number (decimal digits only) as the terminals hold it: leading zeros are dropped (`01234` is card `1234`); 1 to 4294967295, else 422 `invalid_card` (`reason`: `not_digits`, `zero` or `out_of_range`); null removes it. A card another enrollee holds is 409.',
        }),
      ),
    ),
    active: t.Optional(t.Boolean()),
  },
  { title: 'EnrolleePatch' },
);
