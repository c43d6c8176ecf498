/**
 * A simulated ZKTeco-style terminal speaking the ADMS push protocol (2.x) over real HTTP, as a
 * device does: handshake, parameters post, polls (with INFO on the first one), attendance
 * uploads that are kept and resent until answered `OK`, command execution with results, and
 * template uploads (walk-up enrollment and after ENROLL_FP). It keeps an in-memory user and
 * template table, so tests can check what a real terminal would hold.
 *
 * It can play the terminals of a real rollout: one that already holds users (`existingUsers`,
 * made at its menu), one that fills up (`capacity`: writes past it answer −1001), one that goes
 * away (run.ts `runFor`'s `awayAfterFirstPollMs`). It answers `DATA QUERY USERINFO`/`FINGERTMP`/`BIODATA`
 * with OPERLOG/BIODATA uploads, and `CLEAR DATA` by emptying its tables.
 *
 * Like a real terminal it keeps every attendance record in its log (`attlog`), reports their
 * number (`TransactionCount`: options, `INFO=`, INFO replies; INFO again whenever it changes) and
 * answers `DATA QUERY ATTLOG StartTime=… EndTime=…` by re-uploading the records of that range.
 * It can lose records on the way (`holdUnsent`: kept in its log, never sent, as a firmware that
 * moved its stamp past them).
 *
 * Used by the end-to-end tests, by `bun run fpa:simulate-device`, and by the crash test and
 * benchmark. Templates are synthetic: random bytes with the ZKFinger v10 marker `SS21` at
 * bytes 2–5, never real biometrics.
 */

import { formatLocalWallTime } from '../platform/time/zone';
import { formatAttlogLine, formatDeviceCmdResult, formatOptionsBody, isSecurityPush, parseTabFields, splitKeyword } from '../protocol/adms';

export interface PunchRecord {
  pin: string;
  /** When the punch happened (default now); written as the terminal's local wall time. */
  at?: Date;
  /** A wall time exactly as the terminal would send it (overrides `at`). */
  localTime?: string;
  state?: number;
  verifyType?: number;
  workCode?: string;
}

export interface StoredUser {
  pin: string;
  name: string;
  fields: Record<string, string>;
}

export interface StoredTemplate {
  pin: string;
  fingerIndex: number;
  template: string;
  /** How it arrived: `FINGERTMP`, `BIODATA`, or `local` (enrolled on this terminal). */
  via: 'FINGERTMP' | 'BIODATA' | 'local';
  /** A duress finger (FINGERTMP `Valid=3`, BIODATA `Duress=1`). */
  duress: boolean;
}

/** How a terminal marks an uploaded template: a duress finger, or one it holds as invalid (`Valid=0`). */
export interface TemplateMarks {
  duress?: boolean;
  invalid?: boolean;
}

/** A face, palm or finger-vein template a SpeedFace-class terminal holds (BIODATA). */
export interface StoredBiodata {
  pin: string;
  /** BIODATA `Type`: 2 near-infrared face, 7 finger vein, 8 palm, 9 visible-light face. */
  type: number;
  no: number;
  index: number;
  majorVer: string;
  minorVer: string;
  template: string;
  via: 'BIODATA' | 'local';
}

/** Kinds a SpeedFace-class terminal may have besides fingers, and the BIODATA type of each. */
export const SIMULATED_KINDS = { face: 2, finger_vein: 7, palm: 8, visible_face: 9 } as const;
export type SimulatedKind = keyof typeof SIMULATED_KINDS;

/** Templates one capture of each kind produces (a palm comes as five, §4.3). */
const PARTS_PER_CAPTURE: Readonly<Record<SimulatedKind, number>> = { face: 1, finger_vein: 1, palm: 5, visible_face: 1 };

export interface ReceivedCommand {
  id: string;
  text: string;
  /** The return code this terminal answered; null when it chose not to answer. */
  returnCode: number | null;
}

/** Decide a command's return code yourself: a number, `'ignore'` (no result sent), or undefined (default behaviour). */
export type CommandResponder = (command: { id: string; text: string }) => number | 'ignore' | undefined;

export interface SimulatedTerminalOptions {
  /** Server base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  sn: string;
  /** ADMS_URL_PREFIX of the server (default `/iclock/`). */
  prefix?: string;
  pushver?: string;
  /** Handshake `language` (69 English, 83 Simplified Chinese). */
  language?: string;
  /** Fingerprint algorithm reported in INFO and options (default `10`). */
  fpVersion?: string;
  /**
   * Whether it has a fingerprint reader (default true). A card-only or face-only terminal says
   * `FingerFunOn=0` and reports no `FPVersion`.
   */
  fingers?: boolean;
  /** Announce fingerprint BIODATA support and upload templates as BIODATA Type=1. */
  biodata?: boolean;
  firmware?: string;
  /** The terminal's clock zone, for the wall times of punches (default UTC). */
  timeZone?: string;
  /**
   * A SpeedFace-class terminal: the kinds it has besides fingers, with their algorithm version
   * (e.g. `{ visible_face: '58.10', palm: '12.0' }`, what a SpeedFace-V5L reports). Declared in its
   * parameters (`MultiBioDataSupport`, `FaceVersion`, `PvVersion`…); such templates travel as BIODATA.
   */
  kinds?: Partial<Record<SimulatedKind, string>>;
  /**
   * Its communication key (Comm Key): sent as `pushcommkey` on every request, and as the `token`
   * cookie on Security PUSH 3.x; once the server issued a key it refuses requests without it.
   */
  pushCommKey?: string;
  /** Return code of ENROLL_FP / ENROLL_BIO (default 0: enrolled). */
  enrollReturn?: (pin: string, fingerIndex: number) => number;
  respond?: CommandResponder;
  /** Users and templates the terminal can hold; past that, writes answer −1001 (full). */
  capacity?: { users?: number; templates?: number };
  /**
   * A clock off by this much (ms; positive: ahead): its punches carry that time until the server
   * sets its clock (2.x: the handshake a CHECK asks for; 3.x: `SET OPTIONS DateTime=`).
   */
  clockOffMs?: number;
  /** The time it runs on (ms since the epoch; default `Date.now`): a test gives it the server's clock, so both agree on the date. */
  now?: () => number;
  /**
   * Users already on the terminal when it first connects (made at its menu, or by another
   * server), with the fingers enrolled for each: what a real fleet holds on day one. `privilege`
   * (`Pri`: 14 super administrator) and `password` are what its menu gave them.
   */
  existingUsers?: { pin: string; name?: string; card?: string; fingers?: number[]; privilege?: number; password?: string }[];
  fetch?: typeof fetch;
  /** Called with one line per protocol exchange (the CLI prints them). */
  log?: (line: string) => void;
}

export interface Exchange {
  status: number;
  body: string;
}

const encoder = new TextEncoder();

/** The tab-separated fields of a command or a record. */
type TabFields = ReturnType<typeof parseTabFields>;

/** A synthetic ZKFinger v10 template: random bytes with `SS21` at bytes 2–5, as base64. */
export function syntheticTemplate(bytes = 96): string {
  const data = crypto.getRandomValues(new Uint8Array(Math.max(6, bytes)));
  data.set(encoder.encode('SS21'), 2);
  return Buffer.from(data).toString('base64');
}

export class SimulatedTerminal {
  readonly sn: string;
  readonly users = new Map<string, StoredUser>();
  readonly templates = new Map<string, StoredTemplate>();
  /** Faces, palms and veins, by `type:pin:no:index`. */
  readonly biodata = new Map<string, StoredBiodata>();
  /** Every command received, in order, with the answer given. */
  readonly commands: ReceivedCommand[] = [];
  /** The option block of the last handshake. */
  options: Record<string, string> = {};
  handshakes = 0;
  /** Attendance lines not yet acknowledged with `OK`: resent with the next upload. */
  private unsent: string[] = [];
  /** Every attendance record it holds (its ATTLOG table): what `TransactionCount` counts and a re-upload sends. */
  readonly attlog: string[] = [];
  /** Lines a `DATA QUERY ATTLOG` asked for, uploaded before the command's result. */
  private reupload: string[] = [];
  /** OPERLOG lines waiting to be uploaded (templates after ENROLL_FP). */
  private operlogQueue: string[] = [];
  private infoDue = true;
  private lastPunchAt = 0;
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  /** The communication key it sends on every request (an installer may enter one later: `commKey = …`). */
  commKey: string | undefined;
  /** Users and templates it can hold (a test may change it: a terminal whose memory was freed). */
  readonly capacity: { users: number; templates: number };
  /** How far its clock is off (ms; positive: ahead); 0 once the server set it. */
  clockOffMs: number;
  /** The time it runs on (SimulatedTerminalOptions.now), before its clock is off. */
  readonly now: () => number;

  constructor(private readonly o: SimulatedTerminalOptions) {
    this.sn = o.sn;
    const prefix = o.prefix ?? '/iclock/';
    this.base = `${o.url.replace(/\/+$/, '')}${prefix.startsWith('/') ? prefix : `/${prefix}`}`;
    this.fetchImpl = o.fetch ?? fetch;
    this.commKey = o.pushCommKey;
    this.capacity = { users: o.capacity?.users ?? Number.POSITIVE_INFINITY, templates: o.capacity?.templates ?? Number.POSITIVE_INFINITY };
    this.clockOffMs = o.clockOffMs ?? 0;
    this.now = o.now ?? Date.now;
    for (const u of o.existingUsers ?? []) {
      const menu = { ...(u.card ? { Card: u.card } : {}), ...(u.privilege ? { Pri: String(u.privilege) } : {}), ...(u.password ? { Passwd: u.password } : {}) };
      this.users.set(u.pin, { pin: u.pin, name: u.name ?? '', fields: { PIN: u.pin, ...menu } });
      for (const finger of u.fingers ?? []) {
        this.templates.set(key(u.pin, finger), { pin: u.pin, fingerIndex: finger, template: syntheticTemplate(), via: 'local', duress: false });
      }
    }
  }

  get pendingPunches(): number {
    return this.unsent.length;
  }

  /** `GET cdata?options=all`. Returns the option block as a map. */
  async handshake(): Promise<Record<string, string>> {
    const res = await this.get('cdata', { options: 'all', pushver: this.o.pushver ?? '2.4.1', language: this.o.language ?? '69', PushOptionsFlag: '1' });
    this.handshakes++;
    this.infoDue = true;
    if (res.status === 200) this.options = parseOptionBlock(res.body);
    return this.options;
  }

  /** `POST cdata?table=options`: the terminal's parameters. */
  async postOptions(): Promise<Exchange> {
    const fp = this.fpVersion;
    const params: Record<string, string> = {
      '~DeviceName': 'FPA-Simulator',
      MAC: '00:17:61:00:00:01',
      TransactionCount: String(this.attlog.length),
      UserCount: String(this.users.size),
      FingerFunOn: fp === null ? '0' : '1',
      ...(fp === null ? {} : { FPVersion: fp }),
      FPCount: String(this.templates.size),
      ...this.kindParameters(),
      Language: this.o.language ?? '69',
      '~OEMVendor': 'Simulated Co., Ltd.',
      FWVersion: this.firmware,
      PushVersion: `Ver ${this.o.pushver ?? '2.4.1'}`,
      MultiBioDataSupport: this.multiBioDataSupport(),
    };
    return this.post('cdata', { table: 'options' }, formatOptionsBody(params));
  }

  /** The fingerprint algorithm it reports, or null when it has no fingerprint reader. */
  private get fpVersion(): string | null {
    return this.o.fingers === false ? null : (this.o.fpVersion ?? '10');
  }

  /** A 0/1 per BIODATA type 0–9: which kinds this terminal takes as BIODATA. */
  private multiBioDataSupport(): string {
    const bits = Array.from({ length: 10 }, () => '0');
    if (this.o.biodata) bits[1] = '1';
    for (const kind of Object.keys(this.o.kinds ?? {}) as SimulatedKind[]) bits[SIMULATED_KINDS[kind]] = '1';
    return bits.join(':');
  }

  /** The older switches and versions of each kind (§2.2), as a SpeedFace reports them. */
  private kindParameters(): Record<string, string> {
    const k = this.o.kinds ?? {};
    const face = k.visible_face ?? k.face;
    return {
      FaceFunOn: face ? '1' : '0',
      ...(face ? { FaceVersion: face.split('.')[0]!, FaceCount: String(this.countOf(k.visible_face ? 9 : 2)) } : {}),
      VisilightFun: k.visible_face ? '1' : '0',
      PvFunOn: k.palm ? '1' : '0',
      ...(k.palm ? { PvVersion: k.palm.split('.')[0]!, PvCount: String(this.countOf(8)) } : {}),
      FvFunOn: k.finger_vein ? '1' : '0',
      ...(k.finger_vein ? { FvVersion: k.finger_vein.split('.')[0]!, FvCount: String(this.countOf(7)) } : {}),
    };
  }

  /** The counts of its other kinds, as its INFO reply gives them (`FaceCount`, `PvCount`, `FvCount`). */
  private kindCounts(): string[] {
    const counts = this.kindParameters();
    return ['FaceCount', 'PvCount', 'FvCount'].filter((k) => counts[k] !== undefined).map((k) => `${k}=${counts[k]}`);
  }

  /** Body parts of a BIODATA type it holds, as a terminal counts them: a face, a palm (of five templates), one each. */
  private countOf(type: number): number {
    return new Set([...this.biodata.values()].filter((b) => b.type === type).map((b) => `${b.pin}:${b.no}`)).size;
  }

  /**
   * Walk-up enrollment of a face, palm or vein at the terminal menu: the user (if new) and the
   * captured templates (a palm is five), uploaded as BIODATA.
   */
  async enrollKind(pin: string, kind: SimulatedKind, no = 0): Promise<Exchange> {
    if (!this.users.has(pin)) this.users.set(pin, { pin, name: '', fields: { PIN: pin } });
    const lines = this.capture(pin, kind, no);
    return this.post('cdata', { table: 'BIODATA', Stamp: '9999' }, `${lines.join('\n')}\n`);
  }

  /** Makes the templates of one capture (kept in this terminal) and returns their BIODATA lines. */
  private capture(pin: string, kind: SimulatedKind, no: number): string[] {
    const version = this.o.kinds?.[kind];
    if (!version) throw new Error(`this terminal has no ${kind}`);
    const [majorVer = '0', minorVer = '0'] = version.split('.');
    const type = SIMULATED_KINDS[kind];
    const lines: string[] = [];
    for (let index = 0; index < PARTS_PER_CAPTURE[kind]; index++) {
      const stored: StoredBiodata = { pin, type, no, index, majorVer, minorVer, template: syntheticTemplate(240), via: 'local' };
      this.biodata.set(bioKey(type, pin, no, index), stored);
      lines.push(biodataLineOf(stored));
    }
    return lines;
  }

  /**
   * One `GET getrequest`: runs the commands it gets, posts their results to devicecmd, then
   * uploads templates that enrollment produced. Returns the commands of this poll.
   */
  async poll(): Promise<ReceivedCommand[]> {
    const query: Record<string, string> = {};
    if (this.infoDue) {
      query.INFO = [this.firmware, this.users.size, this.templates.size, this.attlog.length, '192.168.1.201', this.fpVersion ?? '', 0, 0, 0, '10000'].join(',');
    }
    const res = await this.get('getrequest', query);
    if (res.status !== 200) return [];
    this.infoDue = false;
    const lines = res.body
      .split('\n')
      .map((l) => l.replace(/\r$/, ''))
      .filter((l) => l.startsWith('C:'));
    const executed: ReceivedCommand[] = [];
    const results: string[] = [];
    let rehandshake = false;
    for (const line of lines) {
      const m = /^C:([^:]+):(.*)$/.exec(line);
      if (!m) continue;
      const command = { id: m[1]!, text: m[2]! };
      const outcome = this.execute(command);
      const received: ReceivedCommand = { ...command, returnCode: outcome.code };
      this.commands.push(received);
      executed.push(received);
      if (outcome.code !== null) results.push(outcome.reply ?? formatDeviceCmdResult({ id: command.id, returnCode: outcome.code, cmd: outcome.echo }));
      if (outcome.rehandshake) rehandshake = true;
    }
    // What the commands produced (query answers, enrolled templates, re-uploads) is uploaded before their results.
    if (this.operlogQueue.length > 0) await this.flushOperlog();
    if (this.reupload.length > 0) await this.flushReupload();
    if (results.length > 0) await this.post('devicecmd', {}, `${results.join('\n')}\n`);
    if (rehandshake) {
      await this.handshake();
      // A 2.x terminal takes the server's time from that handshake (its Date header).
      this.clockSet();
    }
    return executed;
  }

  /** Records punches and uploads every unacknowledged line (resending earlier ones). */
  async punch(records: PunchRecord[]): Promise<Exchange> {
    for (const r of records) this.unsent.push(this.record(r));
    return this.flushPunches();
  }

  /**
   * Records punches in its log that it will never send by itself: a firmware that moved its
   * stamp past unsent records (after an outage), or uploads lost on the way. Only a re-upload
   * (`DATA QUERY ATTLOG`) brings them. Returns their lines.
   */
  holdUnsent(records: PunchRecord[]): string[] {
    return records.map((r) => this.record(r));
  }

  /** How many attendance records it holds (`TransactionCount`). */
  get transactionCount(): number {
    return this.attlog.length;
  }

  /** A new record in its log; its count changed, so the next poll carries INFO again. */
  private record(r: PunchRecord): string {
    const line = this.attlogLine(r);
    this.attlog.push(line);
    this.infoDue = true;
    return line;
  }

  /** Uploads the records a `DATA QUERY ATTLOG` asked for (kept for the next poll if refused). */
  private async flushReupload(): Promise<void> {
    const batch = this.reupload.splice(0);
    const res = await this.post('cdata', { table: 'ATTLOG', Stamp: '9999' }, `${batch.join('\n')}\n`);
    if (!(res.status === 200 && res.body.startsWith('OK'))) this.reupload.unshift(...batch);
  }

  /** Uploads the unacknowledged attendance lines; they are kept unless the answer starts with OK. */
  async flushPunches(): Promise<Exchange> {
    if (this.unsent.length === 0) return { status: 200, body: 'OK:0' };
    const batch = this.unsent.slice();
    const res = await this.post('cdata', { table: 'ATTLOG', Stamp: '9999' }, `${batch.join('\n')}\n`);
    if (res.status === 200 && res.body.startsWith('OK')) this.unsent.splice(0, batch.length);
    return res;
  }

  /** Sends one ATTLOG body as it is (resend of a batch whose OK was lost, hand-made lines). */
  async sendAttlog(body: string): Promise<Exchange> {
    return this.post('cdata', { table: 'ATTLOG', Stamp: '9999' }, body);
  }

  /**
   * Walk-up upload of a template for (pin, finger): an `FP` line in OPERLOG, or `BIODATA`
   * Type=1 for a BIODATA terminal. The template is also kept in this terminal's table.
   */
  async uploadTemplate(pin: string, fingerIndex: number, template = syntheticTemplate(), marks: TemplateMarks = {}): Promise<Exchange> {
    this.templates.set(key(pin, fingerIndex), { pin, fingerIndex, template, via: 'local', duress: marks.duress ?? false });
    if (this.o.biodata) return this.post('cdata', { table: 'BIODATA', Stamp: '9999' }, `${this.biodataLine(pin, fingerIndex, template, marks)}\n`);
    return this.post('cdata', { table: 'OPERLOG', Stamp: '9999' }, `${fpLine(pin, fingerIndex, template, marks)}\n`);
  }

  /** Walk-up enrollment on the terminal menu: the user (if new) and the finger, uploaded. */
  async enrollFinger(pin: string, fingerIndex: number): Promise<Exchange> {
    if (!this.users.has(pin)) this.users.set(pin, { pin, name: '', fields: { PIN: pin } });
    return this.uploadTemplate(pin, fingerIndex);
  }

  /** `GET`/`POST` under the prefix with `SN` (and `pushcommkey`) added. */
  async get(endpoint: string, query: Record<string, string> = {}): Promise<Exchange> {
    return this.request('GET', endpoint, query);
  }

  async post(endpoint: string, query: Record<string, string>, body: string | Uint8Array): Promise<Exchange> {
    return this.request('POST', endpoint, query, body);
  }

  private async request(method: string, endpoint: string, query: Record<string, string>, body?: string | Uint8Array): Promise<Exchange> {
    const params = new URLSearchParams({ SN: this.sn, ...query });
    if (this.commKey) params.set('pushcommkey', this.commKey);
    const bytes: Uint8Array<ArrayBuffer> | undefined = typeof body === 'string' ? encoder.encode(body) : body ? new Uint8Array(body) : undefined;
    // Security PUSH 3.x carries its key in the `token` cookie (docs/protocol/adms.md).
    const cookie: Record<string, string> = this.commKey && isSecurityPush(this.o.pushver) ? { cookie: `token=${this.commKey}` } : {};
    const res = await this.fetchImpl(`${this.base}${endpoint}?${params.toString()}`, {
      method,
      headers: { 'user-agent': 'iClock Proxy/1.09', accept: '*/*', ...cookie, ...(bytes ? { 'content-type': 'text/plain' } : {}) },
      body: bytes,
    });
    const text = await res.text();
    this.o.log?.(`${method} ${endpoint}${query.table ? `?table=${query.table}` : ''} → ${res.status} ${text.split('\n')[0]!.slice(0, 80)}`);
    return { status: res.status, body: text };
  }

  private get firmware(): string {
    return this.o.firmware ?? 'FPA-SIM-Ver1.0.0';
  }

  private attlogLine(r: PunchRecord): string {
    const localTime = r.localTime ?? this.wallTime(r.at ?? this.nextPunchTime());
    return formatAttlogLine({ pin: r.pin, localTime, state: r.state ?? 0, verifyType: r.verifyType ?? 1, workCode: r.workCode ?? '0', extra: ['0', '0'] });
  }

  /**
   * The terminal's clock: like a real one it knows no zone rules and runs on the offset it was
   * told at its last handshake (`TimeZone`: hours below 13, else minutes), so across a DST change
   * it stays on the old offset until it handshakes again. Before any handshake: `timeZone`.
   */
  wallTime(at: Date): string {
    const told = Number(this.options.TimeZone);
    if (this.options.TimeZone === undefined || !Number.isFinite(told)) return formatLocalWallTime(at, this.o.timeZone ?? 'UTC');
    const minutes = Math.abs(told) < 13 ? told * 60 : told;
    return new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, 19).replace('T', ' ');
  }

  /** The server set its clock: no longer off, and punches follow the right time again. */
  private clockSet(): void {
    if (this.clockOffMs === 0) return;
    this.clockOffMs = 0;
    this.lastPunchAt = 0;
  }

  /** "Now", but never the same second twice: a terminal logs one punch per user and second. */
  private nextPunchTime(): Date {
    const now = Math.floor((this.now() + this.clockOffMs) / 1000) * 1000;
    this.lastPunchAt = Math.max(now, this.lastPunchAt + 1000);
    return new Date(this.lastPunchAt);
  }

  private biodataLine(pin: string, fingerIndex: number, template: string, marks: TemplateMarks = {}): string {
    const [major = '10', minor = '0'] = (this.o.fpVersion ?? '10').split('.');
    const valid = marks.invalid ? 0 : 1;
    const duress = marks.duress ? 1 : 0;
    return `BIODATA Pin=${pin}\tNo=${fingerIndex}\tIndex=0\tValid=${valid}\tDuress=${duress}\tType=1\tMajorVer=${major}\tMinorVer=${minor}\tFormat=0\tTmp=${template}`;
  }

  /** Uploads what enrollment and queries produced: BIODATA lines to BIODATA, the rest to OPERLOG. */
  private async flushOperlog(): Promise<void> {
    const lines = this.operlogQueue.splice(0);
    const biodata = lines.filter((l) => l.startsWith('BIODATA '));
    const operlog = lines.filter((l) => !l.startsWith('BIODATA '));
    for (const [table, batch] of [
      ['OPERLOG', operlog],
      ['BIODATA', biodata],
    ] as const) {
      if (batch.length === 0) continue;
      const res = await this.post('cdata', { table, Stamp: '9999' }, `${batch.join('\n')}\n`);
      if (!(res.status === 200 && res.body.startsWith('OK'))) this.operlogQueue.push(...batch);
    }
  }

  /** Runs one command on the in-memory tables. */
  private execute(command: { id: string; text: string }): { code: number | null; echo: string; reply?: string; rehandshake?: boolean } {
    const forced = this.o.respond?.(command);
    const { keyword, rest } = splitKeyword(command.text);
    const words = command.text.split(' ');
    const family = keyword.toUpperCase() === 'DATA' ? 'DATA' : (words[0] ?? '');
    if (forced === 'ignore') return { code: null, echo: family };
    if (typeof forced === 'number') return { code: forced, echo: family };
    if (family === 'DATA') return { code: this.data(words[1] ?? '', words[2] ?? '', command.text), echo: 'DATA' };
    switch (keyword.toUpperCase()) {
      case 'ENROLL_FP':
      case 'ENROLL_BIO':
        return { code: this.enrollOnDevice(rest), echo: keyword.toUpperCase() };
      case 'INFO':
        return { code: 0, echo: 'INFO', reply: this.infoReply(command.id) };
      case 'CHECK':
        return { code: 0, echo: 'CHECK', rehandshake: true };
      case 'CLEAR':
        return { code: this.clear(rest), echo: 'CLEAR' };
      case 'SET':
        if (/DateTime=/i.test(rest)) this.clockSet();
        return { code: 0, echo: 'SET' };
      case 'REBOOT':
        // It restarts at once: no devicecmd for it, then the handshake of a terminal starting.
        return { code: null, echo: 'REBOOT', rehandshake: true };
      case 'LOG':
        return { code: 0, echo: keyword.toUpperCase() };
      default:
        return { code: -1002, echo: keyword };
    }
  }

  /** `DATA UPDATE|QUERY|DELETE <table> fields`. */
  private data(action: string, table: string, text: string): number {
    const fieldsText = text.split(' ').slice(3).join(' ');
    const f = parseTabFields(fieldsText);
    const pin = (f.get('PIN', 'Pin') ?? '').trim();
    if (pin === '' && action.toUpperCase() !== 'QUERY') return -1;
    switch (action.toUpperCase()) {
      case 'UPDATE':
        return this.dataUpdate(table.toUpperCase(), pin, f);
      case 'QUERY':
        return this.dataQuery(table.toUpperCase(), pin, f);
      case 'DELETE':
        return this.dataDelete(table.toUpperCase(), pin, f);
      default:
        return -1002;
    }
  }

  /** `DATA UPDATE`: a user, a fingerprint or another kind's template, into its table. */
  private dataUpdate(table: string, pin: string, f: TabFields): number {
    switch (table) {
      case 'USERINFO':
        if (!this.users.has(pin) && this.users.size >= this.capacity.users) return FULL;
        this.users.set(pin, { pin, name: f.get('Name') ?? '', fields: { ...f.fields } });
        return 0;
      case 'BIODATA':
        if (f.get('Type') !== undefined && f.get('Type') !== '1') return this.storeBiodata(pin, f);
        return this.storeFinger(pin, f, true);
      case 'FINGERTMP':
        return this.storeFinger(pin, f, false);
      default:
        return -1002;
    }
  }

  /** `DATA QUERY`: what it holds, queued for upload after the results (a re-upload for ATTLOG). */
  private dataQuery(table: string, pin: string, f: TabFields): number {
    switch (table) {
      case 'ATTLOG': {
        // Wall times of its own clock, inclusive (docs/protocol/adms.md: DATA QUERY ATTLOG).
        const start = f.get('StartTime');
        const end = f.get('EndTime');
        if (!start || !end) return -1;
        this.reupload.push(...this.attlog.filter((line) => (line.split('\t')[1] ?? '') >= start && (line.split('\t')[1] ?? '') <= end));
        return 0;
      }
      case 'USERINFO':
        // The answer is the users as OPERLOG USER lines, uploaded after the results (ADMS.md §6).
        for (const u of this.users.values()) if (pin === '' || u.pin === pin) this.operlogQueue.push(userLine(u));
        return 0;
      case 'BIODATA':
        if (f.get('Type') !== undefined && f.get('Type') !== '1') {
          const type = Number(f.get('Type'));
          for (const b of this.biodata.values()) if (b.pin === pin && b.type === type) this.operlogQueue.push(biodataLineOf(b));
          return 0;
        }
        return this.dataQuery('FINGERTMP', pin, f);
      case 'FINGERTMP':
        for (const t of this.templates.values()) {
          if (t.pin !== pin) continue;
          this.operlogQueue.push(
            this.o.biodata
              ? this.biodataLine(t.pin, t.fingerIndex, t.template, { duress: t.duress })
              : fpLine(t.pin, t.fingerIndex, t.template, { duress: t.duress }),
          );
        }
        return 0;
      default:
        return -1002;
    }
  }

  /** `DATA DELETE`: a user with everything they hold, or some of their templates. */
  private dataDelete(table: string, pin: string, f: TabFields): number {
    switch (table) {
      case 'USERINFO':
        this.users.delete(pin);
        for (const k of [...this.templates.keys()]) if (k.startsWith(`${pin}:`)) this.templates.delete(k);
        for (const [k, b] of [...this.biodata]) if (b.pin === pin) this.biodata.delete(k);
        return 0;
      case 'BIODATA':
        if (f.get('Type') !== undefined && f.get('Type') !== '1') {
          const type = Number(f.get('Type'));
          const no = f.get('No');
          for (const [k, b] of [...this.biodata]) if (b.pin === pin && b.type === type && (no === undefined || b.no === Number(no))) this.biodata.delete(k);
          return 0;
        }
        return this.dataDelete('FINGERTMP', pin, f);
      case 'FINGERTMP': {
        const finger = f.get('FID', 'No');
        if (finger === undefined) {
          for (const k of [...this.templates.keys()]) if (k.startsWith(`${pin}:`)) this.templates.delete(k);
        } else {
          this.templates.delete(key(pin, Number(finger)));
        }
        return 0;
      }
      default:
        return -1002;
    }
  }

  /** `CLEAR LOG` (attendance) or `CLEAR DATA` (users, templates and logs). */
  private clear(rest: string): number {
    const what = rest.trim().toUpperCase();
    if (what === 'DATA') {
      this.users.clear();
      this.templates.clear();
      this.unsent = [];
      this.attlog.length = 0;
      this.infoDue = true;
      return 0;
    }
    if (what === 'LOG') {
      this.unsent = [];
      this.attlog.length = 0;
      this.infoDue = true;
      return 0;
    }
    return -1002;
  }

  /** A fingerprint sent by the server, as FINGERTMP or as BIODATA Type=1. */
  private storeFinger(pin: string, f: TabFields, biodata: boolean): number {
    const finger = Number(f.get('FID', 'No'));
    const template = f.get('TMP', 'Tmp') ?? '';
    if (!Number.isInteger(finger) || template === '') return -1;
    if (!this.users.has(pin)) return -10;
    if (!this.templates.has(key(pin, finger)) && this.templates.size >= this.capacity.templates) return FULL;
    const duress = biodata ? f.get('Duress') === '1' : f.get('Valid') === '3';
    this.templates.set(key(pin, finger), { pin, fingerIndex: finger, template, via: biodata ? 'BIODATA' : 'FINGERTMP', duress });
    return 0;
  }

  /** A face, palm or vein sent by the server (`DATA UPDATE BIODATA` with its Type). */
  private storeBiodata(pin: string, f: TabFields): number {
    const type = Number(f.get('Type'));
    if (!Object.values(SIMULATED_KINDS).includes(type as (typeof SIMULATED_KINDS)[SimulatedKind])) return -1004;
    const kind = (Object.keys(SIMULATED_KINDS) as SimulatedKind[]).find((k) => SIMULATED_KINDS[k] === type)!;
    // A terminal without that kind answers that its configuration has no such table.
    if (!this.o.kinds?.[kind]) return -1004;
    if (!this.users.has(pin)) return -10;
    const template = f.get('Tmp') ?? '';
    const no = Number(f.get('No') ?? '0');
    const index = Number(f.get('Index') ?? '0');
    if (template === '' || !Number.isInteger(no) || !Number.isInteger(index)) return -1;
    const stored: StoredBiodata = { pin, type, no, index, majorVer: f.get('MajorVer') ?? '', minorVer: f.get('MinorVer') ?? '', template, via: 'BIODATA' };
    this.biodata.set(bioKey(type, pin, no, index), stored);
    return 0;
  }

  /** On-device enrollment: success queues the template upload (and the OPLOG 6 line). */
  private enrollOnDevice(rest: string): number {
    const f = parseTabFields(rest);
    const pin = (f.get('PIN') ?? '').trim();
    const finger = Number(f.get('FID', 'NO', 'No') ?? '0');
    const type = Number(f.get('TYPE', 'type') ?? '1');
    if (pin === '' || !Number.isInteger(finger)) return -1;
    const code = this.o.enrollReturn?.(pin, finger) ?? 0;
    if (code !== 0) return code;
    if (!this.users.has(pin)) this.users.set(pin, { pin, name: '', fields: { PIN: pin } });
    if (type !== 1) {
      const kind = (Object.keys(SIMULATED_KINDS) as SimulatedKind[]).find((k) => SIMULATED_KINDS[k] === type);
      if (!kind || !this.o.kinds?.[kind]) return -1004;
      this.operlogQueue.push(...this.capture(pin, kind, finger));
      return 0;
    }
    const template = syntheticTemplate();
    this.templates.set(key(pin, finger), { pin, fingerIndex: finger, template, via: 'local', duress: false });
    if (this.o.biodata) {
      this.operlogQueue.push(this.biodataLine(pin, finger, template));
    } else {
      this.operlogQueue.push(fpLine(pin, finger, template));
      this.operlogQueue.push(`OPLOG 6\t0\t${this.wallTime(new Date(this.now()))}\t${pin}\t${finger}\t${Buffer.from(template, 'base64').length}\t0`);
    }
    return 0;
  }

  private infoReply(id: string): string {
    const lines = [
      `ID=${id}&Return=0&CMD=INFO`,
      '~DeviceName=FPA-Simulator',
      `UserCount=${this.users.size}`,
      `FPCount=${this.templates.size}`,
      ...this.kindCounts(),
      `TransactionCount=${this.attlog.length}`,
      `FingerFunOn=${this.fpVersion === null ? 0 : 1}`,
      ...(this.fpVersion === null ? [] : [`FPVersion=${this.fpVersion}`, `~ZKFPVersion=${this.fpVersion}`]),
      `FWVersion=${this.firmware}`,
      'IPAddress=192.168.1.201',
      `~SerialNumber=${this.sn}`,
    ];
    return lines.join('\n');
  }
}

/** The return code of a terminal whose user or template table is full (docs/protocol/adms.md, return codes). */
const FULL = -1001;

/** A user as a 2.x terminal uploads it in OPERLOG. */
function userLine(u: StoredUser): string {
  return `USER PIN=${u.pin}\tName=${u.name}\tPri=${u.fields.Pri ?? '0'}\tPasswd=${u.fields.Passwd ?? ''}\tCard=${u.fields.Card ?? ''}\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=`;
}

function bioKey(type: number, pin: string, no: number, index: number): string {
  return `${type}:${pin}:${no}:${index}`;
}

function biodataLineOf(b: StoredBiodata): string {
  return `BIODATA Pin=${b.pin}\tNo=${b.no}\tIndex=${b.index}\tValid=1\tDuress=0\tType=${b.type}\tMajorVer=${b.majorVer}\tMinorVer=${b.minorVer}\tFormat=0\tTmp=${b.template}`;
}

function key(pin: string, finger: number): string {
  return `${pin}:${finger}`;
}

/** FP `Valid`: 0 invalid, 1 normal, 3 duress. */
function fpLine(pin: string, fingerIndex: number, template: string, marks: TemplateMarks = {}): string {
  const valid = marks.invalid ? 0 : marks.duress ? 3 : 1;
  return `FP PIN=${pin}\tFID=${fingerIndex}\tSize=${template.length}\tValid=${valid}\tTMP=${template}`;
}

/** `GET OPTION FROM: SN` then `Key=Value` lines → map (the first line is kept as `_header`). */
export function parseOptionBlock(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of body.split('\n')) {
    const t = line.replace(/\r$/, '');
    if (t === '') continue;
    const eq = t.indexOf('=');
    if (t.startsWith('GET OPTION FROM')) out._header = t;
    else if (eq > 0) out[t.slice(0, eq)] = t.slice(eq + 1);
  }
  return out;
}
