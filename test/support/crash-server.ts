/**
 * The standalone server as a child process (`bun src/server.ts`), the way an operator runs it:
 * configured only through `FPA_*` environment variables, killed with SIGKILL at any moment and
 * started again on the same database file and port. Its output is kept (the tail only) so a
 * failing test can show what the server said.
 */
import { join, resolve } from 'node:path';
import type { Subprocess } from 'bun';
import { freePort, JWT_SECRET, TEST_KEY } from './harness';

export const ROOT = resolve(import.meta.dir, '../..');
const BUN = process.execPath;
const OUTPUT_TAIL = 16_000;

/** The environment of a server or script on `dir/fpa.db`: nothing inherited but PATH and HOME. */
export function serverEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    FPA_DATABASE_URL: `file:${join(dir, 'fpa.db')}`,
    FPA_TEMPLATE_ENCRYPTION_KEYS: TEST_KEY,
    FPA_ADMIN_JWT_SECRET: JWT_SECRET,
    FPA_TASK_BACKEND: 'external',
    FPA_HOST: '127.0.0.1',
    FPA_LOG_LEVEL: 'warn',
    ...extra,
  };
}

export interface Finished {
  code: number;
  out: string;
  err: string;
}

/** Runs `bun <args>` in the repository to completion (a script or a server that refuses). */
export async function runBun(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<Finished> {
  const proc = Bun.spawn([BUN, ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  try {
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, out: out.trim(), err: err.trim() };
  } finally {
    clearTimeout(timer);
  }
}

/** Appends a stream's text to `sink`, keeping only the last OUTPUT_TAIL characters. */
async function drain(stream: ReadableStream<Uint8Array>, sink: { text: string }): Promise<void> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    sink.text = (sink.text + decoder.decode(value, { stream: true })).slice(-OUTPUT_TAIL);
  }
}

export class ChildServer {
  readonly port: number;
  readonly url: string;
  /** Starts so far (the first one included). */
  starts = 0;
  /** Exits this test did not cause (a crash of the server itself). */
  readonly unexpectedExits: string[] = [];
  private proc: Subprocess<'ignore', 'pipe', 'pipe'> | null = null;
  private readonly output = { text: '' };
  private expectingExit = false;

  constructor(
    readonly dir: string,
    private readonly env: Record<string, string>,
    port = freePort(),
  ) {
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
  }

  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  get running(): boolean {
    return this.proc !== null && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** The server's recent stdout and stderr, for failure messages. */
  get log(): string {
    return this.output.text;
  }

  /** Spawns the server and waits until `/healthz` answers 200. */
  async start(timeoutMs = 20_000): Promise<void> {
    const proc = this.spawn();
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(`the server exited during start (${proc.signalCode ?? proc.exitCode}):\n${this.log}`);
      }
      try {
        const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1000) });
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await Bun.sleep(25);
    }
    throw new Error(`the server did not become healthy within ${timeoutMs} ms:\n${this.log}`);
  }

  /** Spawns the server without waiting for it (to kill it while it starts). */
  spawn(): Subprocess<'ignore', 'pipe', 'pipe'> {
    if (this.running) throw new Error('the server is already running');
    this.expectingExit = false;
    const proc = Bun.spawn([BUN, 'src/server.ts'], {
      cwd: ROOT,
      env: { ...this.env, PORT: String(this.port) },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    this.proc = proc;
    this.starts++;
    void drain(proc.stdout, this.output);
    void drain(proc.stderr, this.output);
    void proc.exited.then((code) => {
      if (!this.expectingExit) this.unexpectedExits.push(`pid ${proc.pid} exited with ${proc.signalCode ?? code}`);
    });
    return proc;
  }

  /** SIGKILL: no shutdown code runs, the lock file stays behind. Resolves once the process is gone. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.expectingExit = true;
    proc.kill('SIGKILL');
    await proc.exited;
    this.proc = null;
  }

  /** SIGTERM: the clean shutdown. Returns the exit code. */
  async stop(): Promise<number> {
    const proc = this.proc;
    if (!proc) return 0;
    this.expectingExit = true;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    try {
      return await proc.exited;
    } finally {
      clearTimeout(timer);
      this.proc = null;
    }
  }
}
