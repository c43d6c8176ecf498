/**
 * `bun run fpa:create-agent <name> --algorithm <algorithm_version> [--areas north,south]`: creates
 * an enrollment agent (for the people of those areas; none: everyone) and prints its id and its
 * key, once. While a server holds the local database the work
 * is handed to it (operator token of the lock file); otherwise the database is opened here.
 */
import { parseArgs } from 'node:util';
import { createFingerprintAttendance } from '../app/create';
import { FpaError } from '../platform/errors';
import { silentLogger } from '../platform/log';
import { callRunningServer, refusal, registerCommand } from './run';

const USAGE = 'usage: npm run fpa:create-agent -- <name> --algorithm <algorithm_version> [--areas <area>,<area>…]';

interface CreatedAgent {
  id: unknown;
  name: unknown;
  algorithm_version: unknown;
  areas: unknown;
}

function report(agent: CreatedAgent, key: unknown, where: string): void {
  const areas = Array.isArray(agent.areas) && agent.areas.length > 0 ? `, areas ${agent.areas.join(', ')}` : ', every area';
  console.log(`fpa:create-agent: created agent "${String(agent.name)}" (id ${String(agent.id)}, algorithm ${String(agent.algorithm_version)}${areas})${where}`);
  console.log(`key (shown this once; store it in the agent now): ${String(key)}`);
}

export async function createAgentCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { algorithm: { type: 'string' }, areas: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const name = positionals.join(' ').trim();
  const algorithm = values.algorithm?.trim() ?? '';
  const areas = (values.areas ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (!name || !algorithm) {
    console.error(USAGE);
    return 2;
  }
  const handed = await callRunningServer<CreatedAgent & { key: unknown }>('create-agent', 'enrollment-agents/', { name, algorithm_version: algorithm, areas });
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
    const { agent, key } = await fpa.service.createAgent(name, { algorithmVersion: algorithm, areas, by: 'operator' });
    report(agent, key, '');
    return 0;
  } catch (error) {
    // An unknown area: the same reason the running server would give.
    if (!(error instanceof FpaError)) throw error;
    console.error(`fpa:create-agent: ${error.message}`);
    return 1;
  } finally {
    await fpa.close();
  }
}

registerCommand(
  'create-agent',
  createAgentCommand,
  `${USAGE}\nCreates an enrollment agent (for the people of those areas; none: everyone) and shows its key once.`,
);
