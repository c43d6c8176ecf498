/**
 * The terminal endpoints under ADMS_URL_PREFIX (docs/protocol/adms.md §2, §3): handshake, uploads, command
 * polls and results, heartbeat, and the Security PUSH 3.x registry/push flow. Every terminal
 * request goes through devices.registration.touch, which registers an unknown serial as
 * `pending_approval`. A pending or disabled terminal still gets its options, polls and pings
 * answered, but its data is refused with 403 — before its body is read — so it keeps the data
 * and sends it again later. Its polls get the deletes it owes (and only those), and their
 * results are taken: a removed terminal back as pending drops what it should no longer hold.
 */
import { BoundedMap } from '../../platform/bounded-map';
import { formatLocalWallTime, timeZoneOffsetMinutes } from '../../platform/time/zone';
import {
  type AdmsQuery,
  buildOptionBlock,
  type CommandResult,
  classifyAccessEvent,
  decodeBody,
  isCommandResultBody,
  type LineError,
  multiBioDataSupport,
  namedParameters,
  type ParseResult,
  parseAttlog,
  parseDeviceCmdBody,
  parseInfoParam,
  parseOptionsBody,
  parseRegistryBody,
  parseRtlog,
  parseTransactions,
  type RtlogRecord,
  registryDeclaration,
} from '../../protocol/adms';
import type { CommandService } from '../commands';
import { type DeviceReport, type DeviceRow, type DeviceService, noteOnDevice, speaksSecurityPush, type Trust } from '../devices';
import { logAccessEvents } from './access-log';
import type { ClockSync } from './clock-sync';
import { reportChanges, reportFromInfo, reportFromParameters } from './info-reports';
import type { AttendanceIngest } from './ingest';
import { attendanceErrors, redactedErrors } from './ingest';
import type { CommandRenderer } from './render';
import { AdmsRefusal } from './reply';
import type { TerminalRuntime } from './runtime';
import { push3Config, push3Time } from './security-push';
import { approved, contactOf, PUNCH_TABLES, punchFlags, trustedOnly, withheld } from './trust-gate';
import { refuseUnread } from './unreadable';
import type { TerminalUploads } from './uploads';

/** `ServerVer` of the option block: the push protocol level this server implements. */
export const SERVER_VERSION = '2.4.1';

export interface TerminalRequest {
  method: string;
  /** Endpoint name: `cdata`, `getrequest`, … (lower case, `.aspx` and trailing slashes removed). */
  endpoint: string;
  query: AdmsQuery;
  /** The peer address of the connection, when known. */
  ip: string | null;
  /** Whether this request comes from the approved terminal (identify): decides what it is sent and what is taken. */
  trust: Trust;
  /** Reads the body (once, under the size cap): only after the device is known to be allowed to send it. */
  body(): Promise<Uint8Array>;
}

export interface TerminalReply {
  status?: number;
  body: string;
}

const ok = (body = 'OK'): TerminalReply => ({ body });

export interface EndpointDeps {
  devices: DeviceService;
  commands: CommandService;
  renderer: CommandRenderer;
  uploads: TerminalUploads;
  attendance: AttendanceIngest;
  clock: ClockSync;
}

/** How often a terminal's refused keys are noted in its device log. */
const KEY_REFUSAL_NOTE_MS = 60_000;

export class TerminalEndpoints {
  /** Serial → until when another refused key of it is not noted again. */
  private readonly refusalsNoted = new BoundedMap<string, number>(10_000);
  private readonly devices: DeviceService;
  private readonly commands: CommandService;
  private readonly uploads: TerminalUploads;
  private readonly attendance: AttendanceIngest;

  constructor(
    private readonly ctx: TerminalRuntime,
    private readonly deps: EndpointDeps,
  ) {
    ({ devices: this.devices, commands: this.commands, uploads: this.uploads, attendance: this.attendance } = deps);
  }

  /**
   * Who sends this request (devices/identity.ts): a terminal issued a key is refused without a
   * valid one on every request; otherwise ADMS_TRUST decides. An unknown serial registers here,
   * under its source address (ADMS_MAX_PENDING_PER_ADDRESS).
   */
  async identify(serial: string, presented: string[], ip: string | null): Promise<Trust> {
    const keys = await this.devices.keys.check(serial, presented);
    if (keys === 'invalid') {
      await this.noteRefusedKey(serial, ip);
      throw new AdmsRefusal(403, 'device key missing or wrong');
    }
    // Not seen yet: whether the request counts as the terminal's contact depends on its trust (contactOf).
    const device = await this.devices.registration.touch(serial, { source: ip, seen: false });
    return this.devices.identity.assess(device, keys, ip);
  }

  /**
   * A refused key goes to the device log (at most every KEY_REFUSAL_NOTE_MS per terminal): the
   * diagnostics show it until the terminal is heard from with its key again.
   */
  private async noteRefusedKey(serial: string, ip: string | null): Promise<void> {
    const now = this.ctx.clock.now();
    if ((this.refusalsNoted.get(serial) ?? 0) > now) return;
    this.refusalsNoted.set(serial, now + KEY_REFUSAL_NOTE_MS);
    const device = await this.devices.findBySerial(this.ctx.db.orm, serial);
    if (!device) return;
    const from = ip ? ` from ${ip}` : '';
    await this.ctx.db.write(({ tx }) =>
      noteOnDevice(tx, device.id, 'key_refused', `a request without the terminal's communication key, or with a wrong one, was refused${from}`, { ip }, now),
    );
  }

  async handle(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const get = req.method === 'GET' || req.method === 'HEAD';
    switch (req.endpoint) {
      case 'cdata':
        return get ? this.cdataGet(req, serial) : this.upload(req, serial);
      case 'getrequest':
        return this.poll(req, serial);
      case 'devicecmd':
        return this.commandResults(req, serial);
      case 'ping':
        await this.devices.registration.touch(serial, contactOf(req));
        return ok();
      case 'fdata':
        return this.legacyPhoto(req, serial);
      case 'registry':
        return this.registry(req, serial);
      case 'push':
        return this.push(req, serial);
      case 'rtdata':
        return this.rtdata(req, serial);
      case 'querydata':
        return this.queryAnswer(req, serial);
      default:
        return ok();
    }
  }

  /**
   * `POST querydata?type=tabledata&tablename=user|templatev10…`: a 3.x terminal answering a
   * query of its users or of one user's templates (paginated by packidx; each page is read on
   * its own, as an upload of that table). Other answers are acknowledged.
   */
  private async queryAnswer(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const device = approved(await this.devices.registration.touch(serial, contactOf(req)));
    trustedOnly(req.trust);
    const table = (req.query.tableName ?? '').toLowerCase();
    if ((req.query.type ?? 'tabledata').toLowerCase() === 'tabledata' && (table === 'user' || table === 'templatev10' || table === 'biodata')) {
      await this.uploads.tabledata(device, table, await this.text(device, req));
    }
    return ok();
  }

  private async cdataGet(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const { query } = req;
    if (query.type?.toLowerCase() === 'time') {
      const device = await this.devices.registration.touch(serial, contactOf(req));
      const zone = this.zoneOf(device);
      const now = this.ctx.clock.now();
      return ok(`Time=${formatLocalWallTime(new Date(now), zone).replace(' ', 'T')}${isoOffset(timeZoneOffsetMinutes(zone, new Date(now)))}`);
    }
    if (query.options !== null) return this.handshake(req, serial);
    // RemoteAtt and a GET without options=all: answered harmlessly.
    await this.devices.registration.touch(serial, contactOf(req));
    return ok();
  }

  /** `GET cdata?options=all`: the full option block (a pending terminal gets it too); it started, so a reboot sent to it is done. */
  private async handshake(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const { query } = req;
    // From an unconfirmed address the terminal is answered, but what it says of itself is not taken (the dialect follows it).
    const device = await this.devices.registration.touch(serial, contactOf(req, { ip: req.ip, pushVersion: query.pushver, language: query.language }));
    // The dialect it declared: a 3.x pushver now, or DeviceType=acc / PushVersion=3.x at registry (no pushver keeps what was declared).
    const v3 = speaksSecurityPush(device);
    // 3.x: `OK` alone asks an unregistered terminal to register (docs/protocol/adms.md §3.1).
    if (v3 && !device.registryCode) return ok();
    const offset = this.offsetNow(device);
    await this.sentOffset(device, offset);
    if (!withheld(req.trust)) await this.commands.terminalStarted(device.id);
    const block = this.optionBlock(device, query.pushver, offset, v3);
    return ok(v3 ? `registry=ok\nRegistryCode=${device.registryCode}\n${block}` : block);
  }

  /** Remembers the TimeZone a terminal was told: job `sync-device-clocks` compares it with the zone's. */
  private async sentOffset(device: DeviceRow, offset: number): Promise<void> {
    await this.report(device, { clockOffsetMinutes: offset });
  }

  private optionBlock(device: DeviceRow, pushver: string | null, offset: number, securityPush: boolean): string {
    const { settings } = this.ctx;
    return buildOptionBlock({
      sn: device.serialNumber,
      pushver: pushver ?? undefined,
      securityPush,
      timeZoneMinutes: offset,
      delaySeconds: seconds(settings.ADMS_POLL_DELAY),
      errorDelaySeconds: seconds(settings.ADMS_ERROR_DELAY),
      serverVersion: SERVER_VERSION,
      // The kinds kept (BIOMETRIC_TYPES): a SpeedFace then uploads its faces and palms too.
      multiBioDataSupport: multiBioDataSupport(settings.BIOMETRIC_TYPES),
    });
  }

  /** `GET getrequest`: device facts from `INFO=`, then the next batch of commands (or `OK`). */
  private async poll(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    let device = await this.devices.registration.touch(serial, contactOf(req));
    // Not from the approved terminal: its facts are not taken, and nothing is sent; the commands stay queued.
    // Nor to a HEAD: its answer carries no body, and a command taken by it would be marked sent and never run.
    if (withheld(req.trust) || req.method === 'HEAD') return ok();
    if (req.query.info) device = await this.report(device, reportFromInfo(parseInfoParam(req.query.info)));
    // A terminal that is not approved is sent its deletes only (render.ts).
    return ok((await this.deps.renderer.takeBatch(device)) ?? 'OK');
  }

  /**
   * `POST devicecmd`: results matched by command id. An INFO result updates the device facts
   * only when it answers an open INFO command of this device: a stray or forged result must
   * not change what the server believes (the algorithm version decides how templates are sent).
   */
  private async commandResults(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const device = await this.devices.registration.touch(serial, contactOf(req));
    // A terminal that is not approved answers the deletes it was sent, and nothing else counts;
    // one that owes none is refused before its body is read, like its other data.
    const deletesOnly = device.status !== 'approved';
    if (deletesOnly && !(await this.commands.lookups.owesDeletes(device.id))) approved(device);
    trustedOnly(req.trust);
    return this.applyCommandResults(device, await this.text(device, req), deletesOnly);
  }

  /** Command results, from `devicecmd` or from a `cdata` POST without a table (endpoints.upload). */
  private async applyCommandResults(device: DeviceRow, text: string, deletesOnly: boolean): Promise<TerminalReply> {
    const { results, errors } = parseDeviceCmdBody(text);
    const infoAnswers = deletesOnly ? new Set<string>() : await this.openInfoCommands(device, results);
    await this.commands.applyResults(device.id, results, { deletesOnly });
    await this.attendance.logMalformed(device, 'devicecmd', redactedErrors(errors));
    let current = device;
    for (const r of results) {
      if (infoAnswers.has(r.id) && r.returnCode === 0 && Object.keys(r.fields).length > 0) {
        // Each report returns the updated row, so the next one compares against fresh facts.
        current = await this.report(current, reportFromParameters(r.fields, 'merge'));
      }
    }
    return ok();
  }

  /** Ids among `results` of this device's INFO commands still waiting for their answer. */
  private async openInfoCommands(device: DeviceRow, results: CommandResult[]): Promise<Set<string>> {
    const ids = results.filter((r) => r.cmd.toUpperCase() === 'INFO' && /^\d{1,15}$/.test(r.id)).map((r) => Number(r.id));
    const open = await this.commands.lookups.openOfKind(device.id, 'info', ids);
    return new Set([...open].map(String));
  }

  /** `POST cdata?table=…`: the upload tables. */
  private async upload(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const table = (req.query.table ?? '').toUpperCase();
    const device = await this.devices.registration.touch(serial, contactOf(req));
    if (table === 'OPTIONS') {
      trustedOnly(req.trust);
      // Device parameters are taken from pending terminals too: the administrator sees the
      // model and firmware before approving.
      const text = await this.text(device, req);
      const parameters = parseOptionsBody(text);
      await refuseUnread(this.ctx, device, 'options', text, namedParameters(parameters));
      await this.report(device, reportFromParameters(parameters, 'replace'));
      return ok();
    }
    if (table === '') {
      // A firmware (a U300-C rebrand) posts its command results here, without a table: they
      // close their commands exactly as at devicecmd (a terminal that is not approved only those
      // of the deletes it owes), or the commands are resent and fail.
      const deletesOnly = device.status !== 'approved';
      if (deletesOnly && !(await this.commands.lookups.owesDeletes(device.id))) approved(device);
      trustedOnly(req.trust);
      const text = await this.text(device, req);
      if (isCommandResultBody(text)) return this.applyCommandResults(device, text, deletesOnly);
      return ok();
    }
    approved(device);
    // Punches from an unconfirmed address are kept (flagged); everything else it sends is refused, so it keeps it.
    const flags = punchFlags(req.trust);
    if (!PUNCH_TABLES.has(table) && !(table === 'TABLEDATA' && req.query.tableName?.toLowerCase() === 'transaction')) trustedOnly(req.trust);
    return this.uploadTable(req, device, table, flags);
  }

  /** One table an approved terminal uploads, read and handed on; the answer counts what was taken. */
  private async uploadTable(req: TerminalRequest, device: DeviceRow, table: string, flags: string[]): Promise<TerminalReply> {
    switch (table) {
      case 'ATTLOG': {
        const { records, errors } = await this.readLines(device, req, 'ATTLOG', parseAttlog);
        const result = await this.attendance.ingest(device, 'ATTLOG', records, attendanceErrors(errors), flags);
        return ok(`OK:${result.accepted}`);
      }
      case 'OPERLOG':
        // A `ContentType=tgz` data pack too: it is not text, so it is refused (unreadable.ts).
        return ok(`OK:${await this.uploads.operlog(device, await this.text(device, req))}`);
      case 'BIODATA':
        return ok(`OK:${await this.uploads.biodata(device, await this.text(device, req))}`);
      case 'ATTPHOTO':
        await this.uploads.photo(device, await req.body());
        return ok();
      case 'ERRORLOG':
        await this.uploads.errorlog(device, await this.text(device, req));
        return ok();
      case 'BIOPHOTO':
      case 'IDCARD':
        return ok(`OK:${await this.uploads.photoTable(device, table, await this.text(device, req))}`);
      case 'RTLOG': {
        const { records, errors } = await this.readLines(device, req, 'rtlog', parseRtlog);
        await this.userPunches(device, 'rtlog', records, errors, flags);
        return ok();
      }
      case 'TABLEDATA': {
        const name = (req.query.tableName ?? 'tabledata').replace(/[^A-Za-z0-9_]/g, '');
        if (name.toLowerCase() === 'transaction') {
          // Stored attendance of 3.x firmware: punches, like rtlog (docs/protocol/adms.md §3).
          const { records, errors } = await this.readLines(device, req, 'tabledata/transaction', parseTransactions);
          return ok(`${name}=${await this.userPunches(device, 'tabledata/transaction', records, errors, flags)}`);
        }
        const count = await this.uploads.tabledata(device, name, await this.text(device, req));
        return ok(`${name}=${count}`);
      }
      case 'RTSTATE':
        // Door and alarm states of an access panel: nobody's data.
        return ok();
      default:
        // A table this service has no reader for: acknowledged, unless it holds people's data
        // (or cannot be read), which is refused so the terminal keeps it (uploads.otherTable).
        await this.uploads.otherTable(device, req.query.table ?? table, await this.text(device, req));
        return ok();
    }
  }

  /**
   * 3.x rtlog and `transaction` records: a person's successful verification (its `event` code,
   * protocol/adms/access-events.ts) is a punch. Everything else — denied entries, alarms (duress
   * included), door states, temperature and mask refusals, with or without a real PIN — goes to
   * the device log, never to attendance. Returns how many punches the terminal may count as
   * accepted (new ones and resent duplicates), as before.
   */
  private async userPunches(device: DeviceRow, table: string, records: RtlogRecord[], errors: LineError[], flags: string[]): Promise<number> {
    const punches: RtlogRecord[] = [];
    const others: RtlogRecord[] = [];
    for (const r of records) {
      if (classifyAccessEvent(r.event) === 'verification' && r.pin !== '' && r.pin !== '0') punches.push(r);
      else others.push(r);
    }
    const accepted = (await this.attendance.ingest(device, table, punches, attendanceErrors(errors), flags)).accepted;
    await logAccessEvents(this.ctx, device, table, others);
    return accepted;
  }

  /** Legacy `POST fdata` photo upload: same handling as ATTPHOTO. */
  private async legacyPhoto(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const device = approved(await this.devices.registration.touch(serial, contactOf(req)));
    trustedOnly(req.trust);
    const body = await req.body();
    if (body.byteLength > 0) await this.uploads.photo(device, body);
    return ok();
  }

  /** 3.x `POST registry`: capabilities recorded, a stable RegistryCode answered. */
  private async registry(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    let device = await this.devices.registration.touch(serial, contactOf(req, { ip: req.ip }));
    const params = parseRegistryBody(await this.text(device, req));
    // From an unconfirmed address its declarations are not taken (they decide the dialect and how templates are sent).
    // DeviceType and PushVersion are remembered: they decide the dialect (devices/dialect.ts).
    if (!withheld(req.trust)) device = await this.report(device, { ...reportFromParameters(params, 'replace'), ...registryDeclaration(params) });
    return ok(`RegistryCode=${await this.devices.registration.registryCode(device)}`);
  }

  /** 3.x `POST push`: the configuration block. */
  private async push(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const device = await this.devices.registration.touch(serial, contactOf(req));
    const { settings } = this.ctx;
    const offset = this.offsetNow(device);
    const config = push3Config({
      sessionId: crypto.randomUUID().replace(/-/g, '').slice(0, 16),
      delaySeconds: seconds(settings.ADMS_POLL_DELAY),
      errorDelaySeconds: seconds(settings.ADMS_ERROR_DELAY),
      timeZoneMinutes: offset,
      serverVersion: `fpa ${SERVER_VERSION}`,
      multiBioDataSupport: multiBioDataSupport(settings.BIOMETRIC_TYPES),
    });
    await this.sentOffset(device, offset);
    return ok(config);
  }

  /** 3.x `GET rtdata?type=time`. */
  private async rtdata(req: TerminalRequest, serial: string): Promise<TerminalReply> {
    const device = await this.devices.registration.touch(serial, contactOf(req));
    if (req.query.type?.toLowerCase() !== 'time') return ok();
    return ok(push3Time(this.ctx.clock.now(), this.zoneOf(device), this.offsetNow(device)));
  }

  /** The body as text; read only here, after the handler has checked the device. */
  private async text(device: DeviceRow, req: TerminalRequest): Promise<string> {
    return decodeBody(await req.body(), { language: device.language ?? req.query.language ?? undefined }).text;
  }

  /** An attendance table's lines; a body that is not text, of which no line could be read, is refused (unreadable.ts). */
  private async readLines<T>(device: DeviceRow, req: TerminalRequest, table: string, parse: (text: string) => ParseResult<T>): Promise<ParseResult<T>> {
    const text = await this.text(device, req);
    const result = parse(text);
    await refuseUnread(this.ctx, device, table, text, result.records.length);
    return result;
  }

  /** Records device facts only when they change: INFO rides on polls, the hottest path. */
  private async report(device: DeviceRow, report: DeviceReport): Promise<DeviceRow> {
    return reportChanges(device, report) ? this.devices.reports.recordReport(device, report) : device;
  }

  private zoneOf(device: DeviceRow): string {
    return this.deps.clock.zoneOf(device);
  }

  /** The zone's offset at this instant, so a DST change is picked up at the next handshake. */
  private offsetNow(device: DeviceRow): number {
    return this.deps.clock.offsetNow(device);
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.round(ms / 1000));
}

function isoOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(Math.round(minutes));
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
