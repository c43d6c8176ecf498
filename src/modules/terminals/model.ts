/** The HTTP model of the terminals' administrator routes (their ADMS routes speak plain text). */
import { t } from 'elysia';
import { Int, Nullable } from '../../platform/http/model';

export const UsbImportQuery = t.Object({
  dry_run: t.Optional(t.Boolean({ description: 'Read the file and answer what an import would do; store nothing.' })),
});

export const UsbImportBody = t.String({
  contentMediaType: 'application/octet-stream',
  description:
    'The attendance file the terminal saved to a USB stick (`1_attlog.dat`), as it is: one punch a line, `PIN TAB time TAB machine number TAB state TAB verify TAB workcode`. Any Content-Type; at most 10 MiB.',
});

const Listed = { description: 'The first 100; all are counted.' };

export const UsbImportResult = t.Object(
  {
    dry_run: t.Boolean({ description: 'True: nothing was stored; the counts say what an import would do.' }),
    lines: Int({ description: 'Punch lines read (bad lines not included).' }),
    imported: Int({ description: 'Punches stored now (dry run: that would be).' }),
    duplicates: Int({ description: 'Lines of punches already stored from this terminal (by its upload or an earlier file), or repeated in the file.' }),
    other_terminal: Int({
      description:
        'Lines of a person whose punch at that very instant came from another terminal: not stored (another terminal’s file, chosen by mistake: each saves `1_attlog.dat`).',
    }),
    too_old: Int({ description: 'Lines older than RETENTION_PUNCHES_DAYS: not stored, as from the terminal itself.' }),
    outside_areas: Int({
      description:
        'For a caller limited to areas: lines of people outside them, counted only here and not stored (someone who sees those people imports them).',
    }),
    unknown_pins: t.Array(t.String(), {
      description: `PINs no person holds on this terminal: their punches are kept as the terminal's own users'. ${Listed.description}`,
    }),
    unknown_pin_count: Int(),
    from: Nullable(t.String({ description: 'The first local date of the file’s punches.' })),
    to: Nullable(t.String({ description: 'The last local date of the file’s punches.' })),
    errors: t.Array(t.Object({ line: Int({ description: 'The line of the file, from 1.' }), message: t.String() }), {
      description: `Lines not used; nothing of them is stored. ${Listed.description}`,
    }),
    error_count: Int(),
  },
  { title: 'UsbImportResult' },
);
