/**
 * The background checkpointer's thread (see checkpointer.ts): its own connection to the database
 * file, copying committed pages from the WAL into the database every `intervalMs`. A PASSIVE
 * checkpoint never takes the write lock and never waits for readers, so the writer goes on
 * meanwhile; what it could not copy yet is copied at the next round.
 */
import { parentPort } from 'node:worker_threads';
import { createClient } from '@libsql/client';

/** The opening thread's messages: start with these, run a round now (the n-th asked for), or stop. */
export type CheckpointerCommand = { start: { path: string; intervalMs: number; walSizeLimitBytes: number } } | { round: number } | { stop: true };

/** What the thread tells the opening one. */
export type CheckpointerReport = { round: CheckpointRound } | { error: string } | { stopped: true };

/**
 * One round: frames in the WAL, and how many of them are in the database file now; `asked`, the
 * last asked-for round (`{ round: n }`) received before this one began.
 */
export interface CheckpointRound {
  log: number;
  checkpointed: number;
  asked: number;
}

let client: ReturnType<typeof createClient> | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;
let interval = 0;
let asked = 0;
/** A round is running: an asked-for round then waits for it instead of running beside it. */
let running = false;

function report(message: CheckpointerReport): void {
  parentPort?.postMessage(message);
}

async function round(): Promise<void> {
  if (!client || running) return;
  if (timer) clearTimeout(timer);
  timer = null;
  running = true;
  const answering = asked;
  try {
    const row = (await client.execute('PRAGMA wal_checkpoint(PASSIVE)')).rows[0];
    report({ round: { log: Number(row?.log ?? 0), checkpointed: Number(row?.checkpointed ?? 0), asked: answering } });
  } catch (error) {
    // Busy (another instance's checkpoint) or a transient I/O error: the next round tries again.
    report({ error: error instanceof Error ? error.message : String(error) });
  }
  running = false;
  if (client) timer = setTimeout(() => void round(), interval);
}

parentPort?.on('message', (command: CheckpointerCommand) => {
  if ('round' in command) {
    // Asked for now (a purge waiting for the log to be copied).
    asked = command.round;
    void round();
    return;
  }
  if ('start' in command) {
    interval = command.start.intervalMs;
    client ??= createClient({ url: `file:${command.start.path}`, intMode: 'number' });
    // This thread's connection lasts: the limit set once holds for its checkpoints too.
    void client
      .execute(`PRAGMA journal_size_limit = ${command.start.walSizeLimitBytes}`)
      .catch((error: unknown) => report({ error: error instanceof Error ? error.message : String(error) }))
      .then(() => round());
    return;
  }
  // Between rounds (this thread runs one thing at a time): no checkpoint is cut short.
  if (timer) clearTimeout(timer);
  client?.close();
  client = null;
  report({ stopped: true });
});
