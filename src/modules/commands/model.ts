/** The commands module's HTTP model. */
import { t } from 'elysia';
import { Instant, Int, Nullable, OneOf, Page, PageQuery } from '../../platform/http/model';
import { COMMAND_STATUSES } from './tables';

export const DeviceCommand = t.Object(
  {
    id: Int(),
    kind: t.String({ description: '`add_user`, `delete_user`, `update_template`, `delete_template`, `ENROLL_FP`, `ENROLL_BIO`, `CHECK`, `INFO`, `REBOOT`…' }),
    status: OneOf(COMMAND_STATUSES),
    attempts: Int(),
    created_at: Instant(),
    sent_at: Nullable(Instant()),
    completed_at: Nullable(Instant()),
    expires_at: Instant(),
    return_code: Nullable(Int({ description: 'The terminal’s return code.' })),
    result: Nullable(t.Record(t.String(), t.Unknown())),
    payload: t.Record(t.String(), t.Unknown(), { description: 'References only (PIN, finger, template id), never template bytes.' }),
  },
  { title: 'DeviceCommand' },
);

export const CommandList = { query: t.Object({ status: t.Optional(OneOf(COMMAND_STATUSES)), ...PageQuery }), response: Page(DeviceCommand) };
