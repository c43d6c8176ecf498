/**
 * The configuration check (the spec's `fpa.E0xx` codes). `bun run fpa:check` and start-up
 * run the same checks and report every problem at once; start refuses on any error.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseEncryptionKey } from '../crypto/template-cipher';
import { parseCidr, parseNetwork } from '../net/ip';
import { isUsableTimeZone, isValidTimeZone } from '../time/zone';
import type { LoadedSettings, Settings } from './settings';
import { envNameOf, MAX_DEVICE_PIN, SETTING_KEYS, SETTINGS_SCHEMA } from './settings';

export interface ConfigIssue {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  hint: string;
}

/** Every code the check can report, for the README and `fpa:check --codes`. */
export const CHECK_CODES: Record<string, { severity: 'error' | 'warning'; meaning: string }> = {
  'fpa.E001': { severity: 'error', meaning: 'TEMPLATE_ENCRYPTION_KEYS is empty' },
  'fpa.E002': { severity: 'error', meaning: 'a template encryption key is malformed, or two keys share an id' },
  'fpa.E003': { severity: 'error', meaning: 'ADMS_URL_PREFIX does not start and end with `/`' },
  'fpa.E004': { severity: 'error', meaning: 'FINGERS_REQUIRED_MIN / FINGERS_ALLOWED_MAX are inconsistent' },
  'fpa.E005': { severity: 'error', meaning: 'ALLOWED_FINGER_INDEXES is empty or outside 0–9' },
  'fpa.E006': { severity: 'error', meaning: 'TIME_ZONE or ATTENDANCE_TIME_ZONE is not a known IANA zone (a fixed offset: W009)' },
  'fpa.E007': { severity: 'error', meaning: 'TASK_BACKEND is not `cron` or `external`' },
  'fpa.E008': { severity: 'error', meaning: 'ALGORITHM_COMPATIBILITY_MAP is malformed' },
  'fpa.E010': { severity: 'error', meaning: 'EMPLOYEE_MODEL differs from the model recorded at the first migration' },
  'fpa.E011': { severity: 'error', meaning: 'a setting could not be parsed' },
  'fpa.E012': { severity: 'error', meaning: 'DATABASE_URL is not a `file:`, `libsql:`, `http(s):` or `ws(s):` URL' },
  'fpa.E013': { severity: 'error', meaning: 'a numeric limit is out of range' },
  'fpa.E014': { severity: 'error', meaning: 'EMPLOYEE_LOOKUP_FIELD is not a field of the employee directory in use' },
  'fpa.E015': { severity: 'error', meaning: 'EMPLOYEE_MODEL names a model no directory provides (standalone, only `builtin` exists)' },
  'fpa.E016': { severity: 'error', meaning: 'BIOMETRIC_TYPES or BIOMETRIC_MAX_BYTES names a biometric kind the service does not know' },
  'fpa.E017': { severity: 'error', meaning: 'ADMS_TRUST is not `address`, `key` or `serial`' },
  'fpa.E018': { severity: 'error', meaning: 'LOG_LEVEL is not `debug`, `info`, `warn` or `error`' },
  'fpa.E019': { severity: 'error', meaning: 'WEBHOOK_ALLOWED_NETWORKS holds an entry that is not a network in CIDR form' },
  'fpa.E020': { severity: 'error', meaning: 'REPORT_FONT or REPORT_FONT_BOLD is not a readable TrueType or OpenType font file' },
  'fpa.E021': { severity: 'error', meaning: 'HOST is not an IP address or a host name' },
  'fpa.E022': { severity: 'error', meaning: 'ADMS_ALLOWED_IPS holds an entry that is not an IP address or a network in CIDR form' },
  'fpa.E023': { severity: 'error', meaning: 'the database was migrated by a newer release: it holds migrations this release does not have' },
  'fpa.E024': {
    severity: 'error',
    meaning: 'TEMPLATE_ENCRYPTION_KEYS opens none of the sealed data sampled from the database: not the keys it was sealed with',
  },
  'fpa.E025': { severity: 'error', meaning: 'CONSOLE_URL is not an http(s) URL' },
  'fpa.E030': { severity: 'error', meaning: 'CONSOLE_OIDC_ISSUER is not an http(s) URL, or only one of it and CONSOLE_OIDC_CLIENT_ID is set' },
  'fpa.E031': {
    severity: 'error',
    meaning:
      'the database at DATABASE_URL cannot be opened (a file that is not a database, one this user cannot read, a server that does not answer): start refuses it',
  },
  'fpa.W001': { severity: 'warning', meaning: 'ADMIN_JWT_SECRET is shorter than 32 bytes' },
  'fpa.W002': { severity: 'warning', meaning: 'WEBHOOK_ALLOW_PRIVATE_NETWORKS is on' },
  'fpa.W003': { severity: 'warning', meaning: 'ADMS_AUTO_APPROVE is on: any terminal that can reach the server is trusted' },
  'fpa.W004': { severity: 'warning', meaning: 'ENROLLMENT_REQUIRE_CONSENT is off' },
  'fpa.W005': { severity: 'warning', meaning: 'an embedded replica (DATABASE_SYNC_URL) is configured without a local file' },
  'fpa.W006': { severity: 'warning', meaning: 'ADMS_TRUST is `serial`: terminals without a communication key are identified by serial number only' },
  'fpa.W007': {
    severity: 'warning',
    meaning: 'an `FPA_` environment variable names no setting, or a setting is set without its `FPA_` prefix (either is otherwise ignored)',
  },
  'fpa.W008': { severity: 'warning', meaning: 'there is no database at the DATABASE_URL file path (a first start creates one there)' },
  'fpa.W009': { severity: 'warning', meaning: 'TIME_ZONE or ATTENDANCE_TIME_ZONE is a fixed offset (`+02:00`): it has no DST; an IANA name is needed' },
  'fpa.W010': {
    severity: 'warning',
    meaning: 'migrations of this release are not applied to the database yet (the next start applies them); a server still running on it is an older release',
  },
  'fpa.W011': {
    severity: 'warning',
    meaning: 'CONSOLE_TRUST_PROXY is on without CONSOLE_URL: invite and reset links name the server’s own address, not the proxy’s',
  },
  'fpa.W030': { severity: 'warning', meaning: 'CONSOLE_OIDC_ISSUER is a plain `http:` URL outside this machine' },
};

const LOG_LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error'];

/** The values of ADMS_TRUST (modules/devices/identity.ts). */
export const ADMS_TRUST_MODES: readonly string[] = ['address', 'key', 'serial'];

const issue = (code: string, message: string, hint: string): ConfigIssue => ({
  code,
  severity: code.startsWith('fpa.E') ? 'error' : 'warning',
  message,
  hint,
});

export interface CheckInput {
  loaded: LoadedSettings;
  /** The employee model recorded at the first migration (null before it). */
  recordedEmployeeModel?: string | null;
  /** The model of the directory a host passed in; absent when the built-in directory is used. */
  hostEmployeeModel?: string;
  /** Fields the directory in use can look employees up by (the built-in one: `id`); unknown when absent. */
  employeeLookupFields?: readonly string[];
  /** What the database says when a newer release migrated it (db/client.ts newerDatabaseMessage); absent when not. */
  migratedByNewerRelease?: string;
  /** This release's migrations the database lacks (db/client.ts pendingMigrationsMessage), and the pid of a server holding it meanwhile; absent when none. */
  pendingMigrations?: { message: string; holderPid?: number };
  /** The path of a `file:` database that does not exist (the check creates nothing); absent when there is one. */
  missingDatabaseFile?: string;
  /** Why the database could not be opened, as start-up says it (db/unavailable.ts); absent when it opened. */
  unopenableDatabase?: string;
  /** What the key ring made of the sealed data sampled from the database (app/sealed-data.ts); absent when not looked at. */
  sealedData?: SealedDataCheck;
}

/** The key ring tried on a few sealed values of each kind the database holds. */
export interface SealedDataCheck {
  /** Values tried, and how many of them a key of the ring opened. */
  sampled: number;
  opened: number;
  /** What was tried (`template`, `webhook signing secret`…) and the key ids their envelopes name. */
  kinds: readonly string[];
  keyIds: readonly string[];
  /** The ids of the ring's keys. */
  ringKeyIds: readonly string[];
}

/** The built-in directory's model name (the `fpa_employees` table). */
export const BUILTIN_MODEL = 'builtin';

/** The employee model in force: a host's directory's, else EMPLOYEE_MODEL. */
export function effectiveEmployeeModel(settings: Pick<Settings, 'EMPLOYEE_MODEL'>, hostEmployeeModel: string | undefined): string {
  return hostEmployeeModel ?? settings.EMPLOYEE_MODEL;
}

/** Every check, each group of settings by its own function, in the order they are reported. */
export function checkConfiguration(input: CheckInput): ConfigIssue[] {
  const s: Settings = input.loaded.settings;
  return [
    ...settingProblems(input.loaded),
    ...encryptionKeyIssues(s),
    ...keyRingIssues(input.sealedData),
    ...admsPrefixIssues(s),
    ...fingerIssues(s),
    ...knownValueIssues(s),
    ...adminAuthIssues(s),
    ...biometricKindIssues(s),
    ...employeeIssues(s, input),
    ...databaseUrlIssues(s),
    ...databaseReleaseIssues(input),
    ...limitIssues(s),
    ...jwtSecretIssues(s),
    ...webhookNetworkIssues(s),
    ...terminalAddressIssues(s),
    ...fontIssues(s),
    ...safetyWarnings(s),
    ...oidcIssues(s),
    ...serialTrustIssues(s),
    ...consoleUrlIssues(s),
    ...unknownNameIssues(input.loaded),
  ];
}

/** Why CONSOLE_URL cannot start printed links (null when it can, or is empty): it must be an http(s) URL. */
export function consoleUrlProblem(value: string): string | null {
  if (value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `CONSOLE_URL "${value}" is not a URL.`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `CONSOLE_URL "${value}" is not an http(s) URL.`;
  return null;
}

/** The address printed links start with (console-link, create-user): links an operator cannot open are worse than none. */
function consoleUrlIssues(s: Settings): ConfigIssue[] {
  const problem = consoleUrlProblem(s.CONSOLE_URL);
  if (!problem) return [];
  return [issue('fpa.E025', problem, 'Give the console’s address as people open it, e.g. `https://attendance.example.com/console/`, or leave it empty.')];
}

/**
 * `FPA_` variables that name no setting, and settings set under their bare name: a mistyped name
 * (or the `DATABASE_URL` other tools use) would leave its setting at the default without a word.
 */
function unknownNameIssues(loaded: LoadedSettings): ConfigIssue[] {
  const names = SETTING_KEYS.map(envNameOf);
  const bare = loaded.unprefixedEnv.map((name) =>
    issue('fpa.W007', `${name} is set, but settings are read from FPA_${name}: it is ignored.`, `Set FPA_${name} instead.`),
  );
  return [
    ...bare,
    ...loaded.unknownEnv.map((name) => {
      const nearest = nearestName(name, names);
      return issue(
        'fpa.W007',
        `${name} is set but is no setting: it is ignored.`,
        nearest ? `Did you mean ${nearest}?` : 'See the configuration table in the README for the settings’ names.',
      );
    }),
  ];
}

/** The setting name nearest to a mistyped one, if it is near enough to be the one meant (edits within a third of its length). */
function nearestName(name: string, names: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const candidate of names) {
    const distance = editDistance(name.slice(4), candidate.slice(4));
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor((name.length - 4) / 3)) ? best.name : null;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Settings that could not be parsed (a malformed ALGORITHM_COMPATIBILITY_MAP has its own code). */
function settingProblems(loaded: LoadedSettings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const p of loaded.problems) {
    const where = p.source === 'env' ? envNameOf(p.key) : `settings.${p.key}`;
    out.push(
      p.key === 'ALGORITHM_COMPATIBILITY_MAP'
        ? issue('fpa.E008', `${where} is malformed: ${p.message}`, 'Give a JSON object such as {"10":["10","9"]}.')
        : issue('fpa.E011', `${where} could not be parsed: ${p.message}`, 'See the configuration table in the README for the format.'),
    );
  }
  return out;
}

/** Templates can be encrypted: at least one key, each well formed, no id twice. */
function encryptionKeyIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (s.TEMPLATE_ENCRYPTION_KEYS.length === 0) {
    out.push(
      issue(
        'fpa.E001',
        'TEMPLATE_ENCRYPTION_KEYS is empty: templates cannot be encrypted.',
        'Run `npm run fpa:generate-key` and set FPA_TEMPLATE_ENCRYPTION_KEYS.',
      ),
    );
  } else {
    const ids = new Set<string>();
    s.TEMPLATE_ENCRYPTION_KEYS.forEach((key, i) => {
      try {
        const parsed = parseEncryptionKey(key);
        if (ids.has(parsed.id)) out.push(issue('fpa.E002', `TEMPLATE_ENCRYPTION_KEYS[${i}] repeats key id ${parsed.id}.`, 'List each key once.'));
        ids.add(parsed.id);
      } catch (error) {
        out.push(
          issue(
            'fpa.E002',
            `TEMPLATE_ENCRYPTION_KEYS[${i}] is malformed: ${error instanceof Error ? error.message : 'invalid'}.`,
            'Keys look like `fpa1:<id>:<base64url>`; generate one with `npm run fpa:generate-key`.',
          ),
        );
      }
    });
  }
  return out;
}

/**
 * The key ring against the data at rest. A valid key that is not the database's (a new one from
 * `fpa:init` beside a copied data/, a .env from another installation) let the server start and
 * serve: templates then failed to send, webhook secrets to open, and new data was sealed under
 * the new key, so two keys were needed from then on. Sealed data none of whose samples opens
 * refuses the start; some opening is enough (a rotation under way, a value sealed under a key
 * since dropped: the jobs report those one by one).
 */
function keyRingIssues(sealed: SealedDataCheck | undefined): ConfigIssue[] {
  if (!sealed || sealed.sampled === 0 || sealed.opened > 0) return [];
  const ids = (list: readonly string[]) => (list.length === 0 ? 'none readable' : list.join(', '));
  return [
    issue(
      'fpa.E024',
      `TEMPLATE_ENCRYPTION_KEYS (key id ${ids(sealed.ringKeyIds)}) opens none of the ${sealed.sampled} sealed values sampled from the database (${sealed.kinds.join(', ')}), sealed under key id ${ids(sealed.keyIds)}: these are not the keys this database was used with.`,
      'Bring the .env (or FPA_TEMPLATE_ENCRYPTION_KEYS) this database was used with: its key reads `fpa1:<id>:…` with an id named here. A new key opens nothing another key sealed; to change keys, list the new key first and the old one after it, run `npm run fpa:rotate-keys`, and only then drop the old one.',
    ),
  ];
}

/** The terminals' URL prefix. */
function admsPrefixIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (!s.ADMS_URL_PREFIX.startsWith('/') || !s.ADMS_URL_PREFIX.endsWith('/')) {
    out.push(
      issue('fpa.E003', `ADMS_URL_PREFIX "${s.ADMS_URL_PREFIX}" must start and end with "/".`, 'Terminals call `<prefix>cdata`; the default is `/iclock/`.'),
    );
  }
  return out;
}

/** Fingers: a session an enrollee can complete, indexes within a pair of hands. */
function fingerIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (s.FINGERS_REQUIRED_MIN > s.FINGERS_ALLOWED_MAX) {
    out.push(
      issue(
        'fpa.E004',
        `FINGERS_REQUIRED_MIN (${s.FINGERS_REQUIRED_MIN}) is above FINGERS_ALLOWED_MAX (${s.FINGERS_ALLOWED_MAX}).`,
        'No enrollee could ever complete a session.',
      ),
    );
  }
  if (s.FINGERS_REQUIRED_MIN > s.ALLOWED_FINGER_INDEXES.length) {
    out.push(
      issue(
        'fpa.E004',
        `FINGERS_REQUIRED_MIN (${s.FINGERS_REQUIRED_MIN}) is above the number of allowed fingers (${s.ALLOWED_FINGER_INDEXES.length}).`,
        'Allow more fingers or require fewer.',
      ),
    );
  }
  if (s.FINGERS_REQUIRED_MIN < 0 || s.FINGERS_ALLOWED_MAX < 1 || s.FINGERS_ALLOWED_MAX > 10) {
    out.push(issue('fpa.E004', 'FINGERS_REQUIRED_MIN must be ≥ 0 and FINGERS_ALLOWED_MAX between 1 and 10.', 'A hand has five fingers; there are ten.'));
  }
  if (s.ALLOWED_FINGER_INDEXES.length === 0 || s.ALLOWED_FINGER_INDEXES.some((f) => !Number.isInteger(f) || f < 0 || f > 9)) {
    out.push(
      issue(
        'fpa.E005',
        `ALLOWED_FINGER_INDEXES ${JSON.stringify(s.ALLOWED_FINGER_INDEXES)} must be a non-empty list within 0–9.`,
        'Finger 0 is the left little finger, 9 the right little finger.',
      ),
    );
  }
  return out;
}

/** Settings that take one of known values: time zones, log level, terminal trust, task backend, the algorithm map's shape. */
/** A host name as DNS spells one: labels of letters, digits and inner hyphens. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function knownValueIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const key of ['TIME_ZONE', 'ATTENDANCE_TIME_ZONE'] as const) {
    // An unset ATTENDANCE_TIME_ZONE takes TIME_ZONE's value: a bad zone is reported once, under the key that was set.
    const inherited = key === 'ATTENDANCE_TIME_ZONE' && s.ATTENDANCE_TIME_ZONE === s.TIME_ZONE;
    if (inherited || isValidTimeZone(s[key])) continue;
    // A fixed offset worked before it was refused: an upgrade still starts, warned, for one release.
    if (isUsableTimeZone(s[key])) {
      out.push(
        issue(
          'fpa.W009',
          `${key} "${s[key]}" is a fixed offset: it knows no clock changes, so where the place changes its clocks every punch of half the year is an hour off. It is refused from the next release.`,
          'Use the IANA name of the place (`Europe/Berlin`; `Etc/GMT-2` if the place truly never changes its clocks).',
        ),
      );
    } else out.push(issue('fpa.E006', `${key} "${s[key]}" is not a known IANA time zone.`, 'Use a name such as `Europe/Berlin` or `Asia/Kolkata`.'));
  }
  if (!LOG_LEVELS.includes(s.LOG_LEVEL)) {
    out.push(issue('fpa.E018', `LOG_LEVEL "${s.LOG_LEVEL}" is unknown.`, `Use one of ${LOG_LEVELS.join(', ')}.`));
  }
  if (!ADMS_TRUST_MODES.includes(s.ADMS_TRUST)) {
    out.push(
      issue(
        'fpa.E017',
        `ADMS_TRUST "${s.ADMS_TRUST}" is unknown.`,
        'Use `address` (the default: terminals pinned to the address they were approved from), `key` or `serial`.',
      ),
    );
  }
  if (!isIP(s.HOST) && !HOST_NAME.test(s.HOST)) {
    out.push(
      issue(
        'fpa.E021',
        `HOST "${s.HOST}" is not an IP address or a host name.`,
        'Use `0.0.0.0` (every interface, the default), `127.0.0.1` (this machine only, behind a proxy) or an address of this machine.',
      ),
    );
  }
  if (s.TASK_BACKEND !== 'cron' && s.TASK_BACKEND !== 'external') {
    out.push(issue('fpa.E007', `TASK_BACKEND "${s.TASK_BACKEND}" is unknown.`, 'Use `cron` (in-process) or `external` (run `npm run fpa:*` on a schedule).'));
  }
  for (const [device, accepted] of Object.entries(s.ALGORITHM_COMPATIBILITY_MAP)) {
    if (device.trim() === '' || !Array.isArray(accepted) || accepted.some((v) => typeof v !== 'string' || v.trim() === '')) {
      out.push(
        issue(
          'fpa.E008',
          `ALGORITHM_COMPATIBILITY_MAP entry "${device}" must map to a list of algorithm versions.`,
          'Example: {"10":["10"],"12":["12","10"]}.',
        ),
      );
    }
  }
  return out;
}

/**
 * The administrator JWT settings, when given. None is a valid choice: people sign in to the
 * console as users and integrations use API keys, both kept in the database, and the operator's
 * scripts hand their work to the running server (the lock file's token). A JWT secret is then one
 * secret less to keep (code E009, which demanded one, is retired).
 */
function adminAuthIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (s.ADMIN_JWKS_URL) {
    try {
      new URL(s.ADMIN_JWKS_URL);
    } catch {
      out.push(issue('fpa.E011', 'ADMIN_JWKS_URL is not a URL.', 'Give the https URL of the identity provider’s JWKS.'));
    }
  }
  return out;
}

/** Only biometric kinds the service knows. */
function biometricKindIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  // Every kind the service knows is on by default (the ADMS protocol module lists the same ones; a test keeps them equal).
  const kinds = SETTINGS_SCHEMA.BIOMETRIC_TYPES.default;
  const unknownKinds = [...s.BIOMETRIC_TYPES, ...Object.keys(s.BIOMETRIC_MAX_BYTES)].filter((k) => !kinds.includes(k));
  if (unknownKinds.length > 0) {
    out.push(issue('fpa.E016', `Unknown biometric kinds: ${[...new Set(unknownKinds)].join(', ')}.`, `The kinds are ${kinds.join(', ')}.`));
  }
  return out;
}

/** The employee model and lookup field against the directory in use and the one the database was migrated with. */
function employeeIssues(s: Settings, input: CheckInput): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  // One rule for the server and `fpa:check`: a host's directory names the model; otherwise the
  // built-in one runs, and EMPLOYEE_MODEL must say so.
  const model = effectiveEmployeeModel(s, input.hostEmployeeModel);
  if (input.hostEmployeeModel === undefined && s.EMPLOYEE_MODEL !== BUILTIN_MODEL) {
    out.push(
      issue(
        'fpa.E015',
        `EMPLOYEE_MODEL is "${s.EMPLOYEE_MODEL}" but no employee directory for it was passed in.`,
        'Standalone, leave EMPLOYEE_MODEL at `builtin`; a host application passes its directory to createFingerprintAttendance({ employees }).',
      ),
    );
  }
  if (input.recordedEmployeeModel && input.recordedEmployeeModel !== model) {
    out.push(
      issue(
        'fpa.E010',
        `EMPLOYEE_MODEL is "${model}" but the database was migrated with "${input.recordedEmployeeModel}".`,
        'Switching the employee model needs a manual data migration of enrollees.employee_key; then update fpa_meta.employee_model.',
      ),
    );
  }
  if (input.employeeLookupFields && !input.employeeLookupFields.includes(s.EMPLOYEE_LOOKUP_FIELD)) {
    out.push(
      issue(
        'fpa.E014',
        `EMPLOYEE_LOOKUP_FIELD "${s.EMPLOYEE_LOOKUP_FIELD}" is not a field of the ${model === 'builtin' ? 'built-in ' : ''}employee directory (it knows ${input.employeeLookupFields.join(', ')}).`,
        'The built-in directory looks employees up by `id`; a host directory declares its `lookupFields`.',
      ),
    );
  }
  return out;
}

/** A database this release can run on: one that opens, and not one a newer release has migrated. */
function databaseReleaseIssues(input: CheckInput): ConfigIssue[] {
  if (input.unopenableDatabase) {
    return [
      issue(
        'fpa.E031',
        `${input.unopenableDatabase[0]?.toUpperCase()}${input.unopenableDatabase.slice(1)}.`,
        'Check DATABASE_URL (a file of this service: `data/fpa.db` as the server made it), the file’s owner and mode, or the libSQL server; a damaged file is replaced by a backup (`npm run fpa:restore`, README "Backups and restores").',
      ),
    ];
  }
  if (input.missingDatabaseFile) {
    return [
      issue(
        'fpa.W008',
        `There is no database at ${input.missingDatabaseFile}: a first start creates an empty one there.`,
        'Check DATABASE_URL if you expected one (a mistyped path starts on an empty database); on a new installation this is expected.',
      ),
    ];
  }
  if (input.pendingMigrations) return [pendingMigrationsIssue(input.pendingMigrations)];
  if (!input.migratedByNewerRelease) return [];
  return [
    issue(
      'fpa.E023',
      `${input.migratedByNewerRelease[0]?.toUpperCase()}${input.migratedByNewerRelease.slice(1)}.`,
      'Migrations only go forward: run the release that migrated it, or this release on the backup of data/ taken before upgrading (README, Upgrade).',
    ),
  ];
}

/**
 * Migrations not applied yet: normal between installing a release and starting it (the start
 * applies them), so a warning; a server holding the database meanwhile is the older release.
 */
function pendingMigrationsIssue(pending: { message: string; holderPid?: number }): ConfigIssue {
  const holder =
    pending.holderPid === undefined
      ? ''
      : ` A server is running on it (pid ${pending.holderPid}): an older release, which migrated it to its own migrations only.`;
  return issue(
    'fpa.W010',
    `${pending.message[0]?.toUpperCase()}${pending.message.slice(1)}.${holder}`,
    'Stop the server running on the database, if any, then start this release (it applies them) or run `npm run fpa:migrate` (README, Upgrade).',
  );
}

/** A database URL of a scheme libSQL opens. */
function databaseUrlIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (!/^(file:|libsql:|https?:|wss?:)/.test(s.DATABASE_URL)) {
    out.push(
      issue(
        'fpa.E012',
        `DATABASE_URL "${s.DATABASE_URL.replace(/\/\/[^@]*@/, '//***@')}" has an unsupported scheme.`,
        'Use `file:./data/fpa.db` or `libsql://<host>`.',
      ),
    );
  }
  return out;
}

/** Numeric limits within their ranges. */
function limitIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const limits: [keyof Settings, number, number][] = [
    ['TEMPLATE_MAX_BYTES', 16, 16 * 1024 * 1024],
    ['ADMS_MAX_COMMANDS_PER_REQUEST', 1, 10_000],
    ['ADMS_MAX_COMMAND_BYTES', 1024, 64 * 1024 * 1024],
    ['ADMS_MAX_REQUEST_BYTES', 1024, 1024 * 1024 * 1024],
    ['ADMS_MAX_PENDING_DEVICES', 0, 100_000],
    ['ADMS_MAX_PENDING_PER_ADDRESS', 0, 100_000],
    ['COMMAND_MAX_RETRIES', 0, 100],
    ['WEBHOOK_MAX_ATTEMPTS', 1, 100],
    ['PORT', 0, 65535],
    // Past 12 h the windows of consecutive days could hold each other's shifts.
    ['ATTENDANCE_SHIFT_SLACK', 0, 12 * 3_600_000],
    ['ATTENDANCE_OVERTIME_MINIMUM', 0, 24 * 3_600_000],
    // 0 would give every webhook request no time at all (each one fails as a timeout).
    ['WEBHOOK_TIMEOUT', 1000, 5 * 60_000],
    ['RETENTION_TEMPLATES_AFTER_DEACTIVATION', 0, 100 * 365 * 86_400_000],
    // Above the allocator's last PIN, every enrollment would fail: the PINs are exhausted (0 starts at 1).
    ['ENROLLEE_PIN_START', 0, MAX_DEVICE_PIN],
    ...RETENTION_DAYS.map((key): [keyof Settings, number, number] => [key, 0, 100 * 365]),
  ];
  for (const [key, min, max] of limits) {
    const v = s[key] as number;
    if (Number.isInteger(v) && v >= min && v <= max) continue;
    const show = SETTINGS_SCHEMA[key].show as ((value: number) => string) | undefined;
    const range = show ? `from ${show(min)} to ${show(max)}` : `an integer from ${min} to ${max}`;
    out.push(issue('fpa.E013', `${key} is ${show ? show(v) : v}; it must be ${range}.`, 'See the configuration table in the README.'));
  }
  return out;
}

/** Retention periods in days: negative would read as "keep everything" without a word. */
const RETENTION_DAYS = [
  'RETENTION_PUNCHES_DAYS',
  'RETENTION_DELIVERIES_DAYS',
  'RETENTION_DEVICE_EVENTS_DAYS',
  'RETENTION_COMMANDS_DAYS',
  'RETENTION_EVENTS_DAYS',
  'RETENTION_DELETION_PROOFS_DAYS',
] as const satisfies readonly (keyof Settings)[];

/** An HS256 secret long enough. */
function jwtSecretIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (s.ADMIN_JWT_SECRET && new TextEncoder().encode(s.ADMIN_JWT_SECRET).length < 32) {
    out.push(issue('fpa.W001', 'ADMIN_JWT_SECRET is shorter than 32 bytes.', 'Use at least 32 random bytes for HS256.'));
  }
  return out;
}

/** The networks webhooks may reach. */
function webhookNetworkIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const entry of s.WEBHOOK_ALLOWED_NETWORKS) {
    const parsed = parseCidr(entry);
    if (!parsed.ok)
      out.push(
        issue(
          'fpa.E019',
          `WEBHOOK_ALLOWED_NETWORKS entry "${entry}" ${parsed.error}.`,
          'List networks as CIDRs, e.g. `10.20.0.0/16,fd12:3456::/48,127.0.0.1/32`.',
        ),
      );
  }
  if (s.WEBHOOK_ALLOW_PRIVATE_NETWORKS) {
    out.push(
      issue(
        'fpa.W002',
        'WEBHOOK_ALLOW_PRIVATE_NETWORKS is on: webhooks may reach every private and loopback address of the network (link-local and cloud metadata addresses stay refused).',
        'Turn it off and list only the receivers’ networks in WEBHOOK_ALLOWED_NETWORKS (CIDRs, e.g. `10.20.0.0/16` or `127.0.0.1/32`).',
      ),
    );
  }
  return out;
}

/**
 * The terminals' allow-list. An entry it cannot read matches no terminal: a typo (`127.0.0.l`,
 * `10.0.0.300`) would lock out every terminal with nothing in the log, so it is an error here.
 * An entry is what the allow-list itself reads (platform/net/ip.ts parseNetwork): an address, or
 * a network whose bits after the prefix are ignored (`10.0.0.1/24` is 10.0.0.0/24, as before).
 */
function terminalAddressIssues(s: Settings): ConfigIssue[] {
  return s.ADMS_ALLOWED_IPS.filter((entry) => parseNetwork(entry) === null).map((entry) =>
    issue(
      'fpa.E022',
      `ADMS_ALLOWED_IPS entry "${entry}" is not an IPv4 or IPv6 address or a network in CIDR form: no terminal could match it.`,
      'List the terminals’ addresses or networks, e.g. `192.168.1.20,10.20.0.0/16,fd12:3456::/48`; unset it to let every address through.',
    ),
  );
}

/** The report fonts, when set, are font files. */
function fontIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const key of ['REPORT_FONT', 'REPORT_FONT_BOLD'] as const) {
    if (s[key] !== '' && !isFontFile(s[key]))
      out.push(
        issue(
          'fpa.E020',
          `${key} "${s[key]}" is not a readable TrueType or OpenType font file.`,
          'Give the path of a .ttf or .otf file, e.g. /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf (Debian: fonts-dejavu-core), or leave it empty.',
        ),
      );
  }
  return out;
}

/** Settings that are valid but weaken a protection: auto-approval, consent, a replica without a file. */
function safetyWarnings(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (s.ADMS_AUTO_APPROVE) out.push(issue('fpa.W003', 'ADMS_AUTO_APPROVE is on.', 'Approve terminals by hand in production.'));
  if (!s.ENROLLMENT_REQUIRE_CONSENT)
    out.push(issue('fpa.W004', 'ENROLLMENT_REQUIRE_CONSENT is off: templates are stored without recorded consent.', 'Biometric laws usually require consent.'));
  if (s.DATABASE_SYNC_URL && !s.DATABASE_URL.startsWith('file:')) {
    out.push(issue('fpa.W005', 'DATABASE_SYNC_URL is set but DATABASE_URL is not a file: URL.', 'An embedded replica needs a local file.'));
  }
  // Behind a proxy, links cannot follow the request's Host (anyone may send one): they need the public address.
  if (s.CONSOLE_TRUST_PROXY && !s.CONSOLE_URL) {
    out.push(
      issue(
        'fpa.W011',
        'CONSOLE_TRUST_PROXY is on without CONSOLE_URL: invite and reset links name the address this server listens on, not the one people reach through the proxy.',
        'Set CONSOLE_URL to the console’s public address, e.g. https://attendance.example.com/console/.',
      ),
    );
  }
  return out;
}

/** Terminals identified by serial number only. */
function serialTrustIssues(s: Settings): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  if (s.ADMS_TRUST === 'serial') {
    // ADMS terminals have no credential of their own: `serial` keeps the first releases' behaviour.
    out.push(
      issue(
        'fpa.W006',
        "ADMS_TRUST is `serial`: terminals without a communication key are identified by serial number only; anyone who can reach the terminal endpoints and knows an approved serial (it is on the terminal's label) reads that terminal's commands (user records, cards and templates) and posts data as it.",
        'Use ADMS_TRUST=address (the default) or key, issue each terminal a communication key (POST devices/{sn}/keys/), and restrict ADMS_ALLOWED_IPS to the terminals’ network.',
      ),
    );
  }
  return out;
}

/** Whether a file starts as a TrueType, OpenType or TrueType collection font does. */
function isFontFile(path: string): boolean {
  try {
    const fd = openSync(path, 'r');
    const head = Buffer.alloc(4);
    try {
      readSync(fd, head, 0, 4, 0);
    } finally {
      closeSync(fd);
    }
    return head.equals(Buffer.from([0, 1, 0, 0])) || ['OTTO', 'true', 'ttcf'].includes(head.toString('latin1'));
  } catch {
    return false;
  }
}

/** Single sign-on is all or nothing: an issuer and a client id, over HTTPS unless the provider runs on this machine. */
function oidcIssues(s: Settings): ConfigIssue[] {
  if (!s.CONSOLE_OIDC_ISSUER && !s.CONSOLE_OIDC_CLIENT_ID) return [];
  const hint = 'Set CONSOLE_OIDC_ISSUER (the provider’s issuer URL) and CONSOLE_OIDC_CLIENT_ID together, or neither.';
  if (!s.CONSOLE_OIDC_ISSUER || !s.CONSOLE_OIDC_CLIENT_ID) {
    return [issue('fpa.E030', `Only ${s.CONSOLE_OIDC_ISSUER ? 'CONSOLE_OIDC_ISSUER' : 'CONSOLE_OIDC_CLIENT_ID'} is set.`, hint)];
  }
  let url: URL;
  try {
    url = new URL(s.CONSOLE_OIDC_ISSUER);
  } catch {
    return [issue('fpa.E030', `CONSOLE_OIDC_ISSUER "${s.CONSOLE_OIDC_ISSUER}" is not a URL.`, hint)];
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return [issue('fpa.E030', 'CONSOLE_OIDC_ISSUER is not an http(s) URL.', hint)];
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && !local) {
    return [
      issue('fpa.W030', 'CONSOLE_OIDC_ISSUER is a plain http: URL: the provider’s keys and tokens travel unprotected.', 'Use the provider’s https:// issuer.'),
    ];
  }
  return [];
}

export function formatIssues(issues: ConfigIssue[]): string {
  if (issues.length === 0) return 'configuration check: no problems found';
  return issues.map((i) => `${i.code} [${i.severity}] ${i.message}\n    hint: ${i.hint}`).join('\n');
}

export class ConfigurationError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(`configuration has errors:\n${formatIssues(issues.filter((i) => i.severity === 'error'))}`);
    this.name = 'ConfigurationError';
  }
}
