/**
 * The README's embedding example as a host would compile and run it: the first `ts` block of
 * "Embedding in a host application", and what the README says stands for the host's own parts.
 * Shared by the strict compile of it (test/architecture/host-types.test.ts) and its run
 * (test/e2e/embedding-example.e2e.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '../..');

/** The first `ts` block of the README's embedding section. */
export function embeddingExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embedding in a host application'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('the README has no ts block under "Embedding in a host application"');
  return block;
}

/** What the README says stands for the host's own, typed as a host would type them. */
export const HOST_STAND_INS = `
const people = new Map([['E-001', { key: 'E-001', displayName: 'Ada Host', active: true }]]);
const myDirectory = { model: 'host.User', find: async (key: string) => people.get(key) ?? null };
const hostSession = (req: Request) => (req.headers.get('cookie')?.includes('host=admin') ? { by: 'host-admin' } : null);
const hostCalendar = { between: (_enrollees: readonly string[], _from: string, _to: string) => ({ leaves: [] }) };
`;
