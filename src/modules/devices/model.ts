/** The devices module's HTTP model: what its routes validate and the OpenAPI document shows. */
import type { Static } from '@sinclair/typebox';
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
    ip_address: Nullable(
      t.String({
        description:
          'The address the service sees the terminal at: the TCP peer of its trusted requests, recorded at once at a handshake, else with `last_seen_at` (at most 30 s late); a request from an address it is not trusted at changes nothing.',
      }),
    ),
    reported_address: Nullable(
      t.String({
        description:
          'The address the terminal reports for itself (`IPAddress` of its INFO or options); behind NAT it differs from `ip_address`. Shown only: trust is never decided by it.',
      }),
    ),
    user_count: Nullable(Int()),
    fingerprint_count: Nullable(Int()),
    attendance_count: Nullable(Int()),
    approved_at: Nullable(Instant()),
    created_at: Instant(),
    enrollment_station: t.Boolean({ description: 'Accepts walk-up enrollments of people outside its own areas.' }),
    pinned_address: Nullable(
      t.String({
        description:
          'ADMS_TRUST=address: the address the terminal is trusted from (where it was approved, or first connected from after pre-registration); null until known.',
      }),
    ),
    unconfirmed_address: Nullable(
      t.String({
        description:
          'The last other address a request for this serial came from without its key: it is sent no users, cards or templates from there until an administrator confirms it (`POST devices/{sn}/confirm-address/`).',
      }),
    ),
    unconfirmed_address_at: Nullable(Instant('When the unconfirmed address was first seen.')),
    clock_drift_seconds: Nullable(
      Int({ description: 'How far its clock ran ahead of the server’s (negative: behind) when a real-time upload last measured it.' }),
    ),
    clock_drifting: t.Boolean({ description: 'The drift is beyond DEVICE_CLOCK_DRIFT_MAX.' }),
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
      sync_check: t.Object(
        {
          users: t.Object({ expected: Int(), reported: Nullable(Int()) }),
          fingerprints: t.Object(
            {
              expected: Int({
                description:
                  'Every finger expected on the terminal: the service’s fingerprints it holds or should hold, and the fingers it reported for any of its users (its own users’ included), each once.',
              }),
              reported: Nullable(Int({ description: 'Every finger the terminal says it holds (`FPCount`).' })),
              unknown_users: Int({
                description:
                  'Users on the terminal none of whose fingers it ever reported nor the service sent (its own users as its inventory named them, a user adopted there whose fingers were not fetched): their fingers are in `reported` only, so while there are any, the fingerprints agree when `reported` is at least `expected`.',
              }),
            },
            { description: 'Fingers (`FPCount`); faces and palms are counted apart.' },
          ),
          faces: t.Object({ expected: Int(), reported: Nullable(Int()) }, { description: 'Faces, near-infrared or visible-light (`FaceCount`).' }),
          palms: t.Object({ expected: Int(), reported: Nullable(Int()) }, { description: 'Palms, one however many templates it has (`PvCount`).' }),
          finger_veins: t.Object({ expected: Int(), reported: Nullable(Int()) }, { description: 'Finger veins (`FvCount`).' }),
          in_sync: Nullable(
            t.Boolean({
              description:
                'Whether the counts the terminal last reported match: users and fingerprints, and faces, palms and finger veins where it reports them; null until it reports users and fingerprints.',
            }),
          ),
        },
        {
          description:
            'The counts the terminal reports (users, fingerprints, faces, palms, finger veins) against what the service expects it to hold; a resync fixes a difference.',
        },
      ),
      recent_events: t.Array(t.Object({ kind: t.String(), message: t.String(), details: Nullable(t.Record(t.String(), t.Unknown())), at: Instant() })),
    }),
  ],
  { title: 'DeviceDetail' },
);

export type DeviceView = Static<typeof Device>;
export type DeviceDetailView = Static<typeof DeviceDetail>;

export const DeviceList = { query: t.Object({ status: t.Optional(OneOf(DEVICE_STATUSES)), ...PageQuery }), response: Page(Device) };

export const DevicePatch = Body(
  {
    time_zone: t.Optional(Nullable(Text({ maxLength: 64, description: 'IANA time zone; null to use TIME_ZONE.' }))),
    areas: t.Optional(AreaNames),
    name: t.Optional(Nullable(Text({ minLength: 0, maxLength: 200 }))),
    algorithm_version: t.Optional(Nullable(Text({ maxLength: 32, description: 'Only for terminals that do not report it.' }))),
    enrollment_station: t.Optional(
      t.Boolean({
        description:
          'Accept walk-up enrollments of people outside its own areas. Turned on or off only by a caller limited to no area (403 `forbidden` for one limited to areas, and nothing of the request is applied).',
      }),
    ),
  },
  { title: 'DevicePatch' },
);

export const DeviceCreate = Body(
  {
    serial_number: t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'The terminal’s serial number, as it will present it.' }),
    name: t.Optional(Nullable(Text({ minLength: 0, maxLength: 200 }))),
    areas: t.Optional(AreaNames),
    time_zone: t.Optional(Nullable(Text({ maxLength: 64, description: 'IANA time zone; null to use TIME_ZONE.' }))),
  },
  { title: 'DeviceCreate' },
);

export const DeviceKey = t.Object({
  id: t.String(),
  legacy: t.Boolean({
    description: 'Stored by an earlier release as an unsalted SHA-256 digest (still accepted): revoke it and issue a new key. No digit of a key is kept.',
  }),
  created_by: t.String(),
  created_at: Instant(),
  revoked_at: Nullable(Instant()),
});

export type DeviceKeyView = Static<typeof DeviceKey>;

export const DeviceKeyIssued = t.Composite([
  DeviceKey,
  t.Object({ key: t.String({ description: 'Enter it as the terminal’s communication key (Comm Key); shown this one time.' }) }),
]);

export const KeyParams = t.Object({ serial: t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }), id: Text({ maxLength: 100 }) });

export const DeviceConfirmAddress = Body(
  {
    address: t.String({
      // The characters of an IPv4 or IPv6 address; the service checks it is one (400 naming `address`).
      pattern: '^[0-9A-Fa-f.:]+$',
      maxLength: 45,
      description:
        'The IPv4 or IPv6 address you checked is the terminal’s: it must be its `unconfirmed_address` at this moment (409 `conflict` when another request has replaced it since: check again).',
      examples: ['192.168.7.23'],
    }),
  },
  { title: 'DeviceConfirmAddress' },
);

export const DeviceApprove = t.Optional(Body({ areas: t.Optional(AreaNames) }, { title: 'DeviceApprove' }));
