/** The employees module's HTTP model. */
import type { Static } from '@sinclair/typebox';
import { t } from 'elysia';
import { Body, Instant, Page, PageQuery, Text } from '../../platform/http/model';

export const Employee = t.Object({ id: t.String(), name: t.String(), active: t.Boolean(), created_at: Instant() }, { title: 'Employee' });
export type EmployeeView = Static<typeof Employee>;
export const EmployeeList = {
  query: t.Object({
    enrolled: t.Optional(
      t.Boolean({
        description:
          'false: only the employees no person is enrolled for (none yet, or theirs deleted), the People page’s “not enrolled yet”; true: only those with a person, active or deactivated.',
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
export const EmployeeParams = t.Object({ id: Text({ maxLength: 100 }) });
