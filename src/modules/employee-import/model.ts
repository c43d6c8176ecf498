/** The employee import's HTTP model. */
import { t } from 'elysia';
import { Int, Nullable } from '../../platform/http/model';

export const ImportQuery = t.Object({
  dry_run: t.Optional(t.Boolean({ description: 'Check the file and answer what would change; store nothing.' })),
});

const FieldChange = t.Object({ from: Nullable(t.String()), to: t.String() });

export const EmployeeImportBody = t.Union([
  t.String({
    contentMediaType: 'text/csv',
    description:
      'A header row naming `id` and `name`, and optionally `areas` (names separated by `;` or `|`) and `card`, then one person a line. Columns separated by commas, or by semicolons when the header row has semicolons and no comma (Excel in many European locales).',
  }),
  t.Array(t.Unknown(), { description: '`application/json`: records `{ "id", "name", "areas"?, "card"? }` (`areas` a list of names or `;`-separated text).' }),
]);

export const ImportResult = t.Object(
  {
    dry_run: t.Boolean({ description: 'True: nothing was stored; the counts say what an import would do.' }),
    created: Int({ description: 'People enrolled (and added to the employee directory when new there).' }),
    updated: Int({ description: 'People whose name, areas or card changed.' }),
    unchanged: Int({ description: 'Lines that match what is stored already.' }),
    errors: t.Array(
      t.Object({
        line: Int({ description: 'CSV: the line the record starts on (the header is line 1); JSON: its 1-based position.' }),
        message: t.String(),
      }),
      { description: 'Lines not used; nothing of them is stored.' },
    ),
    changes: t.Array(
      t.Object({
        line: Int(),
        employee: t.String(),
        name: t.String(),
        action: t.Union([t.Literal('create'), t.Literal('update'), t.Literal('unchanged')]),
        fields: t.Object(
          { name: t.Optional(FieldChange), areas: t.Optional(FieldChange), card: t.Optional(FieldChange) },
          { description: 'What changes, before and after (areas as `;`-separated names).' },
        ),
      }),
      { description: 'Each good line and what it does (or did).' },
    ),
  },
  { title: 'EmployeeImportResult' },
);
