/** The commands module's HTTP model. */
import { t } from 'elysia';
import { Body, DigitsText, Instant, Int, LocalDate, Nullable, OneOf, Page, PageQuery, Text } from '../../platform/http/model';
import { COMMAND_KINDS, COMMAND_STATUSES } from './tables';

export const DeviceCommand = t.Object(
  {
    id: Int(),
    kind: OneOf(COMMAND_KINDS, 'What it does: an operator’s is named as it was queued (`POST devices/{sn}/commands/`), the others the service queues itself.'),
    status: OneOf(COMMAND_STATUSES),
    attempts: Int(),
    created_at: Instant(),
    sent_at: Nullable(Instant()),
    finished_at: Nullable(Instant('When it ended (succeeded, failed, expired, cancelled, superseded); null while pending or sent.')),
    completed_at: Nullable(Instant('The same as `finished_at`, under the name earlier releases gave it (kept for their clients).')),
    expires_at: Instant(),
    return_code: Nullable(Int({ description: 'The terminal’s return code.' })),
    result: Nullable(t.Record(t.String(), t.Unknown())),
    payload: t.Record(t.String(), t.Unknown(), {
      description: 'References only (PIN, enrollee id, finger, template id), never template bytes nor a card number: a user record’s `card` is true or false.',
    }),
    cancel_refused: Nullable(
      t.String({
        description:
          'In the queue’s list: why this unfinished command cannot be cancelled (a delete a deletion proof waits for), so no one is offered a cancel bound to fail; null otherwise.',
      }),
    ),
  },
  { title: 'DeviceCommand' },
);

export const CommandList = {
  query: t.Object({
    status: t.Optional(OneOf(COMMAND_STATUSES)),
    order: t.Optional(OneOf(['oldest', 'newest'] as const, 'Oldest first (default), or newest first.')),
    ...PageQuery,
  }),
  response: Page(DeviceCommand),
};

const Kind = <K extends string>(kind: K, description: string) => t.Literal(kind, { description });

/** `POST devices/{sn}/commands/`: one of the operator's commands (docs/api.md). */
export const OperatorCommandBody = t.Union([
  Body({ kind: Kind('reboot', 'Restart the terminal.') }),
  Body({ kind: Kind('set_time', 'Set its clock: 2.x terminals re-handshake (they take the time from the server), 3.x get `SET OPTIONS DateTime`.') }),
  Body({ kind: Kind('info', 'Ask for its parameters; the answer updates the device facts.') }),
  Body({ kind: Kind('query_users', 'Ask for the users it holds; the answer updates `devices/{sn}/users/`.') }),
  Body({
    kind: Kind('reupload_logs', 'Ask it to upload its attendance records of these local dates again (already stored ones are counted, not doubled).'),
    from: LocalDate('First local date of the terminal, inclusive.'),
    to: t.Optional(LocalDate('Last local date, inclusive (default: `from`).')),
  }),
  Body({ kind: Kind('clear_logs', 'Delete its attendance records.'), confirm: Text({ maxLength: 64, description: 'The terminal’s serial number.' }) }),
  Body({
    kind: Kind('clear_data', 'Delete every user, template and record on it.'),
    confirm: Text({ maxLength: 64, description: 'The terminal’s serial number.' }),
  }),
  Body({ kind: Kind('raw', 'Raw command text (only with ADMS_RAW_COMMANDS).'), command: Text({ maxLength: 2000 }) }),
]);

export const CommandParams = t.Object({
  serial: t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'Serial number of the terminal.' }),
  id: DigitsText('Command id.'),
});
