/**
 * The single writer's queue (platform/db/client.ts) on a real libSQL file: foreground writes in
 * order and first, background writes (log followers) after a quiet moment, never starved.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { type Database, openDatabase } from '../../src/platform/db/client';
import { tempDir } from '../support/harness';

const tmp = tempDir('fpa-write-queue-');
let db: Database;
/** The longest a background write yields here (ATTENDANCE_MAX_LAG in a service; shorter for the test). */
const MAX_WAIT_MS = 1_500;

beforeAll(async () => {
  db = await openDatabase({ url: `file:${join(tmp.dir, 'q.db')}`, backgroundMaxWaitMs: MAX_WAIT_MS });
  await db.client.execute('create table t (label text not null)');
});
afterAll(async () => {
  await db.close();
  tmp.cleanup();
});

const write = (label: string, background = false, owedSince?: number) =>
  db.write(
    async (w) => {
      await w.execute({ sql: 'insert into t (label) values (?)', args: [label] });
      return label;
    },
    { background, owedSince },
  );

/** Uploads one after another, 5 ms apart, until `stop` is called. */
function keepUploading(): { stop(): Promise<void> } {
  let uploading = true;
  const uploads = (async () => {
    let n = 0;
    while (uploading) {
      await write(`upload ${++n}`);
      await Bun.sleep(5);
    }
  })();
  return {
    async stop() {
      uploading = false;
      await uploads;
    },
  };
}

async function labels(): Promise<string[]> {
  return (await db.client.execute('select label from t order by rowid')).rows.map((r) => String(r.label));
}

describe('write queue', () => {
  test('foreground writes queued with a background one commit first, in their order; the background one follows', async () => {
    await db.client.execute('delete from t');
    const done = await Promise.all([write('follower', true), write('upload 1'), write('upload 2'), write('upload 3')]);
    expect(done).toEqual(['follower', 'upload 1', 'upload 2', 'upload 3']);
    expect(await labels()).toEqual(['upload 1', 'upload 2', 'upload 3', 'follower']);
  });

  test('a background write waits while foreground writes keep coming, but not longer than the maximum', async () => {
    await db.client.execute('delete from t');
    const uploads = keepUploading();
    await Bun.sleep(20);
    const queuedAt = performance.now();
    await write('follower', true);
    const waited = performance.now() - queuedAt;
    await uploads.stop();
    const order = await labels();
    // Uploads kept committing while it waited (a hundred or more in 1.5 s), and it was not held past the maximum.
    expect(order.indexOf('follower')).toBeGreaterThan(50);
    expect(waited).toBeGreaterThanOrEqual(MAX_WAIT_MS - 50);
    expect(waited).toBeLessThan(MAX_WAIT_MS + 1000);
  });

  test('a follower owed its work for longer than the maximum is not made to wait again: its steps run among the uploads', async () => {
    await db.client.execute('delete from t');
    const uploads = keepUploading();
    await Bun.sleep(20);
    const owedSince = performance.now() - MAX_WAIT_MS - 100;
    const started = performance.now();
    for (let step = 1; step <= 5; step++) await write(`step ${step}`, true, owedSince);
    const took = performance.now() - started;
    await uploads.stop();
    const order = await labels();
    // Five overdue steps in far less than one maximum wait, each after at most the upload that was running.
    expect(took).toBeLessThan(MAX_WAIT_MS / 2);
    expect(order.filter((l) => l.startsWith('step'))).toEqual(['step 1', 'step 2', 'step 3', 'step 4', 'step 5']);
    // Not owed as long (owed since now): the same step waits out the uploads again.
    const uploadsAgain = keepUploading();
    await Bun.sleep(20);
    const queuedAt = performance.now();
    await write('fresh step', true, performance.now());
    const waited = performance.now() - queuedAt;
    await uploadsAgain.stop();
    expect(waited).toBeGreaterThanOrEqual(MAX_WAIT_MS - 50);
  });

  test('overdue background steps, each queued as the last one ends, leave the event loop a turn between them', async () => {
    // A follower catching up after a long burst: its writes settle through promises alone, so
    // without a turn between them no request was read until it had caught up (10 s measured).
    await db.client.execute('delete from t');
    const owedSince = performance.now() - MAX_WAIT_MS - 100;
    let steps = 0;
    let stepsWhenTurnCame = -1;
    // A turn of the loop, as an incoming request needs one to be read.
    setImmediate(() => {
      stepsWhenTurnCame = steps;
    });
    for (let step = 1; step <= 30; step++) {
      await write(`step ${step}`, true, owedSince);
      steps++;
    }
    expect(steps).toBe(30);
    expect(stepsWhenTurnCame).toBeGreaterThanOrEqual(0);
    expect(stepsWhenTurnCame).toBeLessThanOrEqual(2);
  });

  test('a background write alone runs at once, and close waits for every queued write', async () => {
    await db.client.execute('delete from t');
    const started = performance.now();
    await write('alone', true);
    expect(performance.now() - started).toBeLessThan(MAX_WAIT_MS / 2);
    const other = await openDatabase({ url: `file:${join(tmp.dir, 'q.db')}` });
    const pending = [
      other.write(async (w) => w.execute("insert into t (label) values ('a')"), { background: true }),
      other.write(async (w) => w.execute("insert into t (label) values ('b')")),
    ];
    await other.close();
    await Promise.all(pending);
    expect((await labels()).slice(1).sort()).toEqual(['a', 'b']);
  });
});
