/**
 * The background checkpointer's thread (see checkpointer.ts): its own connection to the database
 * file, copying committed pages from the WAL into the database every `intervalMs`. A PASSIVE
 * checkpoint never takes the write lock and never waits for readers, so the writer goes on
 * meanwhile; what it could not copy yet is copied at the next round.
 */
import { parentPort } from 'node:worker_threads';
import { createClient } from '@libsql/client';

/** The opening thread's messages: start with these, or stop. */
export type CheckpointerCommand = { start: { path: string; intervalMs: number; walSizeLimitBytes: number } } | { stop: true };

/** What the thread tells the opening one. */
export type CheckpointerReport = { round: CheckpointRound } | { error: string } | { stopped: true };

/** One round: frames in the WAL, and how many of them are in the database file now. */
export interface CheckpointRound {
  log: number;
  checkpointed: number;
}

let client: ReturnType<typeof createClient> | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

function report(message: CheckpointerReport): void {
  parentPort?.postMessage(message);
}

async function round(intervalMs: number): Promise<void> {
  if (!client) return;
  try {
    const row = (await client.execute('PRAGMA wal_checkpoint(PASSIVE)')).rows[0];
    report({ round: { log: Number(row?.log ?? 0), checkpointed: Number(row?.checkpointed ?? 0) } });
  } catch (error) {
    // Busy (another instance's checkpoint) or a transient I/O error: the next round tries again.
    report({ error: error instanceof Error ? error.message : String(error) });
  }
  if (client) timer = setTimeout(() => void round(intervalMs), intervalMs);
}

parentPort?.on('message', (command: CheckpointerCommand) => {
  if ('start' in command) {
    client ??= createClient({ url: `file:${command.start.path}`, intMode: 'number' });
    // This thread's connection lasts: the limit set once holds for its checkpoints too.
    void client
      .execute(`PRAGMA journal_size_limit = ${command.start.walSizeLimitBytes}`)
      .catch((error: unknown) => report({ error: error instanceof Error ? error.message : String(error) }))
      .then(() => round(command.start.intervalMs));
    return;
  }
  // Between rounds (this thread runs one thing at a time): no checkpoint is cut short.
  if (timer) clearTimeout(timer);
  client?.close();
  client = null;
  report({ stopped: true });
});
