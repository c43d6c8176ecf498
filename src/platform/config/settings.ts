/**
 * The settings group FINGERPRINT_ATTENDANCE: one typed schema with defaults, filled from the
 * settings a host passes in and from `FPA_<KEY>` environment variables (env wins), parsed once
 * and frozen. Parsing never throws: every problem becomes a configuration issue that
 * `fpa:check` and start-up report together (see ./check.ts).
 */
import { createHmac } from 'node:crypto';
import { hideUrlSecrets } from '../url-secrets';
import {
  formatDuration,
  formatRate,
  formatTravelMinutes,
  parseBoolean,
  parseDateList,
  parseDuration,
  parseInteger,
  parseIntList,
  parseJsonMap,
  parseJsonNumberMap,
  parseList,
  parseRate,
  parseSchedule,
  parseTravelMinutes,
  parseWeekdays,
  type TravelTime,
} from './values';

export interface Rate {
  limit: number;
  windowMs: number;
}

export interface Schedule {
  start: string;
  end: string;
  graceMs: number;
}

export interface Settings {
  EMPLOYEE_MODEL: string;
  EMPLOYEE_LOOKUP_FIELD: string;
  TEMPLATE_ENCRYPTION_KEYS: string[];
  ADMS_URL_PREFIX: string;
  TASK_BACKEND: string;
  ENROLLMENT_REQUIRE_CONSENT: boolean;
  ALLOWED_FINGER_INDEXES: number[];
  FINGERS_REQUIRED_MIN: number;
  FINGERS_ALLOWED_MAX: number;
  ENROLLMENT_SESSION_TTL: number;
  TEMPLATE_MAX_BYTES: number;
  BIOMETRIC_TYPES: string[];
  BIOMETRIC_MAX_BYTES: Record<string, number>;
  AGENT_RATE_LIMIT: Rate;
  AGENT_CAN_START_SESSIONS: boolean;
  ALGORITHM_COMPATIBILITY_MAP: Record<string, string[]>;
  DELETE_REJECTED_DEVICE_TEMPLATES: boolean;
  TIME_ZONE: string;
  ENROLLEE_PIN_START: number;
  AREAS_CREATED_ON_USE: boolean;

  DATABASE_URL: string;
  DATABASE_AUTH_TOKEN: string;
  DATABASE_SYNC_URL: string;
  DATABASE_SYNC_INTERVAL: number;
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;

  ADMIN_JWT_SECRET: string;
  ADMIN_JWKS_URL: string;
  ADMIN_JWT_ISSUER: string;
  ADMIN_JWT_AUDIENCE: string;
  ADMIN_SCOPE: string;
  METRICS_TOKEN: string;

  ADMS_ALLOWED_IPS: string[];
  ADMS_DEVICE_TOKENS: Record<string, string[]>;
  ADMS_MAX_REQUEST_BYTES: number;
  ADMS_MAX_COMMANDS_PER_REQUEST: number;
  ADMS_MAX_COMMAND_BYTES: number;
  ADMS_POLL_DELAY: number;
  ADMS_ERROR_DELAY: number;
  ADMS_AUTO_APPROVE: boolean;
  ADMS_MAX_PENDING_DEVICES: number;
  ADMS_MAX_PENDING_PER_ADDRESS: number;
  ADMS_PENDING_EXPIRY: number;
  ADMS_TRUST: string;
  ADMS_RAW_COMMANDS: boolean;

  COMMAND_ACK_TIMEOUT: number;
  COMMAND_MAX_RETRIES: number;
  COMMAND_RETRY_BACKOFF: number;
  COMMAND_EXPIRY: number;
  DEVICE_OFFLINE_AFTER: number;
  DEVICE_CLOCK_DRIFT_MAX: number;
  DEVICE_CLOCK_CORRECTION: boolean;

  WEBHOOK_RETRY_BACKOFF: number;
  WEBHOOK_MAX_ATTEMPTS: number;
  WEBHOOK_TIMEOUT: number;
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean;
  WEBHOOK_ALLOWED_NETWORKS: string[];
  WEBHOOK_SECRET_ROTATION_OVERLAP: number;
  WEBHOOK_DISABLE_AFTER: number;
  WEBHOOK_BATCH_SIZE: number;
  WEBHOOK_CONCURRENCY: number;
  WEBHOOK_WORKER: boolean;
  WEBHOOK_MAX_LAG: number;

  ATTENDANCE_TIME_ZONE: string;
  DEFAULT_SCHEDULE: Schedule | null;
  WEEKEND_DAYS: number[];
  HOLIDAYS: string[];
  ATTENDANCE_REPEAT_PUNCH_WINDOW: number;
  ATTENDANCE_SHIFT_SLACK: number;
  ATTENDANCE_OVERTIME_MINIMUM: number;
  ATTENDANCE_MAX_LAG: number;
  COMPANY_NAME: string;
  REPORT_FONT: string;
  REPORT_FONT_BOLD: string;

  PUNCH_RECOVERY: boolean;
  PUNCH_RECOVERY_LOOKBACK: number;
  TRAVEL_MINUTES: TravelTime[];
  DUPLICATE_WINDOW: number;

  RETENTION_PUNCHES_DAYS: number;
  RETENTION_TEMPLATES_AFTER_DEACTIVATION: number;
  RETENTION_DELIVERIES_DAYS: number;
  RETENTION_DEVICE_EVENTS_DAYS: number;
  RETENTION_COMMANDS_DAYS: number;
  RETENTION_EVENTS_DAYS: number;
  RETENTION_DELETION_PROOFS_DAYS: number;
  RESTORE_KEEP_REPLACED: number;
  DELETION_PROOF_UNREACHABLE_AFTER: number;

  WEBSOCKET_MAX_BUFFERED_BYTES: number;
  WEBSOCKET_MAX_PER_ADMIN: number;

  CONSOLE_URL: string;
  CONSOLE_LINK_TTL: number;
  CONSOLE_SESSION_TTL: number;
  CONSOLE_SESSION_IDLE_TIMEOUT: number;
  CONSOLE_TRUST_PROXY: boolean;
  USER_INVITE_TTL: number;
  CONSOLE_SIGN_IN_LIMIT: Rate;
  CONSOLE_SIGN_IN_ADDRESS_LIMIT: Rate;
  CONSOLE_OIDC_ISSUER: string;
  CONSOLE_OIDC_CLIENT_ID: string;
  CONSOLE_OIDC_CLIENT_SECRET: string;
  CONSOLE_OIDC_NAME: string;
}

export type SettingKey = keyof Settings;

/** What a host may pass: every key optional, values either typed or as env-style strings. */
export type SettingsInput = { [K in SettingKey]?: Settings[K] | string };

type Parser<T> = (text: string) => { ok: true; value: T } | { ok: false; error: string };

interface SettingSpec<T> {
  default: T;
  parse: Parser<T>;
  /** Validates a typed value given in code (strings always go through `parse`). */
  accept: (value: unknown) => value is T;
  secret?: boolean;
  description: string;
  /** How the default is written in docs, in the env-variable form. */
  show?: (value: T) => string;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isNumberArray = (v: unknown): v is number[] => Array.isArray(v) && v.every(isNumber);
const isNumberMap = (v: unknown): v is Record<string, number> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((n) => Number.isSafeInteger(n) && n >= 0);
const isStringListMap = (v: unknown): v is Record<string, string[]> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(isStringArray);

const text = (def: string, description: string, secret = false): SettingSpec<string> => ({
  default: def,
  parse: (s) => ({ ok: true, value: s.trim() }),
  accept: isString,
  secret,
  description,
});
/**
 * The largest device PIN the service hands out: 9 digits, the oldest terminals' limit. The PIN
 * allocator stops there (modules/enrollees/pin-allocation.ts) and ENROLLEE_PIN_START may not be
 * above it (fpa.E013), or every enrollment would fail with the PINs exhausted.
 */
export const MAX_DEVICE_PIN = 999_999_999;

const integer = (def: number, description: string): SettingSpec<number> => ({
  default: def,
  parse: parseInteger,
  accept: isNumber,
  description,
});
const rate = (def: Rate, description: string): SettingSpec<Rate> => ({
  default: def,
  parse: parseRate,
  accept: (v: unknown): v is Rate => typeof v === 'object' && v !== null && isNumber((v as Rate).limit) && isNumber((v as Rate).windowMs),
  description,
  show: formatRate,
});
const duration = (defMs: number, description: string): SettingSpec<number> => ({
  default: defMs,
  parse: parseDuration,
  accept: isNumber,
  description,
  show: formatDuration,
});
const flag = (def: boolean, description: string): SettingSpec<boolean> => ({
  default: def,
  parse: parseBoolean,
  accept: isBoolean,
  description,
});
const list = (def: string[], description: string, secret = false): SettingSpec<string[]> => ({
  default: def,
  parse: (s) => ({ ok: true, value: parseList(s) }),
  accept: isStringArray,
  secret,
  description,
});
const listMap = (description: string, secret = false): SettingSpec<Record<string, string[]>> => ({
  default: {},
  parse: parseJsonMap,
  accept: isStringListMap,
  secret,
  description,
});

export const SETTINGS_SCHEMA: { [K in SettingKey]: SettingSpec<Settings[K]> } = {
  EMPLOYEE_MODEL: text('builtin', 'Employee model; `builtin` is the table behind /employees/. Fixed at first migration.'),
  EMPLOYEE_LOOKUP_FIELD: text('id', 'Field by which the API identifies employees.'),
  TEMPLATE_ENCRYPTION_KEYS: list([], 'Template keys (`npm run fpa:generate-key`); the first encrypts, all decrypt.', true),
  ADMS_URL_PREFIX: text('/iclock/', 'Path prefix of the terminal endpoints; must end with `/`.'),
  TASK_BACKEND: text('cron', '`cron` (jobs in-process) or `external` (operators run `npm run fpa:*`).'),
  ENROLLMENT_REQUIRE_CONSENT: flag(true, 'Whether consent is required before a template is stored.'),
  ALLOWED_FINGER_INDEXES: {
    default: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    parse: parseIntList,
    accept: isNumberArray,
    description: 'Finger indexes that may be enrolled (0 left little … 9 right little).',
  },
  FINGERS_REQUIRED_MIN: integer(1, 'Minimum fingers per enrollee, checked when an agent session completes.'),
  FINGERS_ALLOWED_MAX: integer(10, 'Maximum fingers per enrollee, checked in storeTemplate.'),
  ENROLLMENT_SESSION_TTL: duration(10 * MINUTE, 'Lifetime of an enrollment session.'),
  TEMPLATE_MAX_BYTES: integer(65536, 'Maximum fingerprint template size in bytes (decoded).'),
  BIOMETRIC_TYPES: list(
    ['fingerprint', 'face', 'visible_face', 'palm', 'finger_vein'],
    'Biometric kinds the service keeps and syncs (`fingerprint`, `face` near-infrared, `visible_face`, `palm`, `finger_vein`); other uploads are acknowledged and not kept.',
  ),
  BIOMETRIC_MAX_BYTES: {
    default: { face: 32768, visible_face: 32768, palm: 32768, finger_vein: 16384 },
    parse: parseJsonNumberMap,
    accept: isNumberMap,
    description: 'JSON map: kind → maximum template size in bytes (decoded) for kinds other than fingerprints (those: TEMPLATE_MAX_BYTES).',
    show: (v) => JSON.stringify(v),
  },
  AGENT_RATE_LIMIT: rate({ limit: 120, windowMs: MINUTE }, 'Requests per window per agent key, e.g. `120/m`.'),
  AGENT_CAN_START_SESSIONS: flag(false, 'Whether agents may start sessions themselves.'),
  ALGORITHM_COMPATIBILITY_MAP: listMap('JSON map: device algorithm → template algorithms it accepts.'),
  DELETE_REJECTED_DEVICE_TEMPLATES: flag(
    true,
    'Queue a delete for walk-up templates that were rejected (those of a person whose consent was withdrawn, or who was deleted, always are).',
  ),
  ENROLLEE_PIN_START: integer(
    10000,
    'First device PIN handed out to enrollees; PINs any terminal already holds are skipped. At most 999999999: a PIN has at most 9 digits (the oldest terminals’ limit).',
  ),
  AREAS_CREATED_ON_USE: flag(
    false,
    'An area named in a person, terminal, holiday, weekend or shift body that does not exist yet is created (the first releases). Off: it is refused (422 `unknown_area`), so a typo never creates an area; create areas with `POST areas/`.',
  ),
  TIME_ZONE: text('UTC', 'Default device time zone (IANA name).'),

  DATABASE_URL: text('file:./data/fpa.db', 'libSQL URL: `file:` (embedded, one writer) or `libsql://`.'),
  DATABASE_AUTH_TOKEN: text('', 'Auth token for a libSQL server.', true),
  DATABASE_SYNC_URL: text('', 'Remote libSQL server to sync an embedded replica from.'),
  DATABASE_SYNC_INTERVAL: duration(1000, "How often an embedded replica pulls the other instances' writes."),
  PORT: integer(3000, 'HTTP port of the standalone server (`PORT` also works).'),
  HOST: text('0.0.0.0', 'Address the standalone server listens on.'),
  LOG_LEVEL: text('info', '`debug`, `info`, `warn` or `error`.'),

  ADMIN_JWT_SECRET: text(
    '',
    'HS256 secret for administrator JWTs (`fpa:admin-token`). Optional: without it and ADMIN_JWKS_URL no JWT is accepted; people sign in as users, integrations use API keys.',
    true,
  ),
  ADMIN_JWKS_URL: text('', 'JWKS URL for administrator JWTs (any algorithm).'),
  ADMIN_JWT_ISSUER: text('', 'Required `iss` of administrator JWTs (optional).'),
  ADMIN_JWT_AUDIENCE: text('', 'Required `aud` of administrator JWTs (optional).'),
  ADMIN_SCOPE: text('fpa:admin', 'Scope an administrator token must hold.'),
  METRICS_TOKEN: text('', 'A bearer token that may read `/metrics` (for a Prometheus scraper); owners and admins of every area always may.', true),

  ADMS_ALLOWED_IPS: list([], 'If set, only these terminal IPs (exact or CIDR) may use the ADMS endpoints; an entry that is neither refuses the start (E022).'),
  ADMS_DEVICE_TOKENS: listMap('JSON map serial → accepted `pushcommkey`/`token` values (optional hardening).', true),
  ADMS_MAX_REQUEST_BYTES: integer(10 * 1024 * 1024, 'Largest terminal request body (413 above).'),
  ADMS_MAX_COMMANDS_PER_REQUEST: integer(200, 'Most commands sent in one poll.'),
  ADMS_MAX_COMMAND_BYTES: integer(64 * 1024, 'Most bytes of commands sent in one poll.'),
  ADMS_POLL_DELAY: duration(10_000, 'Poll interval told to terminals (`Delay`).'),
  ADMS_ERROR_DELAY: duration(30_000, 'Retry delay after an error told to terminals (`ErrorDelay`).'),
  ADMS_AUTO_APPROVE: flag(false, 'Approve new terminals without an administrator (lab use only).'),
  ADMS_MAX_PENDING_DEVICES: integer(100, 'Unknown serials kept as `pending_approval` at most; further ones are refused (403) and not stored.'),
  ADMS_MAX_PENDING_PER_ADDRESS: integer(
    10,
    'Unknown serials one network address may register as `pending_approval` at a time; further ones from it are refused (403), others are not affected.',
  ),
  ADMS_PENDING_EXPIRY: duration(
    7 * DAY,
    'A terminal that registered itself and was not approved within this is forgotten (job `expire-pending-devices`); if it is real, it registers again at its next contact.',
  ),
  ADMS_TRUST: text(
    'address',
    'How a terminal proves it is the approved one: `address` (pinned to the address it was approved from), `key` (a communication key on every request) or `serial` (the serial number alone, W006). A terminal issued a key must present it on every request in every mode.',
  ),
  ADMS_RAW_COMMANDS: flag(false, 'Let administrators queue raw command text to terminals (`raw` kind of devices/{sn}/commands/); off, it is refused with 403.'),

  COMMAND_ACK_TIMEOUT: duration(
    2 * MINUTE,
    'A sent command without a result after this is resent (enroll commands wait for their session; a reboot, carried out without an answer, is never resent: its terminal’s handshake closes it, or it fails).',
  ),
  COMMAND_MAX_RETRIES: integer(5, 'Resends of a failed or unanswered command before it fails (deletes: resent until answered, at least hourly).'),
  COMMAND_RETRY_BACKOFF: duration(30_000, 'First retry delay; doubles each attempt.'),
  COMMAND_EXPIRY: duration(7 * DAY, 'Commands not delivered within this expire (enroll commands: session TTL; deletes never expire).'),
  DEVICE_OFFLINE_AFTER: duration(5 * MINUTE, 'A terminal silent this long is offline.'),
  DEVICE_CLOCK_DRIFT_MAX: duration(
    2 * MINUTE,
    'A terminal whose clock is off by more than this (measured on real-time uploads) is flagged `clock_drifting`; a punch dated more than this (at least a minute) after it arrived is flagged `clock_ahead`.',
  ),
  DEVICE_CLOCK_CORRECTION: flag(false, 'Queue `set_time` to a terminal flagged `clock_drifting`.'),

  WEBHOOK_RETRY_BACKOFF: duration(30_000, 'First webhook retry delay; doubles each attempt, with jitter, up to an hour.'),
  WEBHOOK_MAX_ATTEMPTS: integer(
    12,
    'A message answered with a 4xx (other than 408, 410, 425, 429) at this attempt or later is dead-lettered and delivery goes on past it; earlier 4xx answers are retried like 5xx.',
  ),
  WEBHOOK_TIMEOUT: duration(10_000, 'Timeout of one webhook request (1s to 5m).'),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag(
    false,
    'Allow webhook URLs on every private and loopback address (W002; prefer WEBHOOK_ALLOWED_NETWORKS). Link-local, cloud metadata and reserved addresses stay refused.',
  ),
  WEBHOOK_ALLOWED_NETWORKS: list(
    [],
    'Networks (CIDR, IPv4 or IPv6, e.g. `10.20.0.0/16,fd12:3456::/48,127.0.0.1/32`) whose private or loopback addresses webhook URLs may resolve to; link-local, metadata and reserved addresses stay refused.',
  ),
  WEBHOOK_SECRET_ROTATION_OVERLAP: duration(
    DAY,
    'After `POST webhooks/{id}/rotate-secret/`, deliveries carry signatures with both the new and the old secret this long; then the old one is dropped.',
  ),
  WEBHOOK_DISABLE_AFTER: duration(7 * DAY, 'An endpoint failing continuously this long is disabled (its messages are held until it is enabled).'),
  WEBHOOK_BATCH_SIZE: integer(100, 'Events an endpoint is sent per batch (its position moves once per batch); message rows one claim takes.'),
  WEBHOOK_CONCURRENCY: integer(16, 'Webhook requests in flight per endpoint, and for messages queued by hand per instance.'),
  WEBHOOK_WORKER: flag(
    true,
    'Run the webhook delivery worker in-process (whatever TASK_BACKEND says); `off` leaves delivery to `npm run fpa:deliver-webhooks`.',
  ),
  WEBHOOK_MAX_LAG: duration(
    10_000,
    'Longest webhook deliveries wait while terminals keep uploading to this instance; they go on once uploads pause for 250 ms (0: never wait).',
  ),

  ATTENDANCE_TIME_ZONE: text('', 'Zone of attendance dates; empty means TIME_ZONE.'),
  DEFAULT_SCHEDULE: {
    default: null,
    parse: (s) => (s.trim() === '' ? { ok: true, value: null } : parseSchedule(s)),
    accept: (v: unknown): v is Schedule | null => v === null || (typeof v === 'object' && isString((v as Schedule).start) && isString((v as Schedule).end)),
    description: 'Working hours with grace, e.g. `09:00-17:00/10m`; sets the late / early_leave flags.',
  },
  WEEKEND_DAYS: {
    default: [0, 6],
    parse: parseWeekdays,
    accept: isNumberArray,
    description: 'Non-working weekdays, e.g. `sat,sun` (0 = Sunday).',
  },
  HOLIDAYS: {
    default: [],
    parse: parseDateList,
    accept: isStringArray,
    description: 'Non-working dates, e.g. `2026-12-25,2027-01-01`.',
  },
  ATTENDANCE_REPEAT_PUNCH_WINDOW: duration(
    MINUTE,
    'A punch of one person less than this after the one just before it (counted or itself a repeat) is a repeated tap, not an in/out: a chain of quick taps is one punch, the first (0 turns this off).',
  ),
  ATTENDANCE_SHIFT_SLACK: duration(
    4 * 60 * MINUTE,
    'A punch up to this long before a shift starts or after it ends belongs to that shift (and its date); at most 12h.',
  ),
  ATTENDANCE_OVERTIME_MINIMUM: duration(
    30 * MINUTE,
    'Overtime is time worked after the shift’s end (never more than worked − expected), counted once it reaches this (and the grace out); arriving early is not overtime.',
  ),
  ATTENDANCE_MAX_LAG: duration(
    10_000,
    'Longest attendance days (state following the event log) wait while terminals keep uploading; they follow once uploads pause for 250 ms, and every read of days catches up first.',
  ),
  COMPANY_NAME: text('', 'The company named at the top of every report (each PDF page, each Excel sheet); empty: none.'),
  REPORT_FONT: text(
    '',
    'A TrueType or OpenType font file for PDF reports, for names beyond Western European letters (e.g. `/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf`); empty: Helvetica, which prints other letters without their accents or as `?`.',
  ),
  REPORT_FONT_BOLD: text('', 'The bold font file of PDF reports (headings, totals); empty: REPORT_FONT (or Helvetica-Bold).'),

  PUNCH_RECOVERY: flag(
    true,
    'Ask a terminal to re-upload a range of punches (`DATA QUERY ATTLOG`) when the count it reports disagrees with the punches stored from it, or after it or this server was away.',
  ),
  PUNCH_RECOVERY_LOOKBACK: duration(
    31 * DAY,
    'The oldest punches a re-upload asks for: a terminal whose count never agreed is asked for this much, and no re-upload reaches further back.',
  ),
  TRAVEL_MINUTES: {
    default: [],
    parse: parseTravelMinutes,
    accept: (v: unknown): v is TravelTime[] =>
      Array.isArray(v) &&
      v.every(
        (t) =>
          typeof t === 'object' &&
          t !== null &&
          isStringArray((t as TravelTime).areas) &&
          (t as TravelTime).areas.length === 2 &&
          isNumber((t as TravelTime).minutes),
      ),
    description:
      'Least minutes between areas, e.g. `north-south=40,hq|east-wing=15` (`|` between names holding a dash): one person punching in both sooner is an `impossible_travel` anomaly.',
    show: formatTravelMinutes,
  },
  DUPLICATE_WINDOW: duration(
    MINUTE,
    'One person punching again within this (any terminal) is a `repeated_punch` anomaly on the later punch, whichever of the two arrived first (0 turns this off); attendance is not changed by it.',
  ),

  RETENTION_PUNCHES_DAYS: integer(0, 'Punches and attendance days older than this are purged (0 keeps them).'),
  RETENTION_TEMPLATES_AFTER_DEACTIVATION: duration(30 * DAY, 'Templates of deactivated enrollees are destroyed after this.'),
  RETENTION_DELIVERIES_DAYS: integer(30, 'Webhook delivery records and delivered message rows kept this long.'),
  RETENTION_DEVICE_EVENTS_DAYS: integer(90, 'Device events kept this long.'),
  RETENTION_COMMANDS_DAYS: integer(30, 'Finished device commands kept this long.'),
  RETENTION_EVENTS_DAYS: integer(
    90,
    'Events of the event log (events/, streams, webhooks) kept this long, never one a log follower or webhook endpoint has not processed yet (0 keeps them).',
  ),

  RETENTION_DELETION_PROOFS_DAYS: integer(
    1825,
    'Deletion proofs (dates, terminals, their delete commands; the employee key only until retention scrubs the deleted person) kept this long after they are complete (0 keeps them).',
  ),
  RESTORE_KEEP_REPLACED: duration(
    7 * DAY,
    'The database `npm run fpa:restore` replaced (kept beside it as `fpa.db.replaced-<time>`: everyone as of the restore, sealed templates included, out of reach of the deletions, consent withdrawals and retention after it) is deleted this long after the restore, by the server at start and by `purge-retention` (0: at the next of either).',
  ),
  DELETION_PROOF_UNREACHABLE_AFTER: duration(
    30 * DAY,
    'A terminal that owes a delete and has not been heard from this long (a removed terminal that never came back) is shown `unreachable` in deletion proofs.',
  ),

  WEBSOCKET_MAX_BUFFERED_BYTES: integer(1024 * 1024, 'A WebSocket client further behind than this is dropped.'),
  WEBSOCKET_MAX_PER_ADMIN: integer(50, 'Open punch streams per administrator (token subject) and instance; more are refused with 429.'),

  CONSOLE_URL: text(
    '',
    'Address of the console in printed sign-in links and in the invite and reset links the API answers with (`invite_url`), e.g. `https://attendance.example.com/console/`; empty: `http://<HOST>:<PORT>/console/`, the address the server listens on (the LAN address when HOST is every interface), never the request’s `Host` header: behind a proxy, set it. Its origin is also the service’s own when a change riding on a cookie is checked for coming from another site (behind a proxy that rewrites `Host`).',
  ),
  CONSOLE_LINK_TTL: duration(10 * MINUTE, 'A console sign-in link (`npm run fpa:console-link`) works once, within this.'),
  CONSOLE_SESSION_TTL: duration(12 * 60 * MINUTE, 'A console session ends this long after sign-in, however busy.'),
  CONSOLE_SESSION_IDLE_TIMEOUT: duration(30 * MINUTE, 'A console session unused this long ends.'),
  CONSOLE_TRUST_PROXY: flag(
    false,
    'Believe the proxy in front (one you control, e.g. TLS-terminating nginx or Caddy): `X-Forwarded-Proto` and `X-Forwarded-Host` (the console cookie is then `Secure` behind an HTTPS proxy) and the LAST entry of `X-Forwarded-For` as the client’s address (the sign-in limit per address), the one the proxy appended; earlier entries are what the client sent and never count. A last entry that is no IP address counts as the proxy’s own.',
  ),
  USER_INVITE_TTL: duration(7 * 24 * 60 * MINUTE, 'An invite or password-reset link (`users/`, `fpa:create-user`) works once, within this.'),
  CONSOLE_SIGN_IN_LIMIT: rate(
    { limit: 10, windowMs: 15 * MINUTE },
    'Failed console sign-ins per username and window (e.g. `10/15m`); more answer 429 until the window ends.',
  ),
  CONSOLE_SIGN_IN_ADDRESS_LIMIT: rate(
    { limit: 50, windowMs: 15 * MINUTE },
    'Failed console sign-ins per client address and window (an office behind one address shares it); more answer 429.',
  ),
  CONSOLE_OIDC_ISSUER: text(
    '',
    'Single sign-on: the OpenID Connect issuer of the company’s provider (e.g. `https://login.example.com/realms/staff`); empty: no single sign-on. Register the redirect URI `<console>/sso/callback`.',
  ),
  CONSOLE_OIDC_CLIENT_ID: text('', 'Single sign-on: the client id the provider gave the console.'),
  CONSOLE_OIDC_CLIENT_SECRET: text('', 'Single sign-on: the client secret (empty for a public client, PKCE only).', true),
  CONSOLE_OIDC_NAME: text('', 'Single sign-on: the provider’s name on the sign-in button (“Sign in with …”); empty: the issuer’s host.'),
};

export const SETTING_KEYS = Object.keys(SETTINGS_SCHEMA) as SettingKey[];

export interface SettingProblem {
  key: SettingKey;
  source: 'env' | 'settings';
  message: string;
}

export interface LoadedSettings {
  settings: Readonly<Settings>;
  problems: SettingProblem[];
  /** `FPA_` environment variables that name no setting (a mistyped name is otherwise silently ignored). */
  unknownEnv: string[];
  /** Settings given in the environment under their bare name (`DATABASE_URL`), which is not read, while `FPA_<KEY>` is unset. */
  unprefixedEnv: string[];
}

/** Environment names: `FPA_<KEY>`; `PORT` is also honoured for the standalone server. */
export function envNameOf(key: SettingKey): string {
  return `FPA_${key}`;
}

export function loadSettings(input: SettingsInput = {}, env: Record<string, string | undefined> = process.env): LoadedSettings {
  const problems: SettingProblem[] = [];
  const out: Partial<Record<SettingKey, unknown>> = {};
  for (const key of SETTING_KEYS) {
    const spec = SETTINGS_SCHEMA[key] as SettingSpec<unknown>;
    let value: unknown = spec.default;
    const given = input[key];
    if (typeof given === 'string') {
      const parsed = spec.parse(given);
      if (parsed.ok) value = parsed.value;
      else problems.push({ key, source: 'settings', message: parsed.error });
    } else if (given !== undefined) {
      if (spec.accept(given)) value = given;
      else problems.push({ key, source: 'settings', message: 'has the wrong type' });
    }
    const envText = env[envNameOf(key)] ?? (key === 'PORT' ? env.PORT : undefined);
    if (envText !== undefined && envText !== '') {
      const parsed = spec.parse(envText);
      if (parsed.ok) value = parsed.value;
      else problems.push({ key, source: 'env', message: parsed.error });
    }
    out[key] = value;
  }
  // Every key is set above, each value parsed or checked by its own key's spec.
  const settings = out as Settings;
  if (settings.ATTENDANCE_TIME_ZONE === '') settings.ATTENDANCE_TIME_ZONE = settings.TIME_ZONE;
  const known = new Set(SETTING_KEYS.map(envNameOf));
  const unknownEnv = Object.keys(env).filter((name) => name.startsWith('FPA_') && !known.has(name));
  // PORT is read bare; HOST is a shell's own variable in some shells, not a sign of a mistake.
  const unprefixedEnv = SETTING_KEYS.filter((key) => key !== 'PORT' && key !== 'HOST' && env[key] && env[envNameOf(key)] === undefined);
  return { settings: Object.freeze(settings), problems, unknownEnv, unprefixedEnv };
}

/** Settings safe to print (secrets masked, and those inside URLs), for `fpa:check --print`. */
export function describeSettings(settings: Settings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const spec = SETTINGS_SCHEMA[key] as SettingSpec<unknown>;
    const value = settings[key];
    out[key] = spec.secret ? '<hidden>' : typeof value === 'string' ? hideUrlSecrets(value) : value;
  }
  return out;
}

/**
 * The settings an environment gives, each with the variable it is read from: `FPA_<KEY>`, and
 * for PORT a bare `PORT` when `FPA_PORT` is unset (loadSettings' own rule; an empty value gives nothing).
 */
export function settingsGivenIn(env: Record<string, string | undefined>): Map<SettingKey, string> {
  const given = new Map<SettingKey, string>();
  for (const key of SETTING_KEYS) {
    const name = envNameOf(key);
    const variable = env[name] !== undefined ? name : key === 'PORT' && env.PORT !== undefined ? 'PORT' : null;
    if (variable && env[variable] !== '') given.set(key, variable);
  }
  return given;
}

/**
 * A digest of each setting's value as parsed (HMAC-SHA256 under `secret`, shortened), by key: two
 * processes that share the secret see which of their settings differ without either showing a
 * value. A running server writes its own in the lock file, under its operator token, for the
 * scripts that hand it their work (a script's FPA_* variables do not apply there).
 */
export function settingDigests(settings: Readonly<Settings>, secret: string): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const key of SETTING_KEYS) {
    digests[key] = createHmac('sha256', secret)
      .update(`${key}=${JSON.stringify(settings[key])}`)
      .digest('base64url')
      .slice(0, 22);
  }
  return digests;
}
