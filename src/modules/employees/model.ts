/** The employees module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, Instant, Nullable, Page, PageQuery, Text } from '../../platform/http/model';

export const Employee = t.Object(
  {
    id: t.String(),
    name: t.String(),
    active: t.Boolean(),
    created_at: Instant(),
    deactivated_at: Nullable(Instant('When the employee became inactive (null while active).')),
  },
  { title: 'Employee' },
);
export type EmployeeView = Static<typeof Employee>;
export const EmployeeList = {
  query: t.Object({
    enrolled: t.Optional(
      t.Boolean({
        description:
          'false: only the employees no person is enrolled for (none yet, or theirs deleted), the People page’s “not enrolled yet” with `active=true`; true: only those with a person, active or deactivated.',
      }),
    ),
    active: t.Optional(
      t.Boolean({
        description: 'true: only the active employees (those who may be enrolled); false: only the inactive ones (leavers, reactivated with PATCH).',
      }),
    ),
    ...PageQuery,
  }),
  response: Page(Employee),
};
export const EmployeeCreate = Body(
  {
    id: Text({ maxLength: 100, description: 'The HR system’s own key (EMPLOYEE_LOOKUP_FIELD `id`).' }),
    name: Text({ maxLength: 200 }),
    active: t.Optional(t.Boolean()),
  },
  { title: 'EmployeeCreate' },
);
export const EmployeePatch = Body(
  {
    active: t.Boolean({
      description:
        'false: the employee left (not offered for enrollment, refused by enrollment and import until reactivated); refused (409) while a person of theirs is active. true: active again.',
    }),
  },
  { title: 'EmployeePatch' },
);
export const EmployeeParams = t.Object({ id: Text({ maxLength: 100 }) });
