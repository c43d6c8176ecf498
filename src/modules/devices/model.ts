/** The devices module's HTTP model: what its routes validate and the OpenAPI document shows. */
import { t } from 'elysia';
import { Body, Instant, Int, Nullable, OneOf, Page, PageQuery, Text } from '../../platform/http/model';
import { DEVICE_STATUSES } from './tables';

export const SerialParams = t.Object({ serial: t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'Serial number of the terminal.' }) });

export const AreaNames = t.Array(Text({ maxLength: 100 }), { maxItems: 100, description: 'Area names; `default` when empty.' });

export const Device = t.Object(
  {
    serial_number: t.String(),
    name: Nullable(t.String()),
    status: OneOf(DEVICE_STATUSES, '`pending_approval` until an administrator approves it; `disabled` refuses its data.'),
    algorithm_version: Nullable(t.String({ description: 'Fingerprint algorithm version (reported by the terminal or set by an administrator).' })),
    time_zone: t.String({ description: 'IANA time zone (the device’s own or TIME_ZONE).' }),
    areas: t.Array(t.String()),
    last_seen_at: Nullable(Instant()),
    online: t.Boolean(),
    firmware: Nullable(t.String()),
    push_version: Nullable(t.String()),
    ip_address: Nullable(t.String()),
    user_count: Nullable(Int()),
    fingerprint_count: Nullable(Int()),
    attendance_count: Nullable(Int()),
    approved_at: Nullable(Instant()),
    created_at: Instant(),
  },
  { title: 'Device' },
);

export const DeviceDetail = t.Composite(
  [
    Device,
    t.Object({
      pending_commands: Int({ description: 'Commands waiting to be sent or answered.' }),
      templates_present: Int({ description: 'Templates the terminal has confirmed.' }),
      parameters: t.Record(t.String(), t.String(), { description: 'Last option/INFO values reported by the terminal.' }),
      recent_events: t.Array(t.Object({ kind: t.String(), message: t.String(), details: Nullable(t.Record(t.String(), t.Unknown())), at: Instant() })),
    }),
  ],
  { title: 'DeviceDetail' },
);

export const DeviceList = { query: t.Object({ status: t.Optional(OneOf(DEVICE_STATUSES)), ...PageQuery }), response: Page(Device) };

export const DevicePatch = Body(
  {
    time_zone: t.Optional(Nullable(Text({ maxLength: 64, description: 'IANA time zone; null to use TIME_ZONE.' }))),
    areas: t.Optional(AreaNames),
    name: t.Optional(Nullable(Text({ minLength: 0, maxLength: 200 }))),
    algorithm_version: t.Optional(Nullable(Text({ maxLength: 32, description: 'Only for terminals that do not report it.' }))),
  },
  { title: 'DevicePatch' },
);

export const DeviceApprove = t.Optional(Body({ areas: t.Optional(AreaNames) }, { title: 'DeviceApprove' }));
