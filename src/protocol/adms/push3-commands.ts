/**
 * Server→device commands in the Security PUSH 3.x dialect (§3.2): lower-case table names,
 * `Pin`/`Privilege`/`Password` spellings, `SET OPTIONS` with a comma list, queries by table name,
 * `ENROLL_BIO` with lower-case keys. Layout as in 2.x: keyword, one space, TAB-joined pairs.
 */
import { sanitizeValue, truncateUtf8 } from './commands';

const pairs = (fields: ReadonlyArray<readonly [string, string | number]>) =>
  fields.map(([k, v]) => `${k}=${typeof v === 'number' ? String(Math.trunc(v)) : sanitizeValue(v)}`).join('\t');

export function push3UserCommand(u: { pin: string; name: string; card?: string; privilege?: number; password?: string; maxNameBytes?: number }): string {
  const name = truncateUtf8(sanitizeValue(u.name), u.maxNameBytes ?? 24);
  return `DATA UPDATE user ${pairs([
    ['CardNo', u.card ?? ''],
    ['Pin', u.pin],
    ['Password', u.password ?? ''],
    ['Group', 0],
    ['StartTime', 0],
    ['EndTime', 0],
    ['Name', name],
    ['Privilege', u.privilege ?? 0],
  ])}`;
}

export function push3DeleteUserCommand(pin: string): string {
  return `DATA DELETE user ${pairs([['Pin', pin]])}`;
}

/** Fingerprint templates of 3.x access-control terminals (`templatev10`); `fingerid` + 16 marks duress. */
export function push3TemplateCommand(t: { pin: string; fingerIndex: number; template: string; duress?: boolean }): string {
  const template = sanitizeValue(t.template);
  return `DATA UPDATE templatev10 ${pairs([
    ['size', template.length],
    ['uid', 0],
    ['pin', t.pin],
    ['fingerid', t.fingerIndex + (t.duress ? 16 : 0)],
    ['valid', 1],
    ['template', template],
  ])}`;
}

export function push3DeleteTemplateCommand(pin: string, fingerIndex: number): string {
  return `DATA DELETE templatev10 ${pairs([
    ['pin', pin],
    ['fingerid', fingerIndex],
  ])}`;
}

/**
 * Deletes a unified (BIODATA) template: a face, a palm, a finger vein, or a fingerprint a terminal
 * keeps as BIODATA (above v10, or declared). Spelled as ZKTeco's own access-control push demo
 * (3.x) deletes them: lower-case table name, keys `Type`, `pin`, `no`. That demo still writes them
 * as `DATA UPDATE BIODATA Pin=…` with the 2.x keys (§4.3, `biodataCommand`), and so does the service.
 */
export function push3DeleteBiodataCommand(pin: string, type: number, no: number): string {
  return `DATA DELETE biodata ${pairs([
    ['Type', type],
    ['pin', pin],
    ['no', no],
  ])}`;
}

/** Answers arrive at `querydata` (§3.1, 6). */
export function push3QueryUsersCommand(): string {
  return 'DATA QUERY tablename=user,fielddesc=*,filter=*';
}

/** One user's fingerprint templates; the answer arrives at `querydata` as `templatev10` records. */
export function push3QueryTemplatesCommand(pin: string): string {
  return `DATA QUERY tablename=templatev10,fielddesc=*,filter=pin=${sanitizeFilterValue(pin)}`;
}

/** `ENROLL_BIO type=\tno=\tpin=\tcardno=\tretry=\toverwrite=`; `card`: the user's card (decimal), empty for none. */
export function push3EnrollCommand(pin: string, type: number, no: number, card = ''): string {
  return `ENROLL_BIO ${pairs([
    ['type', type],
    ['no', no],
    ['pin', pin],
    ['cardno', card],
    ['retry', 3],
    ['overwrite', 1],
  ])}`;
}

/** Sets the clock (§3.1, 7): the value is the device's own encoding (`encodePush3DateTime`). */
export function push3SetTimeCommand(encoded: number): string {
  return `SET OPTIONS DateTime=${Math.trunc(encoded)}`;
}

/** A filter value: no separator of the query (comma, tab, line break) can reach the terminal. */
function sanitizeFilterValue(value: string): string {
  return value.replace(/[,\t\r\n]/g, '');
}
