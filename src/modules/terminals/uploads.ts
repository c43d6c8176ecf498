/**
 * Upload tables other than attendance: OPERLOG (OPLOG, USER, FP, BIODATA, FACE, FVEIN,
 * USERPIC, BIOPHOTO…), BIODATA, ATTPHOTO, ERRORLOG and the 3.x `tabledata` tables. Templates
 * go to walk-up enrollment (a duress finger stays one; a template the terminal marks invalid,
 * `Valid=0`, is not stored); operation logs and device errors become device events; the rest
 * is acknowledged. Each returns the number of records processed, for `OK:<n>`: a line that
 * cannot be read is logged (`malformed_line`) and not counted, and a body that is not text is
 * refused (unreadable.ts).
 */

import {
  type BiodataRecord,
  biometricTypeOf,
  type ParseResult,
  parseAttPhoto,
  parseBiodata,
  parseIntStrict,
  parseOperlog,
  parseOperlogUpload,
  parsePush3Users,
  parseTabFields,
  parseTabledata,
  parseTemplatev10,
  splitKeyword,
  splitRecords,
} from '../../protocol/adms';
import { type DeviceRow, type DeviceService, noteOnDevice, type ReportedUser } from '../devices';
import type { WalkUpEnrollment } from '../enrollment';
import { type AttendanceIngest, redactedErrors, withholdField, withholdSecrets } from './ingest';
import { AdmsRefusal } from './reply';
import type { TerminalRuntime } from './runtime';
import { refuseUnread } from './unreadable';
import { heldBiometricOf, ignoredNote, invalidNote, type Note, newTally, oplogNote, PHOTO_TABLES, photoOf, sizeNote, type Tally } from './upload-notes';

/** FP uploads carry no version; a terminal that never said otherwise runs ZKFinger 10. */
const DEFAULT_FP_ALGORITHM = '10';
/** `Valid` of a template the terminal itself marks unusable; FP `Valid=3` marks a duress finger. */
const INVALID = 0;
const FP_DURESS = 3;
/** Events logged per request at most, so one chatty upload cannot flood the event table. */
const MAX_EVENTS = 100;
/** 3.x tables whose 2.x twins (BIOPHOTO, USERPIC, ATTPHOTO, IDCARD) are acknowledged without being kept. */
const NOT_KEPT_TABLES = new Set(['biophoto', 'userpic', 'attphoto', 'identitycard']);

/** Keys of a person's own data (a template, a photo, a name, a card, a password), as opposed to access settings. */
const PERSONAL_KEY = /^(tmp|template\w*|fp_template\w*|content|photo\w*|name|card|cardno|password|passwd)$/;

/** The fields of a line, `keyword k=v\tk=v…` or bare `k=v\tk=v…` (rtlog style). */
function lineFields(line: string): Record<string, string> {
  const { keyword, rest } = splitKeyword(line);
  return parseTabFields(keyword.includes('=') ? line : rest).fields;
}

/**
 * A record of a person's data: a PIN with a template, photo, name, card or password. Access
 * settings that only name a PIN (`firstcard`, `userauthorize`: PIN, door, time zone) are not:
 * the terminal's own configuration, which this service never manages.
 */
function carriesPersonalData(fields: Record<string, string>): boolean {
  const entries = Object.entries(fields).map(([key, value]) => [key.toLowerCase(), value.trim()] as const);
  const pin = entries.some(([key, value]) => key === 'pin' && value !== '' && value !== '0');
  return pin && entries.some(([key, value]) => PERSONAL_KEY.test(key) && value !== '');
}

export class TerminalUploads {
  constructor(
    private readonly ctx: TerminalRuntime,
    private readonly devices: DeviceService,
    private readonly lines: AttendanceIngest,
    private readonly walkUp: WalkUpEnrollment,
  ) {}

  async operlog(device: DeviceRow, text: string): Promise<number> {
    const records = await this.readLines(device, 'OPERLOG', text, parseOperlogUpload);
    const tally = newTally();
    const { notes } = tally;
    let current = device;
    const users: ReportedUser[] = [];
    for (const r of records) {
      switch (r.kind) {
        case 'USER':
          // The password goes to be sealed (devices/user-passwords.ts): never into a log.
          users.push({ pin: r.pin, name: r.name, card: r.cardNumber || null, privilege: r.privilege, password: r.password });
          break;
        case 'FP':
          if (!r.sizeMatches) notes.push(sizeNote(r.pin, r.fingerIndex, r.size, r.template.length));
          if (r.valid === INVALID) {
            notes.push(invalidNote('FP', r.pin, r.fingerIndex));
            break;
          }
          await this.walkUp.accept(current, {
            pin: r.pin,
            fingerIndex: r.fingerIndex,
            template: r.template,
            algorithmVersion: current.algorithmVersion ?? DEFAULT_FP_ALGORITHM,
            duress: r.valid === FP_DURESS,
            origin: 'FP',
          });
          break;
        case 'BIODATA':
          current = await this.biodataRecord(current, r, tally);
          break;
        case 'OPLOG':
          notes.push(oplogNote(r));
          break;
        default: {
          // FACE, FVEIN, USERPIC, BIOPHOTO, IDCARD: acknowledged, not kept (a line of no kind is
          // malformed: parseOperlogUpload). The biometrics among them (photos of a face included)
          // are noted on the terminal's user, so that a withdrawal of consent deletes them there
          // too (enrollment/fan-out.ts `clearWhatWasNotStored`).
          const held = heldBiometricOf(r);
          if (held) tally.unkept.push(held);
          break;
        }
      }
    }
    // After the templates: a user enrolled at the terminal menu arrives as USER then FP in one
    // batch, and the template decides whose the user is (enrollment/walk-up.ts).
    await this.users(device, users);
    await this.closeTally(device, tally);
    return records.length;
  }

  async biodata(device: DeviceRow, text: string): Promise<number> {
    const records = await this.readLines(device, 'BIODATA', text, parseBiodata);
    const tally = newTally();
    let current = device;
    for (const r of records) current = await this.biodataRecord(current, r, tally);
    await this.closeTally(device, tally);
    return records.length;
  }

  /**
   * 3.x `tabledata` other than `transaction` (attendance, endpoints.ts). A table of people's data
   * is kept by the rules of its 2.x twin, or refused so the terminal keeps it and sends it again;
   * it is never acknowledged and lost:
   * - `user` → the terminal's users (as USER); `templatev10` and `biodata` → walk-up enrollment
   *   (as FP and BIODATA, with the same consent, scope and station rules);
   * - photos and identity cards (`biophoto`, `userpic`, `ATTPHOTO`, `identitycard`): acknowledged
   *   without being kept, as their 2.x twins are (this service keeps no photos or ID cards);
   * - another table with a person's data (a PIN with a template, photo, name, card or password):
   *   refused (422);
   * - another table (access settings such as `firstcard`, `userauthorize`, `DeviceAuthorize`):
   *   counted and acknowledged with a device event.
   * Those last three are acknowledged without being read, so any body of theirs that is not
   * text is refused (unreadable.ts).
   */
  async tabledata(device: DeviceRow, tableName: string, text: string): Promise<number> {
    const table = tableName.toLowerCase();
    if (table === 'templatev10') return this.templatev10(device, text);
    if (table === 'user') return this.push3Users(device, `tabledata/${tableName}`, text);
    if (table === 'biodata') return this.biodata(device, text);
    await refuseUnread(this.ctx, device, `tabledata/${tableName}`, text, 0);
    const { records, errors } = parseTabledata(text);
    await this.lines.logMalformed(device, `tabledata/${tableName}`, redactedErrors(errors));
    if (NOT_KEPT_TABLES.has(table)) {
      // A 3.x face photo or user photo is a face image the terminal holds: noted on its user, as
      // 2.x BIOPHOTO and USERPIC.
      const photo = PHOTO_TABLES[table];
      if (photo)
        await this.walkUp.heldNotKept(
          device,
          records.flatMap((r) => photoOf(r.fields, photo)),
        );
      await this.log(device, [
        {
          kind: 'tabledata_not_kept',
          message: `tabledata ${tableName}: ${records.length} records acknowledged; this service keeps no photos or identity cards`,
          details: { table: tableName, records: records.length },
        },
      ]);
      return records.length;
    }
    const people = records.filter((r) => carriesPersonalData(r.fields)).length;
    if (people > 0) {
      await this.log(device, [
        {
          kind: 'tabledata_refused',
          message: `tabledata ${tableName}: ${people} records of people in a table this service does not read; refused, so the terminal keeps them`,
          details: { table: tableName, records: records.length, people },
        },
      ]);
      throw new AdmsRefusal(422, `table ${tableName} is not kept by this server`);
    }
    await this.log(device, [
      {
        kind: 'tabledata_ignored',
        message: `tabledata ${tableName}: ${records.length} records acknowledged without being read`,
        details: { table: tableName, records: records.length },
      },
    ]);
    return records.length;
  }

  /**
   * A `cdata` table this service has no reader for (not ATTLOG, OPERLOG, BIODATA, rtlog,
   * tabledata…). Lines of a person's data, or a body that is not text (a compressed pack), are
   * refused (422) so the terminal keeps them and the device log says why; anything else is
   * acknowledged with a device event.
   */
  async otherTable(device: DeviceRow, tableName: string, text: string): Promise<void> {
    const lines = splitRecords(text);
    if (lines.length === 0) return;
    // A NUL or an undecodable byte: not a text table, so nothing can say it holds no one's data.
    await refuseUnread(this.ctx, device, tableName, text, 0);
    const people = lines.filter((l) => carriesPersonalData(lineFields(l))).length;
    if (people > 0) {
      await this.log(device, [
        {
          kind: 'upload_refused',
          message: `table ${tableName}: ${people} records of people in a table this service does not read; refused, so the terminal keeps them`,
          details: { table: tableName, lines: lines.length, people, unreadable: false },
        },
      ]);
      throw new AdmsRefusal(422, `table ${tableName} is not kept by this server`);
    }
    await this.log(device, [
      {
        kind: 'upload_ignored',
        message: `table ${tableName}: ${lines.length} lines acknowledged without being read`,
        details: { table: tableName, lines: lines.length },
      },
    ]);
  }

  /**
   * `table=BIOPHOTO` (face photos in a table of their own, ADMS.md §2.8, where a SpeedFace-V5L
   * sends them inside OPERLOG) and `table=IDCARD`: acknowledged without being kept, like those
   * records inside OPERLOG, and like them a face photo is noted on the terminal's user, so that a
   * withdrawal of consent deletes it there (enrollment/fan-out.ts `clearWhatWasNotStored`).
   */
  async photoTable(device: DeviceRow, table: string, text: string): Promise<number> {
    const records = await this.readLines(device, table, text, parseOperlogUpload);
    await this.walkUp.heldNotKept(
      device,
      records.flatMap((r) => {
        const held = r.kind === 'OPLOG' || r.kind === 'USER' || r.kind === 'FP' || r.kind === 'BIODATA' ? null : heldBiometricOf(r);
        return held ? [held] : [];
      }),
    );
    return records.length;
  }

  /** 3.x `user` records: uploaded as `tabledata`, or the answer to a user query (`querydata`). */
  private async push3Users(device: DeviceRow, origin: string, text: string): Promise<number> {
    const records = await this.readLines(device, origin, text, parsePush3Users);
    await this.users(
      device,
      records.map((r) => ({ pin: r.pin, name: r.name, card: r.cardNumber || null, privilege: r.privilege, password: r.password })),
    );
    return records.length;
  }

  /** Users the terminal says it holds, with their cards: enrollment/walk-up.ts `usersReported` decides whose they are. */
  private async users(device: DeviceRow, users: ReportedUser[]): Promise<void> {
    if (users.length === 0) return;
    await this.ctx.db.write((w) => this.walkUp.usersReported(w, device, users));
  }

  private async templatev10(device: DeviceRow, text: string): Promise<number> {
    const records = await this.readLines(device, 'tabledata/templatev10', text, parseTemplatev10);
    const notes: Note[] = [];
    for (const r of records) {
      if (r.valid === INVALID) {
        notes.push(invalidNote('templatev10', r.pin, r.fingerIndex));
        continue;
      }
      await this.walkUp.accept(device, {
        pin: r.pin,
        fingerIndex: r.fingerIndex,
        template: r.template,
        algorithmVersion: DEFAULT_FP_ALGORITHM,
        duress: r.duress,
        origin: 'templatev10',
      });
    }
    await this.log(device, notes);
    return records.length;
  }

  /**
   * Attendance photos are acknowledged, not kept (no photo store in this service). The body is
   * read as bytes; a header `size` that disagrees with the bytes after the NUL is logged.
   */
  async photo(device: DeviceRow, bytes: Uint8Array): Promise<void> {
    const photo = parseAttPhoto(bytes);
    if (!photo) {
      await this.log(device, [{ kind: 'malformed_photo', message: 'ATTPHOTO without the NUL between header and image', details: { bytes: bytes.byteLength } }]);
      return;
    }
    const declared = parseIntStrict(photo.headers.size ?? photo.headers.Size);
    if (declared !== null && declared !== photo.image.byteLength) {
      await this.log(device, [
        {
          kind: 'photo_size_mismatch',
          message: `ATTPHOTO ${photo.headers.PIN ?? ''} declares ${declared} bytes, ${photo.image.byteLength} arrived`,
          details: { file: photo.headers.PIN ?? null, declared, received: photo.image.byteLength },
        },
      ]);
    }
  }

  /**
   * `table=ERRORLOG`: each line becomes a `device_error` event. Any line is taken, so a body that
   * is not text is refused unless a line of it is an error (has its `ErrCode`).
   */
  async errorlog(device: DeviceRow, text: string): Promise<number> {
    const { records, errors } = parseOperlog(text);
    const fieldsOf = (r: (typeof records)[number]) => ('fields' in r ? r.fields : {});
    await refuseUnread(this.ctx, device, 'ERRORLOG', text, records.filter((r) => fieldsOf(r).ErrCode !== undefined).length);
    await this.lines.logMalformed(device, 'ERRORLOG', redactedErrors(errors));
    const notes = records.map((r) => {
      const fields = fieldsOf(r);
      const message = `terminal error ${fields.ErrCode ?? '?'}: ${fields.ErrMsg ?? ''}`.trim();
      // A template, photo or user line in this table is logged without its payload or secrets.
      const details = Object.fromEntries(Object.entries(fields).map(([k, v]) => [withholdSecrets(k), withholdField(k, v)]));
      return { kind: 'device_error', message: withholdSecrets(message), details };
    });
    await this.log(device, notes);
    return records.length;
  }

  private async biodataRecord(device: DeviceRow, r: BiodataRecord, tally: Tally): Promise<DeviceRow> {
    const { notes } = tally;
    const type = biometricTypeOf(r.type);
    if (type === null || !this.ctx.settings.BIOMETRIC_TYPES.includes(type)) {
      tally.ignoredTypes.set(r.type, (tally.ignoredTypes.get(r.type) ?? 0) + 1);
      if (r.valid !== INVALID) tally.unkept.push({ pin: r.pin, type: type ?? `biodata_type_${r.type}`, index: r.no });
      return device;
    }
    if (r.valid === INVALID) {
      notes.push(invalidNote('BIODATA', r.pin, r.no));
      return device;
    }
    if (type !== 'fingerprint') {
      // A face, palm or vein: its version is the record's own (there is no default to fall back on).
      const version = r.minorVer.trim() === '' ? r.majorVer.trim() : `${r.majorVer.trim()}.${r.minorVer.trim()}`;
      if (r.majorVer.trim() === '') {
        notes.push({ kind: 'template_invalid', message: `BIODATA ${type} of PIN ${r.pin} has no MajorVer and was not stored`, details: { pin: r.pin, type } });
        return device;
      }
      await this.walkUp.accept(device, {
        pin: r.pin,
        type,
        fingerIndex: r.no,
        slot: r.index,
        template: r.template,
        algorithmVersion: version,
        duress: false,
        origin: 'BIODATA',
      });
      return device;
    }
    // A terminal that uploads fingerprint BIODATA takes templates back the same way.
    const current = device.speaksBiodata ? device : await this.devices.reports.recordReport(device, { speaksBiodata: true });
    const major = r.majorVer.trim();
    const minor = r.minorVer.trim();
    const algorithmVersion = major === '' ? (current.algorithmVersion ?? DEFAULT_FP_ALGORITHM) : minor === '' ? major : `${major}.${minor}`;
    await this.walkUp.accept(current, { pin: r.pin, fingerIndex: r.no, template: r.template, algorithmVersion, duress: r.duress === 1, origin: 'BIODATA' });
    return current;
  }

  /** What an upload left to note: the kinds it ignored (a device event), the biometrics held but not kept. */
  private async closeTally(device: DeviceRow, tally: Tally): Promise<void> {
    if (tally.ignoredTypes.size > 0) tally.notes.push(ignoredNote(tally.ignoredTypes));
    await this.walkUp.heldNotKept(device, tally.unkept);
    await this.log(device, tally.notes);
  }

  /** A table read line by line: refused when not text and nothing read (unreadable.ts); its bad lines logged, without their text. */
  private async readLines<T>(device: DeviceRow, table: string, text: string, parse: (text: string) => ParseResult<T>): Promise<T[]> {
    const { records, errors } = parse(text);
    await refuseUnread(this.ctx, device, table, text, records.length);
    await this.lines.logMalformed(device, table, redactedErrors(errors));
    return records;
  }

  private async log(device: DeviceRow, notes: Note[]): Promise<void> {
    if (notes.length === 0) return;
    const now = this.ctx.clock.now();
    await this.ctx.db.write(async ({ tx }) => {
      for (const n of notes.slice(0, MAX_EVENTS)) await noteOnDevice(tx, device.id, n.kind, n.message, n.details, now);
    });
  }
}
