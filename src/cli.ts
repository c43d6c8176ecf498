/** `bun run fpa:<command>`: the operator commands (src/cli/run.ts). */
import { runCli } from './cli/run';

if (import.meta.main) {
  await import('./cli/commands');
  process.exit(await runCli(process.argv.slice(2)));
}
