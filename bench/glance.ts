/**
 * HR at a glance (issue 26), measured on each growth size's seeded copy (bench/growth.ts), over
 * HTTP: the Today board and every list the console pages through, each the median of 5 reads.
 * The target: each within 200 ms for 10,000 people and their history (size M).
 *
 * - `attendance/today/` of the last seeded workday (everyone's day stored) and of today (the
 *   live statuses from the plan, nobody punched yet), and today's as the console reads it at
 *   every live read (`count=expected&limit=200`: one count's first 200), with both answers' sizes;
 * - `enrollees/?search=` a part of a name (sorted by name, a page of 50), a PIN, and a page of
 *   100 by PIN deep in the list (a cursor from the middle), and `?consent=missing` by name;
 * - `attendance-days/` of one date (a page of 100) and `punches/` of one day (a page of 100);
 * - `attendance-summary/` of the month up to that date, a page of 500 (what the summary report
 *   pages through).
 */
import { type Figure, round } from './support';

export interface GlanceResult {
  boardMs: number;
  boardPeople: number;
  boardTodayMs: number;
  /** The answer of today's whole board, in bytes of JSON. */
  boardTodayBytes: number;
  /** Today's board as the console reads it: one count's first 200. */
  boardConsoleMs: number;
  boardConsoleBytes: number;
  searchNameMs: number;
  searchNameHits: number;
  searchPinMs: number;
  sortPinPageMs: number;
  consentPageMs: number;
  daysPageMs: number;
  punchesPageMs: number;
  summaryPageMs: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed<T>(read: () => Promise<T>): Promise<{ ms: number; last: T }> {
  const times: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    last = await read();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), last: last! };
}

type Json = <T>(path: string) => Promise<T>;
interface Listed {
  results: unknown[];
  next_cursor: string | null;
}

export async function measureGlance(json: Json, people: readonly { pin: string }[], date: string): Promise<GlanceResult> {
  const board = await timed(() => json<{ people: unknown[] }>(`/attendance/today/?date=${date}`));
  const today = await timed(() => json<{ people: unknown[] }>('/attendance/today/'));
  const consoleRead = await timed(() => json<{ people: unknown[] }>('/attendance/today/?count=expected&limit=200'));
  // "ch 12": a part of a name ("Bench 1234"), two words.
  const name = await timed(() => json<Listed>('/enrollees/?search=ch%2012&sort=name&limit=50'));
  const pin = people[Math.floor(people.length * 0.7)]!.pin;
  const byPin = await timed(() => json<Listed>(`/enrollees/?search=${pin}`));
  // A cursor from the middle of the list by PIN: the page after it costs a seek.
  let cursor: string | null = null;
  for (let i = 0; i < 3; i++) cursor = (await json<Listed>(`/enrollees/?sort=pin&limit=1000${cursor ? `&cursor=${cursor}` : ''}`)).next_cursor;
  const deep = await timed(() => json<Listed>(`/enrollees/?sort=pin&limit=100${cursor ? `&cursor=${cursor}` : ''}`));
  const consent = await timed(() => json<Listed>('/enrollees/?consent=missing&sort=name&limit=100'));
  const days = await timed(() => json<Listed>(`/attendance-days/?from=${date}&to=${date}&limit=100`));
  const punches = await timed(() => json<Listed>(`/punches/?from=${date}&to=${date}&limit=100`));
  const monthFrom = new Date(Date.parse(`${date}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
  const summary = await timed(() => json<Listed>(`/attendance-summary/?from=${monthFrom}&to=${date}&limit=500`));
  return {
    boardMs: board.ms,
    boardPeople: board.last.people.length,
    boardTodayMs: today.ms,
    boardTodayBytes: jsonBytes(today.last),
    boardConsoleMs: consoleRead.ms,
    boardConsoleBytes: jsonBytes(consoleRead.last),
    searchNameMs: name.ms,
    searchNameHits: name.last.results.length,
    searchPinMs: byPin.ms,
    sortPinPageMs: deep.ms,
    consentPageMs: consent.ms,
    daysPageMs: days.ms,
    punchesPageMs: punches.ms,
    summaryPageMs: summary.ms,
  };
}

/** The size of an answer as the server writes it (JSON.stringify of the same value), in bytes. */
const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

const kB = (bytes: number) => `${round(bytes / 1000, 0)} kB`;

const TARGET_MS = 200;

/** One figure per read: the largest size's median, judged against 200 ms; every size in the notes. */
export function glanceFigures(results: { size: { name: string; people: number }; glance: GlanceResult }[]): Figure[] {
  const top = results[results.length - 1]!;
  const figure = (id: string, title: string, pick: (g: GlanceResult) => number, extra: (g: GlanceResult) => string = () => ''): Figure => ({
    id: `glance-${id}`,
    title: `${title}, at ${top.size.name} (${top.size.people.toLocaleString('en')} people)`,
    value: round(pick(top.glance), 1),
    unit: 'ms',
    target: { text: `≤ ${TARGET_MS} ms`, met: pick(top.glance) <= TARGET_MS },
    notes: [results.map((r) => `${r.size.name} ${round(pick(r.glance), 1)} ms${extra(r.glance)}`).join(', ')],
  });
  return [
    figure(
      'board',
      'attendance/today/ of a worked date (everyone)',
      (g) => g.boardMs,
      (g) => ` (${g.boardPeople} people)`,
    ),
    figure(
      'board-today',
      'attendance/today/ of today (live statuses)',
      (g) => g.boardTodayMs,
      (g) => ` (${kB(g.boardTodayBytes)})`,
    ),
    figure(
      'board-console',
      'attendance/today/?count=expected&limit=200 of today (the console’s live read)',
      (g) => g.boardConsoleMs,
      (g) => ` (${kB(g.boardConsoleBytes)})`,
    ),
    figure(
      'search-name',
      'enrollees/?search= a part of a name, by name, 50 a page',
      (g) => g.searchNameMs,
      (g) => ` (${g.searchNameHits} shown)`,
    ),
    figure('search-pin', 'enrollees/?search= a PIN', (g) => g.searchPinMs),
    figure('sort-pin', 'enrollees/?sort=pin, a page of 100 after 3,000', (g) => g.sortPinPageMs),
    figure('consent', 'enrollees/?consent=missing&sort=name, a page of 100', (g) => g.consentPageMs),
    figure('days', 'attendance-days/ of one date, a page of 100', (g) => g.daysPageMs),
    figure('punches', 'punches/ of one day, a page of 100', (g) => g.punchesPageMs),
    figure('summary', 'attendance-summary/ of a month, a page of 500', (g) => g.summaryPageMs),
  ];
}
