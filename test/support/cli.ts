/**
 * `npm run fpa:<name> -- args` is `bun src/cli.ts <name> args`: the operator commands run as
 * operators run them, in a subprocess, on a database file of the test's own.
 */
import { resolve } from 'node:path';
import { JWT_SECRET, TEST_KEY } from './harness';

const ROOT = resolve(import.meta.dir, '../..');

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs one operator command against `databaseFile` with the test key and secret; `env` adds or overrides settings. */
export async function runCli(args: string[], databaseFile: string, env: Record<string, string> = {}): Promise<CliRun> {
  const proc = Bun.spawn([process.execPath, 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      FPA_DATABASE_URL: `file:${databaseFile}`,
      FPA_TEMPLATE_ENCRYPTION_KEYS: TEST_KEY,
      FPA_ADMIN_JWT_SECRET: JWT_SECRET,
      FPA_TASK_BACKEND: 'external',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: out.trim(), err: err.trim() };
}
