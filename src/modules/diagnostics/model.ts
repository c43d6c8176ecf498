/** The diagnostics' HTTP model. */
import { t } from 'elysia';
import { Instant, Nullable, OneOf } from '../../platform/http/model';

export const DIAGNOSTIC_KINDS = [
  'unknown_terminal',
  'pending_approval',
  'offline',
  'commands_waiting',
  'commands_failing',
  'users_lost',
  'punches_not_resent',
  'clock_drift',
  'time_zone_not_set',
  'other_time_zone',
  'templates_incompatible',
  'terminal_full',
  'key_refused',
  'key_missing',
  'new_address',
  'registration_refused',
] as const;

export const Diagnostic = t.Object({
  kind: OneOf(DIAGNOSTIC_KINDS, 'What is wrong (README, "Diagnostics").'),
  severity: OneOf(['error', 'warning'] as const, '`error`: people or punches are affected now; `warning`: they will be.'),
  device: t.String({ description: 'The terminal’s serial number.' }),
  device_name: Nullable(t.String()),
  since: Nullable(Instant('Since when, as far as the service knows.')),
  message: t.String({ description: 'What is wrong, in plain words.' }),
  fix: t.String({ description: 'What to do about it, in plain words.' }),
  details: t.Record(t.String(), t.Unknown(), { description: 'The facts behind it (counts, addresses, seconds).' }),
});

export const DiagnosticList = t.Object({ results: t.Array(Diagnostic), as_of: Instant() });
