/**
 * `bun run fpa:create-agent <name> --algorithm <algorithm_version>`: creates an enrollment
 * agent and prints its id and its key, once. While a server holds the local database the work
 * is handed to it (operator token of the lock file); otherwise the database is opened here.
 */
import { parseArgs } from 'node:util';
import { createFingerprintAttendance } from '../app/create';
import { silentLogger } from '../platform/log';
import { callRunningServer, refusal, registerCommand } from './run';

const USAGE = 'usage: npm run fpa:create-agent -- <name> --algorithm <algorithm_version>';

interface CreatedAgent {
  id: unknown;
  name: unknown;
  algorithm_version: unknown;
}

function report(agent: CreatedAgent, key: unknown, where: string): void {
  console.log(`fpa:create-agent: created agent "${String(agent.name)}" (id ${String(agent.id)}, algorithm ${String(agent.algorithm_version)})${where}`);
  console.log(`key (shown this once; store it in the agent now): ${String(key)}`);
}

export async function createAgentCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { algorithm: { type: 'string' } }, allowPositionals: true, strict: true });
  const name = positionals.join(' ').trim();
  const algorithm = values.algorithm?.trim() ?? '';
  if (!name || !algorithm) {
    console.error(USAGE);
    return 2;
  }
  const handed = await callRunningServer<CreatedAgent & { key: unknown }>('enrollment-agents/', { name, algorithm_version: algorithm });
  if (handed) {
    if (handed.status !== 201) {
      console.error(`fpa:create-agent: ${refusal(handed)}`);
      return 1;
    }
    report(handed.json, handed.json.key, ' by the running server');
    return 0;
  }
  const fpa = await createFingerprintAttendance({ startJobs: false, logger: silentLogger });
  try {
    const { agent, key } = await fpa.service.createAgent(name, { algorithmVersion: algorithm, by: 'operator' });
    report(agent, key, '');
    return 0;
  } finally {
    await fpa.close();
  }
}

registerCommand('create-agent', createAgentCommand);
