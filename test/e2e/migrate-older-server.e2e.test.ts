/**
 * `npm run fpa:migrate` and `npm run fpa:check` of this release while a server of an older one
 * still holds the database (README "Upgrade"): that server migrated it at its start to its own
 * migrations, so this release's later ones are not applied. The migrate refuses, exit 1, naming
 * the server's pid and what to do, and changes nothing; the check warns (fpa.W010). Once the
 * server is stopped the migrate applies them; under a server of this release it has nothing to do.
 * The older server is the lock taken by this test's process on a second-release database.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_FOLDER, openDatabase } from '../../src/platform/db/client';
import { acquireLock } from '../../src/platform/db/lock';
import { runCli } from '../support/cli';
import { tempDir } from '../support/harness';
import { databaseBefore, SECOND_RELEASE } from '../support/old-database';

const work = tempDir('fpa-migrate-older-');
const file = join(work.dir, 'fpa.db');
const journal = (JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] }).entries;
const secondRelease = journal.filter((e) => e.tag < SECOND_RELEASE).length;

afterAll(() => work.cleanup());

async function applied(): Promise<number> {
  const db = await openDatabase({ url: `file:${file}`, backgroundCheckpoint: false });
  try {
    const rs = await db.client.execute('select count(*) as n from __drizzle_migrations');
    return Number(rs.rows[0]!.n);
  } finally {
    await db.close();
  }
}

describe('fpa:migrate while an older release’s server holds the database', () => {
  test('refuses, naming the server and what to do; fpa:check warns (fpa.W010); stopped, the migrate applies them', async () => {
    await (await databaseBefore(work.dir, SECOND_RELEASE)).close();
    const olderServer = await acquireLock(file);
    const pending = journal.length - secondRelease;
    const said = `${pending} of this release's ${journal.length} migrations are not applied to the database (${journal[secondRelease]!.tag} to ${journal.at(-1)!.tag})`;
    try {
      const migrate = await runCli(['migrate'], file);
      expect({ code: migrate.code, out: migrate.out, err: migrate.err }).toEqual({
        code: 1,
        out: '',
        err: `fpa:migrate: ${said}: the server running on it (pid ${process.pid}) is an older release. Stop it, then run fpa:migrate again (or start this release, which applies them).`,
      });
      expect(await applied()).toBe(secondRelease);

      const check = await runCli(['check'], file);
      expect(check.code).toBe(0);
      expect(check.out).toContain(
        `fpa.W010 [warning] ${said[0]!.toUpperCase()}${said.slice(1)}. A server is running on it (pid ${process.pid}): an older release, which migrated it to its own migrations only.`,
      );
      expect(check.out).toContain('fpa:check: 0 error(s), 1 warning(s)');
    } finally {
      olderServer.release();
    }

    // Stopped: the check still says what is pending (no server named), the migrate applies it.
    const before = await runCli(['check'], file);
    expect(before.out).toContain(`fpa.W010 [warning] ${said[0]!.toUpperCase()}${said.slice(1)}.\n`);
    const migrate = await runCli(['migrate'], file);
    // It says what it applied (it once said only "is up to date", whatever it had done).
    expect({ code: migrate.code, out: migrate.out, err: migrate.err }).toEqual({
      code: 0,
      out: `fpa:migrate: applied ${pending} migrations: ${journal[secondRelease]!.tag} … ${journal.at(-1)!.tag} (the database at file:${file})`,
      err: '',
    });
    expect(await applied()).toBe(journal.length);
    const twice = await runCli(['migrate'], file);
    expect({ code: twice.code, out: twice.out }).toEqual({ code: 0, out: `fpa:migrate: the database at file:${file} is already up to date` });
    const after = await runCli(['check'], file);
    expect(after.out).not.toContain('fpa.W010');

    // A server of this release holding it migrated it at its start: nothing to do.
    const thisRelease = await acquireLock(file);
    try {
      const again = await runCli(['migrate'], file);
      expect({ code: again.code, out: again.out }).toEqual({
        code: 0,
        out: 'fpa:migrate: a running server holds the database and applied the migrations when it started; nothing to do',
      });
    } finally {
      thisRelease.release();
    }
  }, 120_000);
});
