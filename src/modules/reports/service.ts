/**
 * The reports HR and payroll use (API.md "HR at a glance"): daily, timesheet, summary and
 * exceptions, each as CSV, Excel or PDF. Every figure is the attendance module's: its stored
 * days (read a page at a time) and, for timesheets, the punches each day counted. Reports
 * honour the caller's areas: people outside are left out, a person or area outside is 404.
 */

import { FpaError } from '../../platform/errors';
import { Pacer } from '../../platform/event-loop';
import type { Caller } from '../../platform/http/caller';
import { compareKeys, nameKey } from '../../platform/name-key';
import { addDays, dayBounds, localDateOf, requireDate, requireOrdered } from '../../platform/time/dates';
import { formatLocalWallTime } from '../../platform/time/zone';
import type { AreaCatalog } from '../areas';
import type { AttendanceDayRow, AttendanceService, CountedPunch, LiveDay, Reports, SummaryView, TodayBoard } from '../attendance';
import { auditDownload } from '../audit';
import type { EnrolleeService } from '../enrollees';
import { csvStream } from './csv';
import { pdfBytes } from './pdf';
import {
  DAILY_COLUMNS,
  dailyRow,
  EXCEPTION_COLUMNS,
  EXCEPTION_KINDS,
  type ExceptionKind,
  exceptionsOf,
  exceptionTests,
  type OpenNow,
  type Person,
  SUMMARY_COLUMNS,
  summaryRow,
  summaryTotals,
  TIMESHEET_COLUMNS,
  timesheetRow,
  timesheetTotals,
} from './rows';
import type { ReportRuntime } from './runtime';
import { People, type Scope, scopeOf } from './scope';
import { CONTENT_TYPES, FLAG_WORDS, type Format, type ReportDocument, type Row, type Sheet } from './table';
import { xlsxStream } from './xlsx';

/** The longest period of a report (as the payroll export). */
const MAX_DAYS = 366;
/**
 * A day with punches computed before its punches were stored (migration 0023): its punches are
 * read again from the live ones, as they were before.
 */
const unlisted = (day: AttendanceDayRow) => day.punches === null && day.punchCount > 0;

/**
 * Days read at once: a page of a thousand (with their punches) held the thread 40-50 ms on a
 * busy machine, a terminal's poll waiting behind it; a quarter of that keeps each read short.
 */
const DAYS_PER_PAGE = 250;

/** People per page of the summary (each a group of their days): a page is one statement on this thread. */
const SUMMARY_PAGE = 100;

/** A day in ms. */
const DAY = 86_400_000;

/** People whose timesheets are built together (their punches read at once). */
const SHEET_BATCH = 50;

export interface ReportFile {
  body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
  contentType: string;
  filename: string;
}

type Who = Pick<Caller, 'areas'>;

export class ReportService {
  constructor(
    private readonly ctx: ReportRuntime,
    private readonly deps: { attendance: AttendanceService; days: Reports; enrollees: EnrolleeService; areas: AreaCatalog; board: TodayBoard },
  ) {}

  /**
   * The file of a report in a format, downloaded by `by`: audited (`export.downloaded`) once it
   * can be sent, in a write of its own before its first byte, so no write is held while it streams.
   * A PDF is built whole (bounded, pdf.ts); CSV and Excel stream.
   */
  async file(doc: ReportDocument, format: Format, by: string): Promise<ReportFile> {
    const filename = `${doc.basename}.${format}`;
    const contentType = CONTENT_TYPES[format];
    const body = await this.body(doc, format);
    const { parameters = {}, enrollee } = doc.asked ?? {};
    await auditDownload(this.ctx.db, this.ctx.clock.now(), {
      actor: by,
      action: 'export.downloaded',
      targetType: 'report',
      targetId: `reports/${doc.kind}.${format}`,
      details: { ...parameters, ...(enrollee ? { enrollee } : {}) },
    });
    return { body, contentType, filename };
  }

  private async body(doc: ReportDocument, format: Format): Promise<ReportFile['body']> {
    if (format === 'csv') return csvStream(doc);
    if (format === 'xlsx') return await xlsxStream(doc);
    const generated = `${formatLocalWallTime(new Date(this.ctx.clock.now()), this.zone).slice(0, 16)}`;
    const fonts = { regular: this.ctx.settings.REPORT_FONT, bold: this.ctx.settings.REPORT_FONT_BOLD };
    return pdfBytes(doc, generated, doc.kind === 'timesheet', { fonts });
  }

  /**
   * What is open now, for a report of `from`..`to`: today, and (only when the period holds
   * yesterday) who is still in from last night's shift.
   */
  private async openNow(from: string, to: string): Promise<OpenNow> {
    const now = this.ctx.clock.now();
    const { zones } = await this.deps.attendance.zones.todays();
    const todays = [...new Set(zones.map((z) => localDateOf(now, z)))].sort();
    // Each person's today where they work (their areas' zone, else the attendance zone).
    const zoneOf = todays.length > 1 ? await this.deps.board.zonesNow() : new Map<string, string>();
    const todayOf = (id: string) => localDateOf(now, zoneOf.get(id) ?? this.zone);
    const yesterdays = todays.map((d) => addDays(d, -1));
    const lastNight = yesterdays.some((y) => from <= y && y <= to) ? await this.deps.board.stillInFromLastNight() : new Set<string>();
    return { todayOf, todays, lastNight };
  }

  private get zone(): string {
    return this.deps.attendance.timeZone;
  }

  private async base(kind: string, title: string, period: string, scope: string, basename: (string | null)[], notes: string[] = []) {
    // The name as it is (an employee key `李雷`, an area `North plant`): the download's header keeps it (attachmentDisposition).
    const name = basename.filter((p): p is string => p !== null && p !== '').join('-');
    const company = this.ctx.settings.COMPANY_NAME;
    // With areas of other zones, each row's times are its person's zone's: the header says so, not one zone.
    const { zones } = await this.deps.attendance.zones.todays();
    const timesIn = zones.length > 1 ? `each person's zone (their area's, else ${this.zone})` : this.zone;
    return { kind, title, period, scope, company, basename: name, timeZone: this.zone, timesIn, notes };
  }

  /** `reports/daily`: everyone in scope on one date, by name; people without a day yet show `no_record`. */
  async daily(query: { date?: string; area?: string }, caller: Who): Promise<ReportDocument> {
    const date = query.date ? requireDate(query.date, 'date') : this.deps.attendance.today();
    const scope = await scopeOf(this.deps.areas, caller, query.area);
    const open = await this.openNow(date, date);
    // Today (where the person works), someone without a day yet is where the Today board puts them
    // on today's own shift: not due yet, not in yet, on leave… (a night still running from
    // yesterday is yesterday's row).
    const live = open.todays.includes(date) ? await this.deps.board.live({ date, scope: caller.areas, area: query.area }) : new Map<string, LiveDay>();
    const days = new Map<string, AttendanceDayRow>();
    for await (const page of this.deps.days.days({ from: date, to: date }, DAYS_PER_PAGE, this.deps.days.inScope(scope.members, 'person')))
      for (const d of page) days.set(d.enrolleeId, d);
    // Everyone whose attendance had started by the date (the Today board's rule): enrolled by its
    // end, or since but with punches before it or a schedule of their own from it, and whoever has a day on it.
    const end = dayBounds(date, this.zone).end;
    const active = await this.deps.enrollees.activeCreatedBefore(this.ctx.db.orm, end);
    const started = await this.deps.board.startedBeforeEnrolment({ date, end });
    const people = await new People(this.ctx, this.deps.enrollees).of([...new Set([...active.map((a) => a.id), ...started, ...days.keys()])]);
    // By name as every list of people (ignoring case and accents: platform/name-key.ts), then employee.
    const keys = new Map([...people].map(([id, p]) => [id, nameKey(p.name)]));
    const sorted = [...people]
      .filter(([, p]) => scope.admits(p.areas))
      .sort(([x, a], [y, b]) => compareKeys(keys.get(x) ?? '', keys.get(y) ?? '') || a.employee.localeCompare(b.employee));
    const rows: Row[] = [];
    const pacer = new Pacer();
    // Each day's times in the zone it was judged in (a day stored before that was kept: its person's zone now).
    const zoneOf = await this.deps.attendance.zones.ofDays(days.values());
    for (const [id, person] of sorted) {
      const day = days.get(id) ?? null;
      // A row without a day shows no time: the zone is not read.
      const zone = day ? zoneOf(day) : this.zone;
      rows.push(dailyRow(date, person, day, zone, { open, live: date === open.todayOf(id) ? live.get(id) : undefined }));
      await pacer.turn();
    }
    const sheet: Sheet = { name: date, details: [], columns: DAILY_COLUMNS, rows };
    return {
      ...(await this.base('daily', 'Daily attendance', date, scope.label, ['daily', date, scope.area], [NEXT_DATE_NOTE, OWN_SHIFTS_NOTE])),
      sheets: once(sheet),
      emptyColumns: DAILY_COLUMNS,
      rowCount: async () => rows.length,
      asked: { parameters: given({ date, area: query.area }) },
    };
  }

  /** `reports/timesheet`: one sheet per person, a row for every date of the period, totals and signature lines. */
  async timesheet(query: { from: string; to: string; employee?: string; area?: string }, caller: Who): Promise<ReportDocument> {
    const { from, to } = period(query.from, query.to);
    const scope = await scopeOf(this.deps.areas, caller, query.area);
    const notes = [
      '* a manual or imported punch. +1 a time on the next date (a shift past midnight). Durations in hours:minutes.',
      TOTALS_NOTE,
      NEXT_DATE_NOTE,
    ];
    const people = new People(this.ctx, this.deps.enrollees);
    if (query.employee) {
      const employee = query.employee;
      const ids = await this.deps.enrollees.idsOfEmployee(employee);
      const byId = await people.of(ids);
      const own = [...byId.values()];
      const [enrollee, found] = [...byId].find(([, p]) => scope.admits(p.areas)) ?? [];
      if (!found) throw new FpaError('not_found', 'employee not found', { employee });
      const days: AttendanceDayRow[] = [];
      for await (const page of this.deps.days.days({ from, to, employee }, DAYS_PER_PAGE)) days.push(...page);
      const person = { ...found, areas: [...new Set(own.flatMap((p) => p.areas))].sort() };
      const sheet = await this.timesheetOf(person, { ids, days, from, to }, await this.openNow(from, to));
      return {
        ...(await this.base('timesheet', 'Timesheet', `${from} to ${to}`, `Employee: ${found.name} (${employee})`, ['timesheet', from, to, employee], notes)),
        sheets: once(sheet),
        emptyColumns: TIMESHEET_COLUMNS,
        asked: { parameters: { from, to, employee }, enrollee },
      };
    }
    const sheets = this.timesheetsInScope(scope, people, from, to, await this.openNow(from, to));
    // A sheet per person with days in the period, a row per date each: counted on the days' index.
    const member = this.deps.days.inScope(scope.members, 'employee');
    const employees = (atMost: number) => this.deps.days.countEmployees({ from, to }, member, atMost);
    const dates = Date.parse(`${to}T00:00:00Z`) / DAY - Date.parse(`${from}T00:00:00Z`) / DAY + 1;
    return {
      ...(await this.base('timesheet', 'Timesheet', `${from} to ${to}`, scope.label, ['timesheets', from, to, scope.area], notes)),
      sheets,
      emptyColumns: TIMESHEET_COLUMNS,
      sheetCount: employees,
      rowCount: async (atMost) => dates * (await employees(Math.floor(atMost / dates) + 1)),
      asked: { parameters: given({ from, to, area: query.area }) },
    };
  }

  /**
   * Everyone in scope with days in the period, a sheet each. The days come by employee, then
   * date, a page at a time; people are looked up a page at a time and their punches read for
   * SHEET_BATCH people at once, so a large area costs a few queries per batch, not per person.
   */
  private async *timesheetsInScope(scope: Scope, people: People, from: string, to: string, open: OpenNow): AsyncGenerator<Sheet> {
    type Group = { person: Person; ids: string[]; days: AttendanceDayRow[] };
    let current: AttendanceDayRow[] = [];
    let ready: Group[] = [];
    const close = async () => {
      if (current.length === 0) return;
      const ids = [...new Set(current.map((d) => d.enrolleeId))];
      const own = [...(await people.of(ids)).values()];
      if (own.some((p) => scope.admits(p.areas)))
        ready.push({ person: { ...own[0]!, areas: [...new Set(own.flatMap((p) => p.areas))].sort() }, ids, days: current });
      current = [];
    };
    for await (const page of this.deps.days.days({ from, to }, DAYS_PER_PAGE, this.deps.days.inScope(scope.members, 'employee'))) {
      await people.of(page.map((d) => d.enrolleeId));
      for (const day of page) {
        if (current.length > 0 && current[0]!.employeeKey !== day.employeeKey) await close();
        current.push(day);
        if (ready.length >= SHEET_BATCH) {
          yield* this.sheetsOf(ready, from, to, open);
          ready = [];
        }
      }
    }
    await close();
    if (ready.length > 0) yield* this.sheetsOf(ready, from, to, open);
  }

  /** The timesheets of a batch of people, their punches read at once. */
  private async *sheetsOf(
    group: readonly { person: Person; ids: string[]; days: AttendanceDayRow[] }[],
    from: string,
    to: string,
    open: OpenNow,
  ): AsyncGenerator<Sheet> {
    const punches = await this.deps.attendance.dayPunches(
      group.filter((g) => g.days.some(unlisted)).flatMap((g) => g.ids),
      from,
      to,
    );
    for (const g of group) yield this.timesheetOf(g.person, { ids: g.ids, days: g.days, from, to }, open, punches);
  }

  private async timesheetOf(
    person: Person,
    of: { ids: readonly string[]; days: readonly AttendanceDayRow[]; from: string; to: string },
    open: OpenNow,
    known?: Map<string, Map<string, CountedPunch[]>>,
  ): Promise<Sheet> {
    const { ids, days, from, to } = of;
    const punches = known ?? (days.some(unlisted) ? await this.deps.attendance.dayPunches(ids, from, to) : new Map<string, Map<string, CountedPunch[]>>());
    const byDate = new Map(days.map((d) => [d.date, d]));
    const daysOf = new Map<string, AttendanceDayRow[]>();
    for (const d of days) daysOf.set(d.date, [...(daysOf.get(d.date) ?? []), d]);
    // Each date's times in the zone its day was judged in (a day stored before that was kept: its person's zone now).
    const zoneOf = await this.deps.attendance.zones.ofDays(days);
    const rows: Row[] = [];
    for (let date = from; date <= to; date = addDays(date, 1)) {
      // The punches each stored day was computed from: a report never judges a punch again.
      const counted = (daysOf.get(date) ?? [])
        .flatMap((d) => d.punches ?? (unlisted(d) ? (punches.get(d.enrolleeId)?.get(date) ?? []) : []))
        .sort((a, b) => a.at - b.at);
      const day = byDate.get(date) ?? null;
      // A date without a day shows no time: the zone is not read.
      rows.push(timesheetRow(date, person, day, counted, day ? zoneOf(day) : this.zone, open));
    }
    return {
      name: `${person.name} (${person.employee})`,
      keep: ` (${person.employee})`,
      details: [`Employee ${person.employee}${person.areas.length > 0 ? `, areas: ${person.areas.join(', ')}` : ''}`],
      columns: TIMESHEET_COLUMNS,
      rows,
      totals: () => timesheetTotals(days, person),
      signatures: true,
    };
  }

  /** `reports/summary`: per person in scope, the totals of `attendance-summary/`, and a totals row. */
  async summary(query: { from: string; to: string; area?: string }, caller: Who): Promise<ReportDocument> {
    const { from, to } = period(query.from, query.to);
    const scope = await scopeOf(this.deps.areas, caller, query.area);
    const people = new People(this.ctx, this.deps.enrollees);
    const read: Row[] = [];
    const summaries = this.deps.days;
    async function* rows(): AsyncGenerator<Row> {
      let cursor: string | undefined;
      do {
        const page = await summaries.summary({ from, to, cursor, limit: SUMMARY_PAGE }, scope.members);
        const found = await people.of(page.results.map((r: SummaryView) => r.enrollee));
        for (const r of page.results) {
          if (!scope.admits(found.get(r.enrollee)?.areas ?? [])) continue;
          const row = summaryRow(r);
          read.push(row);
          yield row;
        }
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    }
    const sheet: Sheet = { name: 'Summary', details: [], columns: SUMMARY_COLUMNS, rows: rows(), totals: () => summaryTotals(read) };
    return {
      ...(await this.base(
        'summary',
        'Attendance summary',
        `${from} to ${to}`,
        scope.label,
        ['summary', from, to, scope.area],
        ['Days by status; durations in hours:minutes (Excel: hours).', SUMMARY_TOTALS_NOTE],
      )),
      sheets: once(sheet),
      emptyColumns: SUMMARY_COLUMNS,
      // A row per person with days in the period.
      rowCount: (atMost) => summaries.countEmployees({ from, to }, summaries.inScope(scope.members, 'person'), atMost),
      asked: { parameters: given({ from, to, area: query.area }) },
    };
  }

  /** `reports/exceptions`: one row per late arrival, early leave, absence, missing punch, overtime or punch from an unconfirmed terminal address. */
  async exceptions(query: { from: string; to: string; area?: string; kind?: string }, caller: Who): Promise<ReportDocument> {
    const { from, to } = period(query.from, query.to);
    const kinds = exceptionKinds(query.kind);
    const scope = await scopeOf(this.deps.areas, caller, query.area);
    const people = new People(this.ctx, this.deps.enrollees);
    const { days, attendance } = this.deps;
    const open = await this.openNow(from, to);
    const member = days.inScope(scope.members, 'person');
    async function* rows(): AsyncGenerator<Row> {
      for await (const page of days.days({ from, to }, DAYS_PER_PAGE, member)) {
        const found = await people.of(page.map((d) => d.enrolleeId));
        // Each day's times in the zone it was judged in (a day stored before that was kept: its person's zone now).
        const zoneOf = await attendance.zones.ofDays(page);
        for (const day of page) {
          const person = found.get(day.enrolleeId)!;
          if (scope.admits(person.areas)) yield* exceptionsOf(day, person, kinds, zoneOf(day), open);
        }
      }
    }
    const chosen = kinds.size === EXCEPTION_KINDS.length ? null : [...kinds].join('_');
    const sheet: Sheet = { name: 'Exceptions', details: [], columns: EXCEPTION_COLUMNS, rows: rows() };
    return {
      ...(await this.base(
        'exceptions',
        'Attendance exceptions',
        `${from} to ${to}`,
        scope.label,
        ['exceptions', from, to, scope.area, chosen],
        [
          `Exceptions shown: ${[...kinds].map((k) => FLAG_WORDS[k]).join(', ')}. Hours: the time late, left early, expected (absent) or overtime.`,
          NEXT_DATE_NOTE,
        ],
      )),
      sheets: once(sheet),
      emptyColumns: EXCEPTION_COLUMNS,
      rowCount: (atMost) => days.countMatches({ from, to }, member, exceptionTests(kinds, open), atMost),
      asked: { parameters: given({ from, to, area: query.area, kind: query.kind }) },
    };
  }
}

/**
 * Printed durations are cut to the whole minute, and a total is the exact sum cut once: the same
 * figure as the summary's and the API's (a person's month is one figure everywhere), which can be
 * a minute or more above the printed rows added by hand. Said on the sheet so nobody reads it as
 * an error.
 */
const TOTALS_NOTE = 'Each duration is cut to the whole minute; a total adds the exact times, so it can be a minute or more above its rows added up.';
/** The summary's totals add its rows' whole minutes (rows.ts), so they add up. */
const SUMMARY_TOTALS_NOTE = 'Each duration is cut to the whole minute; a total is the sum of its rows.';
const NEXT_DATE_NOTE =
  'Times are local times of the attendance zone (a person in an area with a zone of its own: theirs); a day is the date its shift started.';
/** The daily report of today, after midnight: the Today board shows the night still running, the report each person's shift of this date. */
const OWN_SHIFTS_NOTE =
  "Each row is the person's shift of this date: a night shift begun the date before is on that date's report, as stored so far while it still runs (someone not in yet: no record, or absent once the 00:15 absences job has run; the Today board shows the running night live).";

/** The parameters a report was asked with, those given (an area, a kind) and those it always has. */
function given(parameters: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(parameters).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
}

async function* once<T>(value: T): AsyncGenerator<T> {
  yield value;
}

function period(fromText: string, toText: string): { from: string; to: string } {
  const from = requireDate(fromText, 'from');
  const to = requireDate(toText, 'to');
  requireOrdered(from, to);
  if (addDays(from, MAX_DAYS - 1) < to) throw new FpaError('validation_error', `from..to must be 1 to ${MAX_DAYS} dates`, { fields: ['from', 'to'] });
  return { from, to };
}

/** `?kind=late,absent`: the kinds asked for (default: every kind). */
export function exceptionKinds(text: string | undefined): Set<ExceptionKind> {
  if (text === undefined || text.trim() === '') return new Set(EXCEPTION_KINDS);
  const asked = text.split(',').map((k) => k.trim());
  const unknown = asked.filter((k) => !(EXCEPTION_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new FpaError('validation_error', `kind must be one or more of ${EXCEPTION_KINDS.join(', ')}`, { field: 'kind', unknown });
  return new Set(asked as ExceptionKind[]);
}
