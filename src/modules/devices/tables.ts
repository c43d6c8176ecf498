import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const createdAt = () => integer('created_at').notNull();

export const DEVICE_STATUSES = ['pending_approval', 'approved', 'disabled'] as const;

export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

export const devices = sqliteTable(
  'fpa_devices',
  {
    id: text('id').primaryKey(),
    serialNumber: text('serial_number').notNull().unique(),
    name: text('name'),
    status: text('status', { enum: DEVICE_STATUSES }).notNull(),
    /** IANA zone; null means the service's TIME_ZONE. */
    timeZone: text('time_zone'),
    /** Fingerprint algorithm version, from INFO/options or set by an administrator. */
    algorithmVersion: text('algorithm_version'),
    algorithmSource: text('algorithm_source', { enum: ['device', 'admin'] }),
    faceAlgorithmVersion: text('face_algorithm_version'),
    pushVersion: text('push_version'),
    /** `DeviceType` declared at the 3.x registry (`acc` security, `att` attendance): with pushVersion, the dialect spoken to it. */
    deviceType: text('device_type'),
    firmware: text('firmware'),
    /** The address the service sees: the TCP peer of the terminal's trusted requests (never what it reports; registration.ts `touch`). */
    ipAddress: text('ip_address'),
    /** The address the terminal reports for itself (`IPAddress` of INFO/options); behind NAT it differs from ipAddress. */
    reportedAddress: text('reported_address'),
    language: text('language'),
    userCount: integer('user_count'),
    fingerprintCount: integer('fingerprint_count'),
    attendanceCount: integer('attendance_count'),
    /** Whether the terminal takes templates as BIODATA (set from options/INFO). */
    speaksBiodata: integer('speaks_biodata', { mode: 'boolean' }).notNull().default(false),
    /** Last `table=options` / INFO key-value map, for display. */
    parameters: text('parameters', { mode: 'json' }).$type<Record<string, string>>(),
    registryCode: text('registry_code'),
    /** The `TimeZone` offset (minutes) sent at the last handshake; a DST change queues CHECK. */
    clockOffsetMinutes: integer('clock_offset_minutes'),
    /** How far the terminal's clock ran ahead of the server's when last measured (seconds). */
    clockDriftSeconds: integer('clock_drift_seconds'),
    /** An enrollment station accepts walk-up enrollments of people outside its own areas. */
    enrollmentStation: integer('enrollment_station', { mode: 'boolean' }).notNull().default(false),
    /** No longer read: keyless requests are not trusted by address any more (identity.ts). */
    keyedIp: text('keyed_ip'),
    /**
     * The network address the terminal is trusted from under ADMS_TRUST=address (identity.ts):
     * where it was approved from, or, pre-registered or upgraded, where it first connected from.
     */
    pinnedIp: text('pinned_ip'),
    /** The last address other than the pinned one a request for this serial came from, until an administrator confirms it. */
    unconfirmedIp: text('unconfirmed_ip'),
    unconfirmedIpAt: integer('unconfirmed_ip_at'),
    /** The source address of the request that registered the terminal (null when pre-registered): limits per address. */
    registeredIp: text('registered_ip'),
    lastSeenAt: integer('last_seen_at'),
    online: integer('online', { mode: 'boolean' }).notNull().default(false),
    approvedAt: integer('approved_at'),
    approvedBy: text('approved_by'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('fpa_devices_status').on(t.status), index('fpa_devices_pending_address').on(t.status, t.registeredIp)],
);

export const deviceAreas = sqliteTable(
  'fpa_device_areas',
  {
    deviceId: text('device_id').notNull(),
    areaId: text('area_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.areaId] }), index('fpa_device_areas_area').on(t.areaId)],
);

export const deviceEvents = sqliteTable(
  'fpa_device_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deviceId: text('device_id').notNull(),
    kind: text('kind').notNull(),
    message: text('message').notNull(),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index('fpa_device_events_device').on(t.deviceId, t.id), index('fpa_device_events_created').on(t.createdAt)],
);

/**
 * The users each terminal holds, as it last reported them (USER uploads, `query_users`) or as
 * the service put them there. `enrolleeId` is set only when the service sent this user for that
 * enrollee or an administrator adopted it: a PIN alone never makes a terminal user an enrollee.
 */
export const deviceUsers = sqliteTable(
  'fpa_device_users',
  {
    deviceId: text('device_id').notNull(),
    pin: text('pin').notNull(),
    name: text('name'),
    card: text('card'),
    /** `Pri` as the terminal reported it (0 user, 2 enroller, 6 administrator, 14 super administrator); null: never reported. */
    privilege: integer('privilege'),
    /**
     * The password the terminal reported for this user (its menu's, in clear on the wire), sealed
     * under the key ring (`sealed1:…`, bound to the terminal and PIN: user-passwords.ts); null when
     * it has none or never said. Only ever sent back to this terminal, in this user's own record.
     */
    password: text('password'),
    /** Biometrics the terminal reported for this user: the indexes it holds, by type (`fingerprint`, `face`…). */
    biometrics: text('biometrics', { mode: 'json' }).$type<Record<string, number[]>>().notNull(),
    enrolleeId: text('enrollee_id'),
    /** `reported` (the terminal said so) or `sent` (the service put it there). */
    source: text('source', { enum: ['reported', 'sent'] }).notNull(),
    /**
     * First reported in the terminal's inventory (its answer to the user query of its approval):
     * it may have held this PIN before the enrollee who has it existed, so it is its own user
     * until adopted, even for a PIN the service handed out (enrollment/walk-up.ts).
     */
    heldBefore: integer('held_before', { mode: 'boolean' }).notNull().default(false),
    /**
     * The enrollee whose templates the walk-up refused on this user and left on the terminal
     * (DELETE_REJECTED_DEVICE_TEMPLATES off), with the parts refused, by type: only those are
     * deleted when that enrollee's data goes, never the user, whose PIN alone is no one's here.
     */
    refusedFor: text('refused_for'),
    refused: text('refused', { mode: 'json' }).$type<Record<string, number[]>>().notNull().default({}),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.deviceId, t.pin] }),
    index('fpa_device_users_pin').on(t.pin),
    index('fpa_device_users_enrollee').on(t.enrolleeId),
    index('fpa_device_users_refused_for').on(t.refusedFor),
  ],
);

/**
 * When each enrollee's user last left a terminal (the terminal confirmed its delete, it was
 * cleared, or it no longer reported them): a punch it made while they were its user there, uploaded
 * only afterwards, is still theirs (punches/service.ts `whose`). By person, not PIN: a person's PIN
 * never changes, and no PIN stays here once the tombstone loses it. One row per terminal and person,
 * the latest departure; past the punch horizon it says nothing more (retention deletes it).
 */
export const deviceUserDepartures = sqliteTable(
  'fpa_device_user_departures',
  {
    deviceId: text('device_id').notNull(),
    enrolleeId: text('enrollee_id').notNull(),
    leftAt: integer('left_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.enrolleeId] }), index('fpa_device_user_departures_left').on(t.leftAt)],
);

/**
 * The offsets a terminal was told, with when: a terminal keeps the offset of its last handshake,
 * so a wall time it recorded is read with the offset it ran on then (docs/protocol/adms.md §7).
 */
export const deviceClockOffsets = sqliteTable(
  'fpa_device_clock_offsets',
  {
    deviceId: text('device_id').notNull(),
    /** From this instant on (ms UTC) the terminal ran on `offsetMinutes`. */
    since: integer('since').notNull(),
    offsetMinutes: integer('offset_minutes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.since] })],
);

/**
 * Communication keys of terminals: issued once, kept as HMAC-SHA256 digests under a server secret
 * (key-digest.ts; older keys as plain SHA-256 digests, flagged legacy), revocable.
 */
export const deviceKeys = sqliteTable(
  'fpa_device_keys',
  {
    id: text('id').primaryKey(),
    deviceId: text('device_id').notNull(),
    digest: text('digest').notNull(),
    /** Once the key's first digits; no longer kept (empty): keys are told apart by id and date. */
    hint: text('hint').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('fpa_device_keys_device').on(t.deviceId)],
);

/**
 * Terminals an administrator removed, by serial: what the service knows they hold (their users,
 * template sync rows) and the deletes they owe are kept under their id, and a removed terminal
 * that makes contact again registers under that same id, so it gets what it owes.
 */
export const removedDevices = sqliteTable('fpa_removed_devices', {
  serialNumber: text('serial_number').primaryKey(),
  deviceId: text('device_id').notNull(),
  removedAt: integer('removed_at').notNull(),
  removedBy: text('removed_by').notNull(),
  /** What the terminal reported about its dialect, so the deletes it owes go in words it takes. */
  facts: text('facts', { mode: 'json' }).$type<RemovedDeviceFacts>().notNull(),
});

/**
 * The facts of a removed terminal restored when it registers again (its dialect and algorithms),
 * and when it was last heard of before its removal (a deletion proof's "unreachable since"; not
 * restored: lookup.ts reads it).
 */
export type RemovedDeviceFacts = Pick<
  typeof devices.$inferSelect,
  'speaksBiodata' | 'algorithmVersion' | 'algorithmSource' | 'faceAlgorithmVersion' | 'firmware' | 'pushVersion' | 'parameters'
> & { lastSeenAt?: number | null };

/** The limits that refuse an unknown terminal's registration (registration.ts `pendingFull`). */
export const PENDING_LIMITS = ['ADMS_MAX_PENDING_DEVICES', 'ADMS_MAX_PENDING_PER_ADDRESS'] as const;
export type PendingLimit = (typeof PENDING_LIMITS)[number];

/**
 * Registrations refused because too many terminals wait for approval: one row per limit, with the
 * last refused serial, so an installer whose terminal never appears learns why (diagnostics). No
 * row per serial: junk serials from a scan must not grow a table.
 */
export const registrationRefusals = sqliteTable('fpa_registration_refusals', {
  limitName: text('limit_name', { enum: PENDING_LIMITS }).primaryKey(),
  /** Refusals counted since `firstAt` (a quiet hour starts the count again). */
  refused: integer('refused').notNull(),
  lastSerial: text('last_serial').notNull(),
  lastIp: text('last_ip'),
  firstAt: integer('first_at').notNull(),
  lastAt: integer('last_at').notNull(),
});

export type DeviceRow = typeof devices.$inferSelect;
