/**
 * The database `npm run fpa:restore` replaced (`fpa.db.replaced-<time>`) holds everyone as of the
 * restore, their sealed templates included, and no deletion, consent withdrawal, retention or
 * deletion proof after it reaches it: it is a safety net for RESTORE_KEEP_REPLACED (7 days by default),
 * then the server deletes it, at start and in the daily retention purge, naming it in its log.
 * It was once kept for ever ("remove it yourself").
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../../src/platform/log';
import { startTestServer, type TestServer, tempDir } from '../../support/harness';

const DAY = 86_400_000;
const T = Date.parse('2026-06-10T12:00:00Z');
const work = tempDir('fpa-replaced-');
let now = T;
const lines: string[] = [];
const logger = createLogger('info', (line) => lines.push(line));
let server: TestServer | null = null;

afterAll(async () => {
  await server?.close();
  work.cleanup();
});

/** The name fpa:restore gives the database it replaced at `at` (UTC, `:` written `-`). */
const replaced = (dir: string, at: number, database = 'fpa.db') =>
  join(
    dir,
    `${database}.replaced-${new Date(at)
      .toISOString()
      .replaceAll(':', '-')
      .replace(/\.\d+Z$/, 'Z')}`,
  );

function place(files: string[]): void {
  for (const file of files) writeFileSync(file, 'SQLite format 3\0 …a database a restore replaced', { mode: 0o600 });
}

/** What the server logged about deleting replaced databases. */
const deletions = () =>
  lines.map((line) => JSON.parse(line) as { level: string; msg: string; file?: string }).filter((entry) => entry.msg.includes('a restore replaced'));

describe('the databases a restore replaced', () => {
  test('kept at start while younger than RESTORE_KEEP_REPLACED (the ordinary restore, then start)', async () => {
    const dir = join(work.dir, 'fresh');
    mkdirSync(dir);
    const justNow = replaced(dir, T - 60_000);
    place([justNow]);
    const fresh = await startTestServer({}, { dir, clock: { now: () => T }, logger });
    await fresh.close();
    expect(existsSync(justNow)).toBe(true);
    expect(deletions()).toEqual([]);
  });

  test('deleted at start once older than RESTORE_KEEP_REPLACED (7 days), with what a reader left beside it, each named in the log', async () => {
    const dir = join(work.dir, 'data');
    mkdirSync(dir);
    const old = replaced(dir, T - 7 * DAY - 1000);
    const young = replaced(dir, T - 6 * DAY);
    const otherDatabase = replaced(dir, T - 30 * DAY, 'other.db');
    const notOne = join(dir, 'fpa.db.replaced-by-hand');
    place([old, `${old}-wal`, `${old}-shm`, young, otherDatabase, notOne]);
    server = await startTestServer({}, { dir, clock: { now: () => now }, logger });
    expect([old, `${old}-wal`, `${old}-shm`].filter(existsSync)).toEqual([]);
    // Younger, another database's, or not a name fpa:restore gives: left alone.
    expect([young, otherDatabase, notOne].filter(existsSync)).toEqual([young, otherDatabase, notOne]);
    expect(deletions()).toEqual([
      expect.objectContaining({ level: 'info', msg: `deleted ${old}, the database a restore replaced, kept 7d (RESTORE_KEEP_REPLACED)`, file: old }),
    ]);
  });

  test('deleted by the daily retention purge once its time has come, counted in its result', async () => {
    lines.length = 0;
    const young = replaced(server!.dir, T - 6 * DAY);
    const before = await server!.fpa.jobs.run('purge-retention');
    expect({ status: before.status, replaced: before.result.replaced_databases }).toEqual({ status: 'succeeded', replaced: 0 });
    expect(existsSync(young)).toBe(true);
    now = T + DAY + 1000;
    const after = await server!.fpa.jobs.run('purge-retention');
    expect({ status: after.status, replaced: after.result.replaced_databases }).toEqual({ status: 'succeeded', replaced: 1 });
    expect(after.summary).toEndWith(' replaced_databases=1');
    expect(existsSync(young)).toBe(false);
    expect(deletions().map((entry) => entry.file)).toEqual([young]);
  });

  test('RESTORE_KEEP_REPLACED sets how long; 0 deletes it at the next start', async () => {
    const dir = join(work.dir, 'zero');
    mkdirSync(dir);
    const minuteOld = replaced(dir, T - 60_000);
    place([minuteOld]);
    const longer = await startTestServer({ RESTORE_KEEP_REPLACED: '30d' }, { dir, clock: { now: () => T + 20 * DAY } });
    await longer.close();
    expect(existsSync(minuteOld)).toBe(true);
    const none = await startTestServer({ RESTORE_KEEP_REPLACED: '0' }, { dir, clock: { now: () => T } });
    await none.close();
    expect(existsSync(minuteOld)).toBe(false);
  });

  test('a dangling link by the name of an old one is left alone, and the server starts', async () => {
    const dir = join(work.dir, 'dangling');
    mkdirSync(dir);
    const link = replaced(dir, T - 30 * DAY);
    symlinkSync(join(dir, 'gone'), link);
    const started = await startTestServer({}, { dir, clock: { now: () => T } });
    await started.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});
