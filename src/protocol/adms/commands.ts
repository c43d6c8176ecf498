/**
 * Server→device command text (§5). Layout: keyword, ONE space, then `Key=Value` pairs joined by TAB.
 * Values cannot be escaped in this protocol, so TAB/LF/CR are stripped from them: a stray LF would
 * otherwise inject a second command.
 *
 * Builders throw RangeError for non-integer numeric arguments (a programming error on our side);
 * string content is sanitised, never rejected.
 */

/** IDs the device is known to echo intact: alphanumeric, at most 16 characters (§5.1). */
export function isValidCommandId(id: string): boolean {
  return /^[A-Za-z0-9]{1,16}$/.test(id);
}

/** `C:<id>:<text>`. CR/LF are removed from both parts so one command can never become two lines. */
export function formatCommandLine(id: string, text: string): string {
  return `C:${id.replace(/[\r\n]/g, '')}:${text.replace(/[\r\n]/g, '')}`;
}

export function sanitizeValue(value: string): string {
  return value.replace(/[\t\r\n]/g, '');
}

function int(value: number, what: string): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be an integer, got ${value}`);
  return String(value);
}

const encoder = new TextEncoder();
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Truncate to at most `maxBytes` UTF-8 bytes without splitting a character (or a combining accent). */
export function truncateUtf8(text: string, maxBytes: number): string {
  // Every poll that carries a user renders its name: text that fits, counted in bytes, needs no
  // segmenting (a cheap upper bound first: a UTF-16 unit is at most 3 UTF-8 bytes).
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = encoder.encode(segment).length;
    if (bytes + size > maxBytes) break;
    out += segment;
    bytes += size;
  }
  return out;
}

type FieldValue = string | number;

/** `KEYWORD k=v\tk=v…`; numbers are checked, strings sanitised. */
function command(keyword: string, fields: ReadonlyArray<readonly [string, FieldValue]>): string {
  const pairs = fields.map(([k, v]) => `${k}=${typeof v === 'number' ? int(v, k) : sanitizeValue(v)}`);
  return pairs.length === 0 ? keyword : `${keyword} ${pairs.join('\t')}`;
}

/** Name limit of the classic user record; models differ, so it can be overridden. */
export const DEFAULT_MAX_NAME_BYTES = 24;

export interface UserInfoInput {
  pin: string;
  name: string;
  /** 0 user, 2 enroller, 6 admin, 14 super admin. */
  privilege?: number;
  password?: string;
  /** Card number as the device should store it (decimal). */
  card?: string;
  group?: number;
  /** Access-window string; the device default lets the user in at any time. */
  timeZones?: string;
  /** Verification mode; 0 = any, -1 = use the group's. */
  verify?: number;
  viceCard?: string;
  maxNameBytes?: number;
}

export function userInfoCommand(u: UserInfoInput): string {
  const name = truncateUtf8(sanitizeValue(u.name), u.maxNameBytes ?? DEFAULT_MAX_NAME_BYTES);
  return command('DATA UPDATE USERINFO', [
    ['PIN', u.pin],
    ['Name', name],
    ['Pri', u.privilege ?? 0],
    ['Passwd', u.password ?? ''],
    ['Card', u.card ?? ''],
    ['Grp', u.group ?? 1],
    ['TZ', u.timeZones ?? '0000000100000000'],
    ['Verify', u.verify ?? 0],
    ['ViceCard', u.viceCard ?? ''],
  ]);
}

export function deleteUserCommand(pin: string): string {
  return command('DATA DELETE USERINFO', [['PIN', pin]]);
}

export interface FingerTemplateInput {
  pin: string;
  fingerIndex: number;
  /** Base64 template; only for fingerprint algorithm ≤ 10 (newer ones go through BIODATA). */
  template: string;
  /** 0 invalid, 1 normal, 3 duress. */
  valid?: number;
}

/** `Size` is the length of the base64 text, not the decoded byte count (§4.2). */
export function fingerTemplateCommand(t: FingerTemplateInput): string {
  const template = sanitizeValue(t.template);
  return command('DATA UPDATE FINGERTMP', [
    ['PIN', t.pin],
    ['FID', t.fingerIndex],
    ['Size', template.length],
    ['Valid', t.valid ?? 1],
    ['TMP', template],
  ]);
}

export interface BiodataInput {
  pin: string;
  no: number;
  index?: number;
  valid?: number;
  duress?: number;
  /** Defaults to 1 (fingerprint). */
  type?: number;
  majorVer: string | number;
  minorVer: string | number;
  format?: number;
  template: string;
}

export function biodataCommand(b: BiodataInput): string {
  return command('DATA UPDATE BIODATA', [
    ['Pin', b.pin],
    ['No', b.no],
    ['Index', b.index ?? 0],
    ['Valid', b.valid ?? 1],
    ['Duress', b.duress ?? 0],
    ['Type', b.type ?? 1],
    ['MajorVer', String(b.majorVer)],
    ['MinorVer', String(b.minorVer)],
    ['Format', b.format ?? 0],
    ['Tmp', b.template],
  ]);
}

/** Without a finger index every finger of the user is deleted. */
export function deleteFingerCommand(pin: string, fingerIndex?: number): string {
  return command(
    'DATA DELETE FINGERTMP',
    fingerIndex === undefined
      ? [['PIN', pin]]
      : [
          ['PIN', pin],
          ['FID', fingerIndex],
        ],
  );
}

/**
 * `Pin=<pin>[\tType=<t>[\tNo=<n>]]`. `No` is only meaningful with a Type; passing it alone would
 * silently widen the delete to every template of the user, so that is refused.
 */
export function deleteBiodataCommand(pin: string, type?: number, no?: number): string {
  if (type === undefined && no !== undefined) throw new RangeError('deleteBiodataCommand: `no` requires `type`');
  const fields: [string, FieldValue][] = [['Pin', pin]];
  if (type !== undefined) fields.push(['Type', type]);
  if (no !== undefined) fields.push(['No', no]);
  return command('DATA DELETE BIODATA', fields);
}

export interface EnrollOptions {
  retry?: number;
  /** 1 = replace an existing template for that finger; with 0 the device answers 2 instead. */
  overwrite?: 0 | 1;
}

/** On-device enrollment of one finger; the template arrives later as an FP/BIODATA upload (§5.5). */
export function enrollFingerCommand(pin: string, fingerIndex: number, opts: EnrollOptions = {}): string {
  return command('ENROLL_FP', [
    ['PIN', pin],
    ['FID', fingerIndex],
    ['RETRY', opts.retry ?? 3],
    ['OVERWRITE', opts.overwrite ?? 1],
  ]);
}

export interface EnrollBioOptions extends EnrollOptions {
  /** Body part (finger 0–9, palm 0/1). Sent as `NO=` only when given; [ATT] 2.x omits it, 3.x has it. */
  no?: number;
  cardNo?: string;
}

/** `ENROLL_BIO TYPE=\tPIN=[\tNO=]\tCardNo=\tRETRY=\tOVERWRITE=` (TYPE from the BIODATA type list). */
export function enrollBioCommand(pin: string, type: number, opts: EnrollBioOptions = {}): string {
  const fields: [string, FieldValue][] = [
    ['TYPE', type],
    ['PIN', pin],
  ];
  if (opts.no !== undefined) fields.push(['NO', opts.no]);
  fields.push(['CardNo', opts.cardNo ?? ''], ['RETRY', opts.retry ?? 3], ['OVERWRITE', opts.overwrite ?? 1]);
  return command('ENROLL_BIO', fields);
}

/** Re-handshake and upload anything newer than the stamps (also used after a DST change, §7). */
export function checkCommand(): string {
  return 'CHECK';
}

export function infoCommand(): string {
  return 'INFO';
}

/** Must be the last command of a batch: anything after it is lost. */
export function rebootCommand(): string {
  return 'REBOOT';
}

export function clearLogCommand(): string {
  return 'CLEAR LOG';
}

/** One key per command in 2.x (`SET OPTION`, singular). */
export function setOptionCommand(key: string, value: string): string {
  return `SET OPTION ${sanitizeValue(key)}=${sanitizeValue(value)}`;
}

/** Ask the device to re-upload a time range; the times are required (without them: −1). */
export function queryAttlogCommand(startTime: string, endTime: string): string {
  return command('DATA QUERY ATTLOG', [
    ['StartTime', startTime],
    ['EndTime', endTime],
  ]);
}

/** Deletes every user, template and record on the terminal (§5.2); confirm before sending. */
export function clearDataCommand(): string {
  return 'CLEAR DATA';
}

/** The terminal answers with `USER` lines in an OPERLOG upload (§5.2); without a PIN: every user. */
export function queryUsersCommand(pin?: string): string {
  return pin === undefined ? 'DATA QUERY USERINFO' : command('DATA QUERY USERINFO', [['PIN', pin]]);
}

/** The terminal re-uploads the fingerprint templates of a user (walk-up rules then apply). */
export function queryFingerTemplatesCommand(pin: string): string {
  return command('DATA QUERY FINGERTMP', [['PIN', pin]]);
}

/** The same from a BIODATA terminal: the templates of one type come back as BIODATA uploads (§5.2). */
export function queryBiodataCommand(type: number, pin: string): string {
  return command('DATA QUERY BIODATA', [
    ['Type', String(type)],
    ['PIN', pin],
  ]);
}
