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
    firmware: text('firmware'),
    ipAddress: text('ip_address'),
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
    lastSeenAt: integer('last_seen_at'),
    online: integer('online', { mode: 'boolean' }).notNull().default(false),
    approvedAt: integer('approved_at'),
    approvedBy: text('approved_by'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('fpa_devices_status').on(t.status)],
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
