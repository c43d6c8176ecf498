/** The reports module's HTTP model: the query of each report (the files themselves are CSV, XLSX or PDF). */
import { t } from 'elysia';
import { LocalDate, Text } from '../../platform/http/model';
import { EXCEPTION_KINDS } from './rows';

const Area = Text({ maxLength: 100, description: 'Only the people of this area (by name); default: every area the caller may see.' });
const From = LocalDate('First date, inclusive (local date of ATTENDANCE_TIME_ZONE).');
const To = LocalDate('Last date, inclusive (at most 366 dates from `from`).');

export const DailyQuery = t.Object({
  date: t.Optional(LocalDate('The date (local date of ATTENDANCE_TIME_ZONE); default: today.')),
  area: t.Optional(Area),
});

export const TimesheetQuery = t.Object({
  from: From,
  to: To,
  employee: t.Optional(Text({ maxLength: 200, description: 'One person’s timesheet (employee key); without it, one sheet or page per person of the area.' })),
  area: t.Optional(Area),
});

export const SummaryQuery = t.Object({ from: From, to: To, area: t.Optional(Area) });

const KIND = `(${EXCEPTION_KINDS.join('|')})`;

export const ExceptionsQuery = t.Object({
  from: From,
  to: To,
  area: t.Optional(Area),
  kind: t.Optional(
    t.String({
      pattern: `^${KIND}(,${KIND})*$`,
      maxLength: 200,
      description: `Comma-separated kinds among ${EXCEPTION_KINDS.map((k) => `\`${k}\``).join(', ')}; default: all.`,
    }),
  ),
});
